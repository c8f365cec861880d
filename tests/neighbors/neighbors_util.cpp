// The helpers of the neighbour-search tests (neighbors_util.hpp).
#include "neighbors_util.hpp"

#include <cmath>
#include <sstream>

namespace nbr_test {

pvec_vector_t make_box(const Box& b) {
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "acc", PVEC_FLOAT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_vector(s, "vel", PVEC_FLOAT32, 3, nullptr) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = b.dim;
  d.pos_dtype = b.pos;
  for (int k = 0; k < b.dim; ++k) {
    d.domain_lo[k] = 0;
    d.domain_hi[k] = b.length;
    d.boundary[k] = b.periodic ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  d.ghost_width = b.ghost;
  d.n_particles = b.n_per_rank;
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  const int64_t first = exscan(b.n_per_rank);
  Rng rng(b.seed * 1000003 + static_cast<uint64_t>(rank()));
  Column pos = column(v, PVEC_POS), id = column(v, kId), vel = column(v, kVel);
  // Lattice sites a few spacings apart lie at the cutoff or a hair from it: each coordinate is
  // nudged by 0, 1e-12, 1e-9, 1e-7 or 1e-5 spacings either way, so that pair distances fall at
  // every scale around it, down to the last bits of the squared distance.
  const double nudges[] = {0, 1e-12, 1e-9, 1e-7, 1e-5};
  const int64_t sites = b.lattice > 0 ? static_cast<int64_t>(b.length / b.lattice) : 0;
  for (int64_t i = 0; i < b.n_per_rank; ++i) {
    for (int k = 0; k < b.dim; ++k) {
      if (sites == 0) {
        set_pos(pos, i, k, rng.uniform(0, b.length));
        continue;
      }
      const auto site = static_cast<int64_t>(rng.uniform(0, static_cast<double>(sites)));
      const double nudge =
          nudges[static_cast<int>(rng.uniform(0, 5)) % 5] * (rng.uniform(0, 1) < 0.5 ? -1 : 1);
      set_pos(pos, i, k,
              std::min(std::max((static_cast<double>(site) + nudge) * b.lattice, 0.0),
                       std::nextafter(b.length, 0.0)));
    }
    reinterpret_cast<int64_t*>(id.base)[i] = first + i;
    for (int c = 0; c < 3; ++c)
      reinterpret_cast<float*>(vel.base)[c * id.cap + i] = static_cast<float>(first + i + 0.25 * c);
  }
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  return v;
}

namespace {

// Distance squared of rows i and j in the position type, summed as pvec sums it.
template <class T>
T dist2(const Column& pos, int dim, int64_t i, int64_t j) {
  const T* x = reinterpret_cast<const T*>(pos.base);
  T r2 = 0;
  for (int d = 0; d < dim; ++d) {
    const T dx = x[d * pos.cap + j] - x[d * pos.cap + i];
    r2 += dx * dx;
  }
  return r2;
}

}  // namespace

bool within(const Column& pos, pvec_dtype t, int dim, int64_t i, int64_t j, double r) {
  if (t == PVEC_FLOAT32) {
    const float rf = static_cast<float>(r);
    return dist2<float>(pos, dim, i, j) < rf * rf;
  }
  return dist2<double>(pos, dim, i, j) < r * r;
}

HostList fetch_list(pvec_verlet_t l) {
  pvec_verlet_info info = PVEC_VERLET_INFO_INIT;
  REQUIRE(pvec_verlet_get_info(l, &info) == PVEC_SUCCESS);
  HostList h;
  h.n = info.n;
  h.offsets = fetch(info.offsets, info.n + 1, info.on_device != 0);
  REQUIRE(h.offsets.back() == info.n_pairs);
  h.nbr = fetch(info.neighbors, info.n_pairs, info.on_device != 0);
  return h;
}

void run_path(pvec_vector_t v, Path p) {
  if (p == Path::device) {
    DIST_OK(pvec_map(v, PVEC_ON_DEVICE, nullptr));
    DIST_OK(pvec_ghost_get(v, nullptr, 0, PVEC_ON_DEVICE));
    to_host(v);
  }
}

void check_full_list(pvec_vector_t v, const HostList& h, double r, Failures& f) {
  Column pos = column(v, PVEC_POS);
  const int dim = dim_of(v);
  const pvec_dtype t = pos_dtype(v);
  const int64_t n = n_local(v), total = n + n_ghost(v);
  if (h.n != n) f.addf("list has ", h.n, " particles, the vector ", n);
  for (int64_t i = 0; i < n && i < h.n; ++i) {
    std::vector<int32_t> got(h.nbr.begin() + h.offsets[i], h.nbr.begin() + h.offsets[i + 1]);
    std::vector<int32_t> want;
    for (int64_t j = 0; j < total; ++j)
      if (j != i && within(pos, t, dim, i, j, r)) want.push_back(static_cast<int32_t>(j));
    std::sort(got.begin(), got.end());
    if (got != want) {
      f.addf("particle ", i, ": ", got.size(), " neighbours listed, ", want.size(), " within ", r);
      return;
    }
  }
}

std::string box_name(const Box& b) {
  std::ostringstream s;
  s << b.dim << "D " << (b.periodic ? "periodic" : "open") << " " << pvec_dtype_name(b.pos)
    << " L=" << b.length << " ghost=" << b.ghost << " n/rank=" << b.n_per_rank;
  if (b.lattice > 0) s << " lattice=" << b.lattice;
  return s.str();
}

std::vector<Box> boxes() {
  std::vector<Box> out;
  for (int dim : {1, 2, 3})
    for (bool periodic : {true, false})
      for (pvec_dtype t : {PVEC_FLOAT64, PVEC_FLOAT32}) {
        Box b;
        b.dim = dim;
        b.periodic = periodic;
        b.pos = t;
        b.n_per_rank = dim == 1 ? 60 : (dim == 2 ? 200 : 300);
        b.seed = static_cast<uint64_t>(dim * 10 + periodic * 2 + (t == PVEC_FLOAT32));
        out.push_back(b);
      }
  return out;
}

}  // namespace nbr_test
