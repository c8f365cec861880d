// The block loop of the file writers and readers (block_pipeline.hpp).
#include "io/block_pipeline.hpp"

#include "backend/device.hpp"
#include "backend/host_parallel.hpp"
#include "common/error.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

#if defined(PVEC_HAVE_OPENMP)
#include <omp.h>
#endif

namespace pvec::impl::io {

namespace {

int64_t g_fault_block = -1;
bool g_fault_in_memory = false;

void memory_step(BlockPipeline::MemoryFn memory, void* ctx, int64_t b, int64_t b0, int64_t count,
                 unsigned char* buf) {
  if (b == g_fault_block && g_fault_in_memory)
    fail(PVEC_ERROR_IO, "injected fault in the staging of block ", b);
  memory(ctx, b0, count, buf);
}

bool file_step(BlockPipeline::FileFn file, void* ctx, int64_t b, int64_t b0, int64_t count,
               unsigned char* buf) {
  if (b == g_fault_block && !g_fault_in_memory) return false;
  return file(ctx, b0, count, buf);
}

}  // namespace

void BlockPipeline::inject_fault_for_tests(int64_t block, bool in_memory) {
  g_fault_block = block;
  g_fault_in_memory = in_memory;
}

bool BlockPipeline::run(bool write, int64_t n, int64_t block_rows, size_t row_bytes, bool device,
                        MemoryFn memory, void* memory_ctx, FileFn file, void* file_ctx) {
  if (n <= 0) return true;
  const int64_t block = std::max<int64_t>(block_rows, 1);
  const int64_t nb = (n + block - 1) / block;
  const size_t slot_bytes = static_cast<size_t>(std::min(block, n)) * row_bytes;
  auto rows = [&](int64_t b) { return std::min(block, n - b * block); };

  if (host_threads() < 2 || nb < 2) {
    // The serial loop: one slot, each block staged and moved in turn.
    slot_[0].resize(slot_bytes);
    unsigned char* buf = slot_[0].data();
    for (int64_t b = 0; b < nb; ++b) {
      if (write) memory_step(memory, memory_ctx, b, b * block, rows(b), buf);
      if (!file_step(file, file_ctx, b, b * block, rows(b), buf)) return false;
      if (!write) memory_step(memory, memory_ctx, b, b * block, rows(b), buf);
    }
    return true;
  }

#if defined(PVEC_HAVE_OPENMP)
  slot_[0].resize(slot_bytes);
  slot_[1].resize(slot_bytes);
  unsigned char* const slots[2] = {slot_[0].data(), slot_[1].data()};
  // Step k (0..nb): the file call of block k - 1 (write) or k (read) and the memory step of
  // block k (write) or k - 1 (read), each in slot (block & 1), so the two steps of one k
  // never share a slot; the barrier ends the step. stop[role][k & 1] is set during step k
  // only, by the thread of that role alone (no two threads write one flag), and read after
  // the step's barrier, so a thread already in step k + 1 cannot change what the other reads
  // for step k: both leave the loop after the same step.
  bool failed_file = false, ready = true;
  int stop[2][2] = {{0, 0}, {0, 0}};  // [0]: the file role's, [1]: the memory role's
  std::exception_ptr error[2];
  const int dev = device ? device_current() : -1;
#pragma omp parallel num_threads(2)
  {
    // One thread may come (a nested region, a thread limit): it then makes both steps.
    const int got = omp_get_num_threads(), me = omp_get_thread_num();
    const bool file_role = me == 0, memory_role = me == 1 || got == 1;
    if (memory_role && me != 0 && dev >= 0) {
      // The staging thread's CUDA calls go to the caller's device: copies through a stream of
      // another device would still work, but a pinned allocation made there (the scratch
      // growing) would start a context on device 0.
      try {
        device_select(dev);
      } catch (...) {
        error[1] = std::current_exception();
        ready = false;
      }
    }
#pragma omp barrier
    for (int64_t k = 0; ready && k <= nb; ++k) {
      const int64_t fb = write ? k - 1 : k, mb = write ? k : k - 1;
      if (file_role && fb >= 0 && fb < nb) {
        try {
          if (!file_step(file, file_ctx, fb, fb * block, rows(fb), slots[fb & 1])) {
            failed_file = true;
            stop[0][k & 1] = 1;
          }
        } catch (...) {
          error[0] = std::current_exception();
          stop[0][k & 1] = 1;
        }
      }
      if (memory_role && mb >= 0 && mb < nb) {
        try {
          memory_step(memory, memory_ctx, mb, mb * block, rows(mb), slots[mb & 1]);
        } catch (...) {
          error[1] = std::current_exception();
          stop[1][k & 1] = 1;
        }
      }
#pragma omp barrier
      if (stop[0][k & 1] || stop[1][k & 1]) break;
    }
  }
  // What the serial loop would have met first: in the last step the file call's block comes
  // before the memory step's in a write (block k - 1 against k), after it in a read.
  if (write) {
    if (error[0]) std::rethrow_exception(error[0]);
    if (failed_file) return false;
    if (error[1]) std::rethrow_exception(error[1]);
  } else {
    if (error[1]) std::rethrow_exception(error[1]);
    if (error[0]) std::rethrow_exception(error[0]);
    if (failed_file) return false;
  }
  return true;
#else
  return false;  // not reached: host_threads() is 1 without OpenMP
#endif
}

namespace {

struct ParallelRead {
  BlockPipeline::ThreadMemoryFn memory;
  void* memory_ctx;
  BlockPipeline::FileFn file;
  void* file_ctx;
  int64_t n, block;
  size_t row_bytes;
  unsigned char* direct;
  std::vector<unsigned char>* slots;  // one per range
  std::atomic<bool> stop{false};
  std::atomic<bool> failed_file{false};
  std::vector<std::exception_ptr> error;  // one per range
  std::vector<int64_t> error_block;       // the block of error[r]
};

// The blocks [b_begin, b_end) of one range, on one thread.
void read_range(void* ctx, int64_t b_begin, int64_t b_end, int r) {
  auto& pr = *static_cast<ParallelRead*>(ctx);
  for (int64_t b = b_begin; b < b_end && !pr.stop.load(std::memory_order_relaxed); ++b) {
    const int64_t b0 = b * pr.block, count = std::min(pr.block, pr.n - b0);
    try {
      unsigned char* buf =
          pr.direct ? pr.direct + static_cast<size_t>(b0) * pr.row_bytes : pr.slots[r].data();
      if (!file_step(pr.file, pr.file_ctx, b, b0, count, buf)) {
        pr.failed_file.store(true);
        pr.stop.store(true);
        return;
      }
      if (b == g_fault_block && g_fault_in_memory)
        fail(PVEC_ERROR_IO, "injected fault in the unstaging of block ", b);
      pr.memory(pr.memory_ctx, b0, count, buf, r);
    } catch (...) {
      pr.error[r] = std::current_exception();
      pr.error_block[r] = b;
      pr.stop.store(true);
      return;
    }
  }
}

}  // namespace

bool BlockPipeline::run_parallel(int64_t n, int64_t block_rows, size_t row_bytes,
                                 unsigned char* direct, ThreadMemoryFn memory, void* memory_ctx,
                                 FileFn file, void* file_ctx) {
  if (n <= 0) return true;
  const int64_t block = std::max<int64_t>(block_rows, 1);
  const int64_t nb = (n + block - 1) / block;
  const int threads = host_threads();
  if (!direct) {
    thread_slots_.resize(static_cast<size_t>(threads));
    const size_t slot_bytes = static_cast<size_t>(std::min(block, n)) * row_bytes;
    for (auto& s : thread_slots_) s.resize(slot_bytes);
  }
  ParallelRead pr;
  pr.memory = memory;
  pr.memory_ctx = memory_ctx;
  pr.file = file;
  pr.file_ctx = file_ctx;
  pr.n = n;
  pr.block = block;
  pr.row_bytes = row_bytes;
  pr.direct = direct;
  pr.slots = thread_slots_.data();
  pr.error.resize(static_cast<size_t>(threads));
  pr.error_block.assign(static_cast<size_t>(threads), -1);
  host_ranges(nb, 1, &read_range, &pr);
  int first = -1;
  for (int r = 0; r < threads; ++r)
    if (pr.error[r] && (first < 0 || pr.error_block[r] < pr.error_block[first])) first = r;
  if (first >= 0) std::rethrow_exception(pr.error[first]);
  return !pr.failed_file.load();
}

}  // namespace pvec::impl::io
