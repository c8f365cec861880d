// Every byte pvec allocates goes through here, so that memory is accounted (pvec_memory_stats)
// and allocation failure can be injected in tests.
#pragma once

#include <pvec.h>

#include <cstddef>
#include <cstdint>

namespace pvec::impl {

enum class MemKind { host, pinned, device };

// Alignment of every host allocation; cudaMalloc and cudaHostAlloc give at least this.
constexpr size_t kAlignment = 256;

// Allocate bytes (0 gives nullptr). Throws Error(PVEC_ERROR_OUT_OF_MEMORY) on failure.
void* allocate(MemKind kind, size_t bytes);
// Free what allocate returned (nullptr is fine). Never throws.
void deallocate(MemKind kind, void* p, size_t bytes) noexcept;

void memory_stats(pvec_memory_stats* out);

// Test hook: the allocation after `count` more successful ones fails (-1 disables).
void inject_allocation_failure(int64_t count);

}  // namespace pvec::impl
