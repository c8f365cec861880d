// The checksums of a checkpoint's rank blocks (row_checksum.hpp).
#include "io/row_checksum.hpp"

#include "backend/host_parallel.hpp"

#include <algorithm>

namespace pvec::impl::io {

BlockSums::BlockSums(const std::vector<int64_t>& block_rows, size_t row_bytes)
    : starts_(block_rows.size() + 1, 0),
      row_bytes_(row_bytes),
      sums_(new std::atomic<uint64_t>[block_rows.size()]) {
  for (size_t b = 0; b < block_rows.size(); ++b) {
    starts_[b + 1] = starts_[b] + block_rows[b];
    sums_[b].store(0);
  }
}

void BlockSums::add(int64_t row0, int64_t count, const unsigned char* p) {
  const int64_t end = row0 + count;
  // The first block holding row0: the last start <= row0 (empty blocks skipped by the loop).
  size_t b = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), row0) -
                                 starts_.begin()) -
             1;
  for (int64_t r = row0; r < end && b + 1 < starts_.size(); ++b) {
    const int64_t stop = std::min(end, starts_[b + 1]);
    if (stop <= r) continue;
    const uint64_t k0 = static_cast<uint64_t>(r) * row_bytes_ / 4;
    sums_[b].fetch_add(word_sum(p + static_cast<size_t>(r - row0) * row_bytes_,
                                static_cast<size_t>(stop - r) * row_bytes_, k0),
                       std::memory_order_relaxed);
    r = stop;
  }
}

uint64_t word_sum_threads(const unsigned char* p, size_t nbytes, uint64_t k0) {
  const int64_t words = static_cast<int64_t>(nbytes / 4);
  std::vector<uint64_t> part(static_cast<size_t>(std::max(1, host_threads())), 0);
  struct Ctx {
    const unsigned char* p;
    uint64_t k0;
    uint64_t* part;
  } ctx{p, k0, part.data()};
  // 64 Ki words (256 KiB) at least per range: below that one thread is as fast.
  host_ranges(
      words, int64_t{1} << 16,
      [](void* c, int64_t a, int64_t b, int thread) {
        const Ctx& x = *static_cast<Ctx*>(c);
        x.part[thread] =
            word_sum(x.p + 4 * a, static_cast<size_t>(b - a) * 4, x.k0 + static_cast<uint64_t>(a));
      },
      &ctx);
  uint64_t s = 0;
  for (const uint64_t v : part) s += v;
  return s;
}

std::vector<uint64_t> BlockSums::parts() const {
  std::vector<uint64_t> out(starts_.size() - 1);
  for (size_t b = 0; b < out.size(); ++b) out[b] = sums_[b].load();
  return out;
}

}  // namespace pvec::impl::io
