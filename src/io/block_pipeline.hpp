// BlockPipeline: the block loop of the file writers and readers (checkpoint write, restart,
// VTK pieces), which move a column's rows between memory and a file a staged block at a time
// (io/staging.hpp). With one host thread it is the serial loop: stage block b, hand it to the
// file, next block (one stage buffer). With two or more (host_threads(), backend/
// host_parallel.hpp) it double-buffers over two stage slots in an OpenMP region of two
// threads: while thread 0 makes the file call of block b, thread 1 stages block b + 1 (a
// write) or unstages block b - 1 (a read), one barrier per block. The file holds the same
// bytes in the same order either way.
//
// Thread 0 is the thread that called (the MPI main thread: pvec asks for MPI_THREAD_FUNNELED)
// and is the only one that makes file calls: HDF5 is not thread-safe, and MPI-IO is reached
// through it. The memory step runs on thread 1 and touches only memory (and, for a device
// mirror, the CUDA runtime: see write's `device`). A failed file call stops both threads at
// the end of that block (both read the same flag after the same barrier), an exception of
// either step is caught in the region and rethrown after it: no early return or exception
// leaves the region, so the pair cannot deadlock and the caller reports as the serial loop
// does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace pvec::impl::io {

class BlockPipeline {
 public:
  // Writes rows [0, n) in blocks of block_rows rows of row_bytes: stage(b0, count, buf) fills
  // buf with rows [b0, b0 + count) (memory only), put(b0, count, buf) makes the file call and
  // returns false on failure. Returns false at the first failed put; no later put is made.
  // device: stage reads a device mirror through the CUDA runtime, so the staging thread first
  // makes the caller's device current (the runtime's current device is per thread).
  template <class Stage, class Put>
  bool write(int64_t n, int64_t block_rows, size_t row_bytes, bool device, Stage&& stage,
             Put&& put) {
    return run(true, n, block_rows, row_bytes, device, &call<Stage>, &stage, &call_ok<Put>, &put);
  }

  // Reads rows [0, n): get(b0, count, buf) makes the file call (false on failure), then
  // unstage(b0, count, buf) moves the rows into memory. Returns false at the first failed get;
  // a block whose get failed is not unstaged, and no later get is made.
  template <class Get, class Unstage>
  bool read(int64_t n, int64_t block_rows, size_t row_bytes, Get&& get, Unstage&& unstage) {
    return run(false, n, block_rows, row_bytes, false, &call<Unstage>, &unstage, &call_ok<Get>,
               &get);
  }

  // Reads rows [0, n) with a file call that any thread may make at once (a pread of the
  // file's own bytes, not HDF5): the blocks are cut into one contiguous range per host thread
  // (host_ranges, backend/host_parallel.hpp) and each thread makes its blocks' get calls and
  // unstages each block in turn, so the file calls, the transposes and the first touch of
  // new memory spread over the threads. direct (not null): the rows land in direct (n rows of
  // row_bytes), and unstage(b0, count, buf) is then called with buf pointing at them there
  // (it may do nothing, or copy the rows on while they are in cache). Returns false when a get
  // failed (every thread stops at its next block); an exception of a step is rethrown after the
  // region, the first in block order; blocks other threads had read are unstaged all the same.
  // get(b0, count, buf) and unstage(b0, count, buf, thread) are called from several threads at
  // once, for disjoint rows; thread (0 .. host_threads() - 1) tells which, and one thread's
  // calls come in block order.
  template <class Get, class Unstage>
  bool read_parallel(int64_t n, int64_t block_rows, size_t row_bytes, unsigned char* direct,
                     Get&& get, Unstage&& unstage) {
    return run_parallel(n, block_rows, row_bytes, direct, &call_on<Unstage>, &unstage,
                        &call_ok<Get>, &get);
  }

  // Tests: in every later run, the file call of block `block` (0-based) fails without being
  // made or, with `in_memory`, that block's memory step throws PVEC_ERROR_IO; -1 turns it off.
  static void inject_fault_for_tests(int64_t block, bool in_memory = false);

  using MemoryFn = void (*)(void*, int64_t, int64_t, unsigned char*);
  using FileFn = bool (*)(void*, int64_t, int64_t, unsigned char*);
  using ThreadMemoryFn = void (*)(void*, int64_t, int64_t, unsigned char*, int);

 private:
  template <class F>
  static void call(void* f, int64_t b0, int64_t count, unsigned char* buf) {
    (*static_cast<std::remove_reference_t<F>*>(f))(b0, count, buf);
  }
  template <class F>
  static void call_on(void* f, int64_t b0, int64_t count, unsigned char* buf, int thread) {
    (*static_cast<std::remove_reference_t<F>*>(f))(b0, count, buf, thread);
  }
  template <class F>
  static bool call_ok(void* f, int64_t b0, int64_t count, unsigned char* buf) {
    return (*static_cast<std::remove_reference_t<F>*>(f))(b0, count, buf);
  }

  bool run(bool write, int64_t n, int64_t block_rows, size_t row_bytes, bool device,
           MemoryFn memory, void* memory_ctx, FileFn file, void* file_ctx);

  bool run_parallel(int64_t n, int64_t block_rows, size_t row_bytes, unsigned char* direct,
                    ThreadMemoryFn memory, void* memory_ctx, FileFn file, void* file_ctx);

  // The stage slots, kept between columns (slot 1 only with two threads).
  std::vector<unsigned char> slot_[2];
  // read_parallel's slot per host thread, kept between columns.
  std::vector<std::vector<unsigned char>> thread_slots_;
};

}  // namespace pvec::impl::io
