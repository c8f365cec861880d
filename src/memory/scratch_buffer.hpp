// A reusable work buffer that only grows (geometrically), so that steady-state operations
// allocate nothing.
#pragma once

#include "memory/allocator.hpp"

#include <algorithm>
#include <cstddef>

namespace pvec::impl {

class ScratchBuffer {
 public:
  ScratchBuffer() = default;
  explicit ScratchBuffer(MemKind kind) : kind_(kind) {}
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  ~ScratchBuffer() { release(); }

  // Storage of at least bytes; contents are not kept when it grows. Throws on OOM, leaving
  // the old storage in place.
  void* ensure(size_t bytes) {
    if (bytes > bytes_) {
      size_t grown = std::max(bytes, bytes_ + bytes_ / 2);
      void* p = allocate(kind_, grown);
      deallocate(kind_, ptr_, bytes_);
      ptr_ = p;
      bytes_ = grown;
    }
    return ptr_;
  }
  template <class T>
  T* ensure_as(size_t count) {
    return static_cast<T*>(ensure(count * sizeof(T)));
  }
  void set_kind(MemKind kind) {
    release();
    kind_ = kind;
  }
  void release() {
    deallocate(kind_, ptr_, bytes_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* data() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  MemKind kind_ = MemKind::host;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace pvec::impl
