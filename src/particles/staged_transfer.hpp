// Blocking copies between pageable host memory and device memory through page-locked blocks
// on the host threads. The CUDA runtime copies pageable memory through a staging buffer of its
// own, one block after the other on the calling thread: about 10 GB/s host to device and 18
// GB/s back on the GPU machine, against 55 GB/s from page-locked memory (docs/performance.md,
// "Transfers"). Here up to kMaxLanes host threads (host_ranges) each take a share of the
// blocks, copy each into one of two page-locked blocks of their own and hand it to the copy
// engine on one of two streams of their own, so that the host copies run on several threads
// and overlap the engine's. Device to host is the same in reverse. The bytes are the same as
// one cudaMemcpy's.
//
// ParticleSet::transfer uses it for blocking transfers of vectors with pageable host mirrors
// (PVEC_HOST_PAGEABLE) from 16 MiB in all with two or more host threads; the blocks and
// streams (a lane per thread) stay with the vector until it is destroyed or shrunk, so a
// transfer in steady state allocates nothing. PVEC_STAGED_TRANSFER=0 turns it off; =1 uses it
// for any size and thread count with blocks of 4 KiB (so that tests of a few thousand
// particles cut every property into many blocks).
#pragma once

#include <cstddef>
#include <vector>

namespace pvec::impl {

// One contiguous range to copy: `bytes` bytes at host and at dev.
struct StagedRange {
  char* host;
  char* dev;
  size_t bytes;
};

// The lanes of a vector: per host thread two page-locked blocks and two streams, made by the
// first staged transfer (at most kMaxLanes of 2 x 1 MiB: 16 MiB of page-locked memory).
class StagingLanes {
 public:
  static constexpr int kMaxLanes = 8;
  StagingLanes() = default;
  ~StagingLanes() { release(); }
  StagingLanes(const StagingLanes&) = delete;
  StagingLanes& operator=(const StagingLanes&) = delete;
  // Waits for the lanes' streams and frees everything.
  void release() noexcept;

  struct Lane {
    char* slot[2] = {nullptr, nullptr};  // nullptr: that lane copies pageable memory directly
    void* stream[2] = {nullptr, nullptr};
  };
  // At least `count` lanes of blocks of `block` bytes on device `device` (remade if any of
  // these differ); throws Error(PVEC_ERROR_CUDA) when a stream cannot be made.
  std::vector<Lane>& ensure(int count, size_t block, int device);
  size_t block() const { return block_; }

 private:
  std::vector<Lane> lanes_;
  size_t block_ = 0;
  int device_ = -1;
};

// Whether a blocking transfer of `bytes` bytes in all takes the staged path.
bool staged_transfer_wanted(size_t bytes);

// Copies every range (host to device when to_device), blocking; device: the CUDA device of
// the device memory. Waits first for the work ordered on `stream` (the vector's stream), and
// returns when every byte has arrived. Throws Error(PVEC_ERROR_CUDA) (the first error in
// range order); the lanes are then released.
void staged_transfer(bool to_device, const std::vector<StagedRange>& ranges, int device,
                     void* stream, StagingLanes& lanes);

}  // namespace pvec::impl
