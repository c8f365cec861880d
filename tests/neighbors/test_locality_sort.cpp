// The locality sort (pvec_vector_sort) at 1-4 ranks, on the host and the device path: it
// keeps every particle's values and leaves the rows in cell order (row-major or Morton), or
// puts the halo first (PVEC_SORT_HALO_FIRST); a second sort moves nothing.
#include "neighbors_util.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace nbr_test;

namespace {

// id -> the positions and velocities of each local row (from the device mirror: copied to
// the host first), for checking that a sort keeps every particle's values.
std::map<int64_t, std::vector<double>> local_values(pvec_vector_t v, int dim, bool device) {
  if (device) to_host(v);
  std::map<int64_t, std::vector<double>> m;
  Column pos = column(v, PVEC_POS), id = column(v, kId), vel = column(v, kVel);
  for (int64_t i = 0; i < n_local(v); ++i) {
    std::vector<double> row;
    for (int d = 0; d < dim; ++d) row.push_back(get_pos(pos, i, d));
    for (int c = 0; c < 3; ++c) row.push_back(reinterpret_cast<float*>(vel.base)[c * vel.cap + i]);
    m[reinterpret_cast<int64_t*>(id.base)[i]] = row;
  }
  return m;
}

}  // namespace

TEST_CASE("pvec_vector_sort keeps every particle and leaves the rows in cell order",
          "[neighbors]") {
  for (const Box& b : boxes())
    for (Path p : {Path::host, Path::device})
      for (unsigned order : {0u, static_cast<unsigned>(PVEC_SORT_MORTON)}) {
        INFO(box_name(b) << ", " << name_of(p) << " path, " << (order ? "Morton" : "row-major"));
        Failures f;
        pvec_vector_t v = make_box(b);
        const int64_t n = n_local(v);
        auto record = [&](bool device) { return local_values(v, b.dim, device); };
        const auto before = record(false);
        const uint64_t gen = generation(v);
        int moved = -1;
        DIST_OK(pvec_vector_sort(v, 0.1, flag_of(p) | order, &moved));
        if (n > 1 && moved != 1) f.add("random rows were reported in order already");
        if (moved == 1 && generation(v) == gen) f.add("the generation did not change");
        if (record(p == Path::device) != before) f.add("a particle's values changed");
        DIST_OK(pvec_vector_sort(v, 0.1, flag_of(p) | order, &moved));
        if (moved != 0) f.add("a second sort moved rows");
        if (order && b.dim > 1) {
          // The rows follow the Z-order curve of the cells: the cell coordinates (from the
          // grid of a cell list of the same width) interleaved bit by bit here, dimension 0
          // most significant, are non-decreasing.
          pvec_cell_list_t cl = nullptr;
          DIST_OK(pvec_cell_list_create(v, 0.1, 1, 0, &cl));
          pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
          DIST_OK(pvec_cell_list_get_info(cl, &info));
          int bits = 0;
          for (int d = 0; d < b.dim; ++d)
            while ((int64_t{1} << bits) < info.dims[d]) ++bits;
          Column pos = column(v, PVEC_POS);
          uint64_t last = 0;
          for (int64_t i = 0; i < n; ++i) {
            int64_t c[3] = {0, 0, 0};
            for (int d = 0; d < b.dim; ++d) {
              const double q = (get_pos(pos, i, d) - info.origin[d]) * info.inv_width[d];
              c[d] = !(q >= 0) ? 0 : (q >= double(info.dims[d]) ? info.dims[d] - 1 : int64_t(q));
            }
            uint64_t key = 0;
            for (int k = bits - 1; k >= 0; --k)
              for (int d = 0; d < b.dim; ++d) key = (key << 1) | ((c[d] >> k) & 1);
            if (i > 0 && key < last) {
              f.addf("row ", i, " has Morton key ", key, " after ", last);
              break;
            }
            last = key;
          }
          DIST_OK(pvec_cell_list_destroy(cl));
        }
        if (!order) {
          pvec_cell_list_t cl = nullptr;
          DIST_OK(pvec_ghost_get(v, nullptr, 0, flag_of(p)));
          DIST_OK(pvec_cell_list_create(v, 0.1, 1, flag_of(p), &cl));
          pvec_cell_list_info info = PVEC_CELL_LIST_INFO_INIT;
          DIST_OK(pvec_cell_list_get_info(cl, &info));
          if (!info.sorted) f.add("the cell list of a sorted vector is not marked sorted");
          auto parts = fetch(info.cell_particles, info.n_entries, info.on_device != 0);
          for (int64_t e = 0; e < info.n_entries; ++e)
            if (parts[e] != e) {
              f.addf("entry ", e, " of the sorted vector's cell list is row ", parts[e]);
              break;
            }
          DIST_OK(pvec_cell_list_destroy(cl));
        }
        f.require("sort");
        DIST_OK(pvec_vector_destroy(v));
      }
}

// PVEC_SORT_HALO_FIRST: every particle keeps its values; the particles within one ghost width
// of the lower face of dimension 0 come before those clearly not in a lower cell of dimension
// 0 (their groups come first), and the particles within a ghost width of any face before
// those clearly inner in every dimension (the inner group is last); a second sort moves
// nothing; ghost_get gives the same ghosts as from the unsorted rows; it refuses Morton.
TEST_CASE("pvec_vector_sort halo-first keeps every particle and puts the halo first",
          "[neighbors]") {
  for (const Box& b : boxes())
    for (Path p : {Path::host, Path::device}) {
      INFO(box_name(b) << ", " << name_of(p) << " path");
      Failures f;
      pvec_vector_t v = make_box(b);
      const unsigned flag = flag_of(p);
      const int64_t n = n_local(v);
      const bool dev = p == Path::device;
      // id -> the row's values (locals); ghosts as a sorted list of (id, coordinates).
      auto locals = [&] { return local_values(v, b.dim, dev); };
      auto ghosts = [&] {
        DIST_OK(pvec_ghost_get(v, nullptr, 0, flag));
        if (dev) to_host(v);
        std::vector<std::vector<double>> g;
        Column pos = column(v, PVEC_POS), id = column(v, kId);
        for (int64_t i = n; i < n + n_ghost(v); ++i) {
          std::vector<double> row{static_cast<double>(reinterpret_cast<int64_t*>(id.base)[i])};
          for (int d = 0; d < b.dim; ++d) row.push_back(get_pos(pos, i, d));
          g.push_back(row);
        }
        std::sort(g.begin(), g.end());
        return g;
      };
      const auto before = locals();
      const auto ghosts_before = ghosts();
      const Snapshot snap = snapshot(v);
      DIST_REQUIRE(pvec_vector_sort(v, 0.1, flag | PVEC_SORT_HALO_FIRST | PVEC_SORT_MORTON,
                                    nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
      DIST_REQUIRE(std::string(pvec_last_error()).find("exclude") != std::string::npos);
      if (!compare_rows(snap, snapshot(v), n + n_ghost(v)).empty())
        f.add("a refused sort changed the rows");
      int moved = -1;
      DIST_OK(pvec_vector_sort(v, 0.1, flag | PVEC_SORT_HALO_FIRST, &moved));
      if (n > 8 && moved != 1) f.add("random rows were reported in halo-first order already");
      if (locals() != before) f.add("a particle's values changed");
      DIST_OK(pvec_vector_sort(v, 0.1, flag | PVEC_SORT_HALO_FIRST, &moved));
      if (moved != 0) f.add("a second halo-first sort moved rows");
      double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      DIST_OK(pvec_vector_get_subdomain(v, lo, hi));
      // Cells are at most 2 x 0.1 wide here, so beyond gw + 0.25 of a face no cell reaches
      // into its band.
      const double gw = b.ghost, margin = gw + 0.25;
      Column pos = column(v, PVEC_POS);
      int64_t last_near0 = -1, first_far0 = n, last_near = -1, first_inner = n;
      for (int64_t i = 0; i < n; ++i) {
        const double x0 = get_pos(pos, i, 0);
        if (x0 - lo[0] < gw) last_near0 = i;
        if (x0 - lo[0] >= margin && first_far0 == n) first_far0 = i;
        bool near = false, inner = true;
        for (int d = 0; d < b.dim; ++d) {
          const double x = get_pos(pos, i, d), to_face = std::min(x - lo[d], hi[d] - x);
          near = near || to_face < gw;
          inner = inner && to_face >= margin;
        }
        if (near) last_near = i;
        if (inner && first_inner == n) first_inner = i;
      }
      if (last_near0 > first_far0)
        f.addf("row ", last_near0, " is near the lower face of dimension 0, after row ", first_far0,
               ", which is not");
      if (last_near > first_inner)
        f.addf("row ", last_near, " is near a face, after row ", first_inner,
               ", which is inner in every dimension");
      if (ghosts() != ghosts_before) f.add("ghost_get after the sort gave other ghosts");
      f.require("halo-first sort");
      DIST_OK(pvec_vector_destroy(v));
    }
}
