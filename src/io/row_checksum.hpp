// row_checksum.hpp -- the checksums of a checkpoint's rank blocks (docs/io.md, "Damage to the
// data"). The checksum of a byte range of a dataset is the sum, modulo 2^64, over its 4-byte
// words w (little-endian values: the same for a copy in another layout or byte order) at word
// index k from the start of the dataset, of
//     x = (uint64) (w ^ (uint32) (k * 0x9E3779B9)) * 0xCC9E2D51;  x ^= x >> 32
// For a fixed k, x is an injective function of w, so a change to any one word always changes
// the sum; other damage goes unnoticed with a chance of about 2^-64. Sums of adjacent ranges add,
// so a reader holding any piece of a writer's block adds its part, and the parts of all ranks
// make the block's sum: restarts on any rank count verify every block. Rows are a whole number
// of words (elements are 4 or 8 bytes).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pvec::impl::io {

// The sum of bytes [0, nbytes) of p (nbytes a multiple of 4), the first word at index k0
// (io/word_sum.cpp: its own file, compiled for AVX2 too, and built into bench/bench_io).
uint64_t word_sum(const unsigned char* p, size_t nbytes, uint64_t k0);

// The terms of n elements v[0..n) of one component of a column, element i's first word at a
// word index whose (uint32) k * 0x9E3779B9 is a0 + i * da (mod 2^32): 4-byte elements (one
// word each), or 8-byte ones (low word, then the high word at the next index). The same
// function as word_sum over the file's layout, for columns in memory (io/column_checksum.cu);
// compiled for AVX2 too, as word_sum.
uint64_t strided_sum32(const uint32_t* v, size_t n, uint32_t a0, uint32_t da);
uint64_t strided_sum64(const uint64_t* v, size_t n, uint32_t a0, uint32_t da);

// The sums of a dataset's rows per writer block, from rows added in any pieces, by any
// thread at once. block_rows: the rows of each block, in file order.
class BlockSums {
 public:
  BlockSums(const std::vector<int64_t>& block_rows, size_t row_bytes);
  // Rows [row0, row0 + count) of the dataset, in file layout at p.
  void add(int64_t row0, int64_t count, const unsigned char* p);
  // This rank's part of each block's sum (to be added over the ranks).
  std::vector<uint64_t> parts() const;

 private:
  std::vector<int64_t> starts_;  // first row of each block, and the end
  size_t row_bytes_;
  std::unique_ptr<std::atomic<uint64_t>[]> sums_;
};

}  // namespace pvec::impl::io
