// HandleTable: maps the opaque handles of the C ABI to objects. Handles are never-reused
// identifiers (not addresses), so a NULL, destroyed or wrong-kind handle is detected without
// touching freed memory.
#pragma once

#include "common/error.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace pvec::impl {

// One counter for all kinds, so a schema handle is never a valid vector handle.
uint64_t next_handle_id();

template <class T>
class HandleTable {
 public:
  explicit HandleTable(const char* kind) : kind_(kind) {}

  uint64_t insert(std::unique_ptr<T> obj) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t id = next_handle_id();
    objects_.emplace(id, std::move(obj));
    return id;
  }

  T& get(const void* handle) {
    uint64_t id = reinterpret_cast<uintptr_t>(handle);
    if (id == 0) fail(PVEC_ERROR_INVALID_HANDLE, kind_, " handle is NULL");
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(id);
    if (it == objects_.end())
      fail(PVEC_ERROR_INVALID_HANDLE, kind_, " handle ", handle, " is not a live ", kind_,
           " (destroyed, or not a ", kind_, " handle)");
    return *it->second;
  }

  std::unique_ptr<T> take(const void* handle) {
    get(handle);  // validates
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(reinterpret_cast<uintptr_t>(handle));
    std::unique_ptr<T> obj = std::move(it->second);
    objects_.erase(it);
    return obj;
  }

  // Remove every object (pvec_finalize), oldest first.
  std::vector<std::unique_ptr<T>> take_all() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<uint64_t, std::unique_ptr<T>>> all;
    for (auto& kv : objects_) all.emplace_back(kv.first, std::move(kv.second));
    objects_.clear();
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::unique_ptr<T>> out;
    for (auto& kv : all) out.push_back(std::move(kv.second));
    return out;
  }

 private:
  const char* kind_;
  std::mutex mutex_;
  std::unordered_map<uint64_t, std::unique_ptr<T>> objects_;
};

template <class Handle>
Handle to_handle(uint64_t id) {
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(id));
}

}  // namespace pvec::impl
