// How particles travel in messages. A message to one peer is a block for k particles: the
// selected columns one after another, 8-byte columns first, each as ncomp rows of k
// elements (the SoA layout again, with stride k). Blocks start 8-byte aligned, so every
// element is naturally aligned and a block is unpacked with one 2D copy per column.
#pragma once

#include "particles/particle_set.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pvec::impl {

struct MessageLayout {
  std::vector<int> cols;            // column indices in message order
  std::vector<int64_t> col_prefix;  // bytes per particle before each column
  int64_t particle_bytes = 0;

  MessageLayout(const ParticleSet& ps, std::vector<int> columns) : cols(std::move(columns)) {
    std::stable_sort(cols.begin(), cols.end(), [&](int a, int b) {
      return ps.column(a).spec.elem_size > ps.column(b).spec.elem_size;
    });
    for (int c : cols) {
      col_prefix.push_back(particle_bytes);
      const auto& s = ps.column(c).spec;
      particle_bytes += static_cast<int64_t>(s.elem_size) * s.ncomp;
    }
  }
  int64_t block_bytes(int64_t k) const { return (k * particle_bytes + 7) / 8 * 8; }
  // Byte offsets of each peer's block, and the total. The block of rank `empty` (this rank's
  // own, whose entries never travel: -1 for none) has no bytes whatever its count.
  int64_t offsets(const std::vector<int64_t>& counts, std::vector<int64_t>& bytes,
                  std::vector<int64_t>& displs, int empty) const {
    bytes.resize(counts.size());
    displs.resize(counts.size());
    int64_t total = 0;
    for (size_t r = 0; r < counts.size(); ++r) {
      displs[r] = total;
      bytes[r] = static_cast<int>(r) == empty ? 0 : block_bytes(counts[r]);
      total += bytes[r];
    }
    return total;
  }
};

}  // namespace pvec::impl
