// The locality sort's work memory is O(rows + cells) for every order (pvec_vector_sort in
// pvec.h): 64 particles on a long thin grid (530 x 30 x 30 cells in 3D, 32010 x 30 in 2D) must
// sort in Morton, row-major and halo-first order on the host and the device path with a
// bounded rise of pvec_memory_get_stats, and come out in order. (The Z curve's code space of
// those grids is 2^30 cells: a sort keyed by Morton codes kept 4 GiB.)
#include "capi_util.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

namespace {

struct Grid {
  int dim;
  double hi[3];  // the box [0, hi); cells of width kWidth
};
constexpr double kWidth = 0.01;

int64_t live_bytes() {
  pvec_memory_stats m = PVEC_MEMORY_STATS_INIT;
  REQUIRE(pvec_memory_get_stats(&m) == PVEC_SUCCESS);
  return m.host_bytes + m.pinned_bytes + m.device_bytes;
}

// Z-curve key of cell coordinates c (bits per dimension, dimension 0 most significant).
uint64_t z_key(const int64_t* c, int dim, int bits) {
  uint64_t key = 0;
  for (int k = bits - 1; k >= 0; --k)
    for (int d = 0; d < dim; ++d) key = (key << 1) | ((c[d] >> k) & 1);
  return key;
}

}  // namespace

TEST_CASE("the locality sort's memory follows the particles and cells, not the code space",
          "[neighbors][sort]") {
  const Grid grids[] = {{3, {5.30, 0.30, 0.30}}, {2, {320.10, 0.30, 0}}};
  for (const Grid& g : grids)
    for (unsigned where : {0u, static_cast<unsigned>(PVEC_ON_DEVICE)})
      for (unsigned order : {static_cast<unsigned>(PVEC_SORT_MORTON), 0u,
                             static_cast<unsigned>(PVEC_SORT_HALO_FIRST)}) {
        INFO(g.dim << "D, " << (where ? "device" : "host") << " path, order flag " << order);
        capi::Schema s;
        REQUIRE(pvec_schema_add_vector(s.get(), "v", PVEC_FLOAT64, 3, nullptr) == PVEC_SUCCESS);
        pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
        d.dim = g.dim;
        for (int k = 0; k < g.dim; ++k) d.domain_hi[k] = g.hi[k];
        d.n_particles = 64;
        d.ghost_width = kWidth;  // a cell list of the same width reads the order back
        d.placement = PVEC_PLACE_LOCAL;
        pvec_vector_t v = nullptr;
        PVEC_REQUIRE_OK(pvec_vector_create(&d, s.get(), &v));
        int rank = 0;
        PVEC_REQUIRE_OK(pvec_vector_get_rank(v, &rank));
        // Random positions in this rank's subdomain.
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        PVEC_REQUIRE_OK(pvec_vector_get_subdomain(v, lo, hi));
        std::mt19937_64 rng(17 + static_cast<uint64_t>(rank));
        auto* x = static_cast<double*>(pvec_host_ptr(v, PVEC_POS));
        int64_t cap = 0;
        PVEC_REQUIRE_OK(pvec_vector_get_capacity(v, &cap));
        for (int i = 0; i < 64; ++i)
          for (int k = 0; k < g.dim; ++k)
            x[k * cap + i] = lo[k] + (hi[k] - lo[k]) * std::uniform_real_distribution<>(0, 1)(rng);
        PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));

        int64_t cells = 1;
        for (int k = 0; k < g.dim; ++k) cells *= static_cast<int64_t>((hi[k] - lo[k]) / kWidth) + 2;
        const int64_t before = live_bytes();
        int moved = -1;
        PVEC_REQUIRE_OK(pvec_vector_sort(v, kWidth, where | order, &moved));
        const int64_t rise = live_bytes() - before;
        // Keys, order, flags and identity per row; offsets and a Morton rank per cell (4 bytes
        // each, a few buffers); new blocks for the columns (positions + 3 doubles).
        const int64_t bound = 64 * cap + 24 * cells + 2 * cap * 6 * 8 + (int64_t{1} << 20);
        INFO("memory rise " << rise << " bytes, bound " << bound << " (" << cells << " cells)");
        CHECK(rise <= bound);
        CHECK(moved == 1);

        if (order == PVEC_SORT_MORTON) {  // the rows follow the Z curve of the cells
          if (where) PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
          x = static_cast<double*>(pvec_host_ptr(v, PVEC_POS));
          pvec_cell_list_t cl = nullptr;
          PVEC_REQUIRE_OK(pvec_cell_list_create(v, kWidth, 1, 0, &cl));
          pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
          PVEC_REQUIRE_OK(pvec_cell_list_get_info(cl, &info));
          int bits = 0;
          for (int k = 0; k < g.dim; ++k)
            while ((int64_t{1} << bits) < info.dims[k]) ++bits;
          uint64_t last = 0;
          for (int64_t i = 0; i < 64; ++i) {
            int64_t c[3] = {0, 0, 0};
            for (int k = 0; k < g.dim; ++k) {
              const double q = (x[k * cap + i] - info.origin[k]) * info.inv_width[k];
              c[k] = std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(q), 0),
                                       info.dims[k] - 1);
            }
            const uint64_t key = z_key(c, g.dim, bits);
            CHECK(key >= last);
            last = key;
          }
          PVEC_REQUIRE_OK(pvec_cell_list_destroy(cl));
        }
        PVEC_REQUIRE_OK(pvec_vector_destroy(v));
      }
}
