#include "memory/allocator.hpp"

#include "backend/device.hpp"
#include "core/error.hpp"

#include <atomic>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pvec::detail {
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

bool injected_failure() {
  int64_t left = g_fail_after.load();
  while (left >= 0) {
    if (g_fail_after.compare_exchange_weak(left, left - 1)) return left == 0;
  }
  return false;
}

}  // namespace

void* allocate(MemKind kind, size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  if (!injected_failure()) {
    switch (kind) {
      case MemKind::host: {
        size_t align = kAlignment;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        // Large mirrors on 2 MiB pages where the kernel allows it (transparent huge pages,
        // "madvise" mode): fresh memory then costs one page fault per 2 MiB instead of one
        // per 4 KiB, which is most of the cost of growing a large vector.
        constexpr size_t kHuge = size_t{2} << 20;
        if (bytes >= 4 * kHuge) align = kHuge;
#endif
        const size_t rounded = (bytes + align - 1) / align * align;
        p = std::aligned_alloc(align, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (p != nullptr && align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only
#endif
        break;
      }
      case MemKind::pinned:
        p = device_alloc_pinned(bytes);
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
  switch (kind) {
    case MemKind::host:
      std::free(p);
      break;
    case MemKind::pinned:
      device_free_pinned(p);
      break;
    case MemKind::device:
      device_free(p);
      break;
  }
  g_counters[static_cast<int>(kind)].bytes -= static_cast<int64_t>(bytes);
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

}  // namespace pvec::detail
