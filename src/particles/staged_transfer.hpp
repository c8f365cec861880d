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
// transfer in steady state allocates nothing. The option PVEC_STAGED_TRANSFER=0 turns it off;
// =1 uses it for any size and thread count; =2 also cuts blocks of 4 KiB (so that tests of a
// few thousand particles cut every property into many blocks).
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

// Host-to-device copies handed over block by block from several host threads at once, each
// thread through a lane of its own: a restart uploads each block of rows right after reading
// it, while the rows are still in cache and the other threads' reads go on
// (io/checkpoint_read.cpp). Pageable host memory goes through the lane's two page-locked blocks
// and streams (the block's rows are packed into one, which goes to the engine while the next
// block is read); page-locked host memory goes to the engine directly, on the vector's
// stream. Thread r may only call upload(r, ...); different r may call at once.
class LaneUpload {
 public:
  // For `threads` threads (ranges 0 .. threads - 1) copying to device `device`. pinned_host:
  // the host rows are page-locked (copied on `stream` without staging); else `threads` lanes
  // of `lanes` are made or reused. Throws Error(PVEC_ERROR_CUDA) or an allocation error.
  LaneUpload(StagingLanes& lanes, int threads, int device, bool pinned_host, void* stream);
  // The most bytes one upload may carry (width x height).
  size_t max_bytes() const;
  // Thread r: `height` rows of `width` bytes from host (rows `hpitch` apart) to dev (rows
  // `dpitch` apart), width x height <= max_bytes(). Returns once the host rows may change
  // again (pageable: they were packed; page-locked: not before finish()). Throws
  // Error(PVEC_ERROR_CUDA).
  void upload(int r, const char* host, size_t hpitch, char* dev, size_t dpitch, size_t width,
              size_t height);
  // Waits until every copy has arrived. Throws Error(PVEC_ERROR_CUDA).
  void finish();

 private:
  StagingLanes::Lane* lanes_ = nullptr;
  std::vector<int> next_;  // per thread: the block its next upload packs into
  int threads_;
  int device_;
  bool pinned_host_;
  void* stream_;
  size_t block_ = 0;
};

// Whether pageable copies may go through page-locked blocks (PVEC_STAGED_TRANSFER is not 0).
bool staged_transfer_allowed();

// Whether a blocking transfer of `bytes` bytes in all takes the staged path.
bool staged_transfer_wanted(size_t bytes);

// Copies every range (host to device when to_device), blocking; device: the CUDA device of
// the device memory. Waits first for the work ordered on `stream` (the vector's stream), and
// returns when every byte has arrived. Throws Error(PVEC_ERROR_CUDA) (the first error in
// range order); the lanes are then released.
void staged_transfer(bool to_device, const std::vector<StagedRange>& ranges, int device,
                     void* stream, StagingLanes& lanes);

}  // namespace pvec::impl
