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
// Free what allocate returned (nullptr is fine). Never throws. A retained block (below) is
// not freed but only marked pending: release frees it when its last retention goes.
void deallocate(MemKind kind, void* p, size_t bytes) noexcept;

// Retention: keep a block alive beyond its owner (pvec_vector_retain), so that memory a binding
// exported (DLPack, NumPy) stays valid after the vector is destroyed or reallocates.
// retain(p): p is a live block returned by allocate (not yet deallocated); adds one to its
// retention count. release(p): drops one; a block that was deallocated meanwhile is freed
// when the count reaches zero. A block is counted by memory_stats until it is really freed.
// Thread-safe. While nothing is retained, deallocate costs one atomic load more.
// retain throws std::bad_alloc when the registry cannot grow; release returns false (and
// does nothing) for a block that is not retained.
void retain(void* p);
bool release(void* p) noexcept;
// Whether p is retained now (a block that must not be reused for other data).
bool is_retained(void* p) noexcept;
// Number of blocks retained now (for tests).
int64_t retained_blocks() noexcept;

void memory_stats(pvec_memory_stats* out);

// Memory that pvec has another library allocate for it (MPI's shared-memory windows), counted
// as allocate and deallocate count theirs: acquired(kind, bytes) after it was made (one
// allocation), released(kind, bytes) after it was freed. Neither fails.
void count_acquired(MemKind kind, size_t bytes) noexcept;
void count_released(MemKind kind, size_t bytes) noexcept;

// Test hook: the allocation after `count` more successful ones fails (-1 disables).
void inject_allocation_failure(int64_t count);

}  // namespace pvec::impl
