// The checksums of a checkpoint's rank blocks (row_checksum.hpp).
#include "io/row_checksum.hpp"

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

std::vector<uint64_t> BlockSums::parts() const {
  std::vector<uint64_t> out(starts_.size() - 1);
  for (size_t b = 0; b < out.size(); ++b) out[b] = sums_[b].load();
  return out;
}

}  // namespace pvec::impl::io
