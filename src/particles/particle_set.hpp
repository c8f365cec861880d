// ParticleSet: the particles of one rank: sizes, capacity, generation and one PropertyBuffer
// per column (column 0 = positions, column p+1 = property p). Owns both mirrors and keeps
// them consistent under growth, resizing and removal. Knows nothing of MPI.
#pragma once

#include "backend/device.hpp"
#include "memory/allocator.hpp"
#include "particles/property_buffer.hpp"
#include "particles/staged_transfer.hpp"
#include "memory/scratch_buffer.hpp"

#include <cstdint>
#include <vector>

namespace pvec::impl {

struct Exec;

// Capacity rule: a multiple of 64 elements, at least 64.
int64_t round_capacity(int64_t n);

class ParticleSet {
 public:
  // columns[0] must be the positions. cuda: device mirrors in device memory (else a second
  // host allocation). host_kind: pinned or pageable host mirrors.
  ParticleSet(std::vector<PropertySpec> columns, bool cuda, MemKind host_kind, int64_t n_local);
  ~ParticleSet();
  ParticleSet(const ParticleSet&) = delete;
  ParticleSet& operator=(const ParticleSet&) = delete;

  int column_count() const { return static_cast<int>(cols_.size()); }
  PropertyBuffer& column(int k) { return cols_[k]; }
  const PropertyBuffer& column(int k) const { return cols_[k]; }

  int64_t n_local() const { return n_local_; }
  int64_t n_ghost() const { return n_ghost_; }
  int64_t n_total() const { return n_local_ + n_ghost_; }
  int64_t capacity() const { return capacity_; }
  uint64_t generation() const { return generation_; }
  bool cuda() const { return cuda_; }
  // CUDA ordinal of the device mirror, -1 for the host backend.
  int device() const { return device_; }
  MemKind host_kind() const { return host_kind_; }
  MemKind device_kind() const { return cuda_ ? MemKind::device : MemKind::host; }
  void* stream() const { return stream_; }
  void set_stream(void* s) { stream_ = s; }
  Exec exec(bool device) const;

  // Public operations (see pvec.h). Each drops ghosts and is all-or-nothing.
  void reserve(int64_t n);
  void resize(int64_t n);
  int64_t append(int64_t k);
  void remove(const int64_t* idx, int64_t count);
  void shrink_to_fit();

  // Fresh buffers for a larger capacity, allocated but not yet in use: a collective operation
  // reserves on every rank, agrees that all succeeded, then installs. Frees what it holds
  // unless installed.
  struct Reservation {
    struct Buffers {
      void* host;
      void* dev;
      size_t bytes;
    };
    std::vector<Buffers> buffers;
    int64_t capacity = 0;  // 0: no growth needed
    MemKind host_kind = MemKind::host;
    MemKind device_kind = MemKind::host;
    Reservation() = default;
    Reservation(Reservation&& o) noexcept
        : buffers(std::move(o.buffers)),
          capacity(o.capacity),
          host_kind(o.host_kind),
          device_kind(o.device_kind) {
      o.buffers.clear();
    }
    Reservation& operator=(Reservation&& o) noexcept {
      std::swap(buffers, o.buffers);
      std::swap(capacity, o.capacity);
      std::swap(host_kind, o.host_kind);
      std::swap(device_kind, o.device_kind);
      return *this;
    }
    ~Reservation();
  };
  // What grow_for(total) would allocate (nothing if it fits). Changes nothing.
  Reservation reserve_growth(int64_t total) const;
  // Move [0, live) (live = -1: n_total()) into the reserved buffers.
  void install_growth(Reservation& r, int64_t live = -1);

  // For the distribution layer.
  // Make capacity >= total, growing geometrically; keeps [0, n_total()).
  // live: particles whose values must survive (default n_total()).
  void grow_for(int64_t total, int64_t live = -1);
  // Set sizes without touching data; the caller guarantees capacity and contents.
  void set_sizes(int64_t n_local, int64_t n_ghost);
  void bump_generation() { ++generation_; }
  // Wait for work pvec queued on the vector's stream (before the host touches host mirrors).
  void sync_stream() const;

  // Apply lazily deferred zero-filling of the device mirror (appended particles). Called
  // before anything reads or hands out the device mirror.
  void flush_device();

  // Copy rows [begin, end) (end -1: n_total()) of the listed columns between mirrors on
  // stream; wait if asked.
  void transfer(bool to_device, const std::vector<int>& columns, void* stream, bool wait,
                int64_t begin = 0, int64_t end = -1);

  // Work buffers kept between calls (device-side ones in device memory for the CUDA backend).
  // Slots 0 and 1: removal; device slot 3: the checkpoint's checksums on the GPU.
  ScratchBuffer& host_scratch(int slot) { return host_scratch_[slot]; }
  ScratchBuffer& device_scratch(int slot) { return device_scratch_[slot]; }
  static constexpr int kScratchSlots = 4;
  // The page-locked blocks and streams of staged copies (particles/staged_transfer.hpp).
  StagingLanes& staging_lanes() { return staging_; }

 private:
  // Keeps [0, live) of every column (live = -1: n_total()); all or nothing.
  void reallocate(int64_t new_capacity, int64_t live = -1);
  Reservation reserve_buffers(int64_t new_capacity) const;
  void install(Reservation& r, int64_t keep);
  void zero_particles(int64_t from, int64_t to);

  std::vector<PropertyBuffer> cols_;
  bool cuda_;
  int device_ = -1;
  MemKind host_kind_;
  void* stream_ = nullptr;
  int64_t n_local_ = 0;
  int64_t n_ghost_ = 0;
  int64_t capacity_ = 0;
  uint64_t generation_ = 0;
  // Device rows [device_zero_from_, n_local_) still have to be zero-filled (CUDA only), so
  // that appending one particle at a time costs no device call per particle.
  int64_t device_zero_from_ = INT64_MAX;
  ScratchBuffer host_scratch_[kScratchSlots];
  ScratchBuffer device_scratch_[kScratchSlots];
  // Page-locked blocks and streams of blocking transfers of pageable mirrors, kept between
  // calls (particles/staged_transfer.hpp); given back by shrink_to_fit.
  StagingLanes staging_;
};

}  // namespace pvec::impl
