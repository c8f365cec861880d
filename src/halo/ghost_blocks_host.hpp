// move_ghost_blocks_host: the ghost rows of a plan's ghosts and their message blocks, on the
// host: ghost_get unpacks received blocks into the ghost rows, ghost_put packs the ghost rows
// into the blocks it sends back. The same rows and blocks, two directions.
#pragma once

#include "backend/host_parallel.hpp"
#include "exchange/message_layout.hpp"
#include "halo/ghost_plan.hpp"
#include "particles/particle_set.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace pvec::impl {

// Between the ghost rows of each peer's ghosts (rows n + recv_first[r] ..) and that peer's
// message block at blocks + displs[r] (bytes[r] bytes, laid out by MessageLayout: each column's
// components as rows of k = recv_counts[r] values): into the rows (ghost_get's unpack) or out of
// them (ghost_put's pack). Blocks with bytes[r] == 0 are left alone. One range per thread over
// each block's values; a plain copy, so any thread count gives the same bytes.
inline void move_ghost_blocks_host(ParticleSet& ps, const MessageLayout& layout,
                                   const GhostPlan& plan, bool device, bool into_rows, char* blocks,
                                   const std::vector<int64_t>& bytes,
                                   const std::vector<int64_t>& displs) {
  const int64_t n = ps.n_local(), cap = ps.capacity();
  int64_t rows = 0;  // component rows per block
  for (int col : layout.cols) rows += ps.column(col).spec.ncomp;
  for (size_t r = 0; r < bytes.size(); ++r) {
    const int64_t k = plan.recv_counts[r];
    if (bytes[r] == 0 || k == 0) continue;  // nothing to move (or this rank's own images)
    char* block = blocks + displs[r];
    const int64_t first = n + plan.recv_first[r];
    host_for_ranges(k * rows, [&](int64_t b, int64_t e) {
      // Value b is particle b % k of component row b / k; find that row's column.
      size_t q = 0;
      int64_t row = b / k, p = b % k;
      while (row >= ps.column(layout.cols[q]).spec.ncomp)
        row -= ps.column(layout.cols[q++]).spec.ncomp;
      while (b < e) {
        const PropertyBuffer& c = ps.column(layout.cols[q]);
        const int64_t es = static_cast<int64_t>(c.spec.elem_size);
        const int64_t len = std::min(k - p, e - b);
        char* in_block = block + k * layout.col_prefix[q] + (row * k + p) * es;
        char* in_rows =
            static_cast<char*>(const_cast<void*>(c.mirror(device))) + (row * cap + first + p) * es;
        if (into_rows)
          std::memcpy(in_rows, in_block, static_cast<size_t>(len * es));
        else
          std::memcpy(in_block, in_rows, static_cast<size_t>(len * es));
        b += len;
        p = 0;
        if (++row == c.spec.ncomp) {
          row = 0;
          ++q;
        }
      }
    });
  }
}

}  // namespace pvec::impl
