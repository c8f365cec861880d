#include "memory/allocator.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pvec::impl {
namespace {

struct Counters {
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> allocs{0};
};
Counters g_counters[3];
std::atomic<int64_t> g_fail_after{-1};

const char* kind_name(MemKind kind) {
  switch (kind) {
    case MemKind::host:
      return "host";
    case MemKind::pinned:
      return "pinned host";
    case MemKind::device:
      return "device";
  }
  return "?";
}

// Large host allocations sit on 2 MiB pages where the kernel allows it (transparent huge
// pages, "madvise" mode): fresh memory then costs one page fault per 2 MiB instead of one per
// 4 KiB, which is most of the cost of growing a large vector.
constexpr size_t kPage = 4096;
constexpr size_t kHuge = size_t{2} << 20;
constexpr size_t kHugeFrom = 4 * kHuge;

// bytes rounded up to a multiple of the alignment (at least min_align), which *rounded_out
// receives.
void* host_alloc(size_t bytes, size_t min_align, size_t* rounded_out) {
  size_t align = min_align;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugeFrom) align = kHuge;
#endif
  const size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p != nullptr && align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only
#endif
  if (rounded_out != nullptr) *rounded_out = rounded;
  return p;
}

// Pinned allocations from 1 MiB are host memory of their own pages (huge pages from 8 MiB)
// page-locked by cudaHostRegister, which bench_pinned_alloc measures as cheaper to make and
// release than cudaHostAlloc + cudaFreeHost, with copies from either kind at the same speed
// (docs/performance.md, "Transfers and pinned blocks"). Smaller blocks keep cudaHostAlloc. The set
// tells deallocate which way a block was made (registration can fail, and then cudaHostAlloc
// serves).
constexpr size_t kRegisterFrom = size_t{1} << 20;
std::mutex g_registered_mutex;
std::unordered_set<void*> g_registered;

void* pinned_alloc(size_t bytes) {
  if (bytes >= kRegisterFrom) {
    size_t rounded = 0;
    void* p = host_alloc(bytes, kPage, &rounded);  // whole pages: no page is shared
    if (p != nullptr) {
      if (device_register_host(p, rounded)) {
        try {
          std::lock_guard<std::mutex> lock(g_registered_mutex);
          g_registered.insert(p);
          return p;
        } catch (...) {  // the set could not grow: give the block back
          device_unregister_host(p);
        }
      }
      std::free(p);
    }
  }
  return device_alloc_pinned(bytes);
}

void pinned_free(void* p) noexcept {
  bool registered = false;
  {
    std::lock_guard<std::mutex> lock(g_registered_mutex);
    registered = g_registered.erase(p) != 0;
  }
  if (registered) {
    device_unregister_host(p);
    std::free(p);
  } else {
    device_free_pinned(p);
  }
}

bool injected_failure() {
  int64_t left = g_fail_after.load();
  while (left >= 0) {
    if (g_fail_after.compare_exchange_weak(left, left - 1)) return left == 0;
  }
  return false;
}

// Free without looking at retentions.
void free_block(MemKind kind, void* p, size_t bytes) noexcept {
  switch (kind) {
    case MemKind::host:
      std::free(p);
      break;
    case MemKind::pinned:
      pinned_free(p);
      break;
    case MemKind::device:
      device_free(p);
      break;
  }
  g_counters[static_cast<int>(kind)].bytes -= static_cast<int64_t>(bytes);
}

// The retained blocks: count of retentions, and once deallocate was called for the block
// (pending), how to free it. g_retained mirrors the map's size so that deallocate skips the
// lock while nothing is retained (a block is only retained while it is live, so a deallocate
// racing with the retain of the same block would be the caller's race on one handle).
struct Retained {
  int64_t count = 0;
  bool pending = false;
  MemKind kind = MemKind::host;
  size_t bytes = 0;
};
std::mutex g_retain_mutex;
std::unordered_map<void*, Retained> g_retains;
std::atomic<int64_t> g_retained{0};

}  // namespace

void retain(void* p) {
  if (p == nullptr) return;
  std::lock_guard<std::mutex> lock(g_retain_mutex);
  auto [it, inserted] = g_retains.try_emplace(p);
  it->second.count += 1;
  if (inserted) g_retained.fetch_add(1, std::memory_order_release);
}

bool release(void* p) noexcept {
  Retained freed;
  {
    std::lock_guard<std::mutex> lock(g_retain_mutex);
    auto it = g_retains.find(p);
    if (it == g_retains.end()) return false;
    if (--it->second.count > 0) return true;
    freed = it->second;
    g_retains.erase(it);
    g_retained.fetch_sub(1, std::memory_order_release);
  }
  if (freed.pending) free_block(freed.kind, p, freed.bytes);
  return true;
}

bool is_retained(void* p) noexcept {
  if (p == nullptr || g_retained.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(g_retain_mutex);
  return g_retains.count(p) != 0;
}

int64_t retained_blocks() noexcept { return g_retained.load(std::memory_order_acquire); }

void* allocate(MemKind kind, size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  if (!injected_failure()) {
    switch (kind) {
      case MemKind::host:
        p = host_alloc(bytes, kAlignment, nullptr);
        break;
      case MemKind::pinned:
        p = pinned_alloc(bytes);
        break;
      case MemKind::device:
        p = device_alloc(bytes);
        break;
    }
  }
  if (p == nullptr)
    fail(PVEC_ERROR_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes of ", kind_name(kind),
         " memory");
  Counters& c = g_counters[static_cast<int>(kind)];
  c.bytes += static_cast<int64_t>(bytes);
  c.allocs += 1;
  return p;
}

void deallocate(MemKind kind, void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
  if (g_retained.load(std::memory_order_acquire) != 0) {
    std::lock_guard<std::mutex> lock(g_retain_mutex);
    auto it = g_retains.find(p);
    if (it != g_retains.end()) {  // the last release frees it
      it->second.pending = true;
      it->second.kind = kind;
      it->second.bytes = bytes;
      return;
    }
  }
  free_block(kind, p, bytes);
}

void memory_stats(pvec_memory_stats* out) {
  out->host_bytes = g_counters[0].bytes;
  out->pinned_bytes = g_counters[1].bytes;
  out->device_bytes = g_counters[2].bytes;
  out->host_allocs = g_counters[0].allocs;
  out->pinned_allocs = g_counters[1].allocs;
  out->device_allocs = g_counters[2].allocs;
}

void inject_allocation_failure(int64_t count) { g_fail_after = count; }

void count_acquired(MemKind kind, size_t bytes) noexcept {
  Counters& c = g_counters[static_cast<int>(kind)];
  c.bytes += static_cast<int64_t>(bytes);
  c.allocs += 1;
}

void count_released(MemKind kind, size_t bytes) noexcept {
  g_counters[static_cast<int>(kind)].bytes -= static_cast<int64_t>(bytes);
}

}  // namespace pvec::impl
