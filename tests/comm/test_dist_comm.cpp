// Proves creation and decomposition: EVEN placement splits a global count with the lower
// ranks taking the remainder, LOCAL takes each rank's own count, both zero-filled with
// capacity = the local count rounded up to 64; a vector on a sub-communicator (MPI_Comm_split
// halves of MPI_COMM_WORLD, by desc.comm_f and by pvec_vector_desc_set_comm) reports that
// communicator's size and rank and maps within it independently of the other half; the
// subdomains tile the box exactly (shared edges, no overlap); pvec_vector_get_owner_rank agrees
// with the brute-force owner (half-open boxes, closed at a non-periodic hi, periodic points
// wrapped), map puts every particle on its owner, and bad points are rejected.
#include "dist_util.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace dist;

namespace {

int64_t rounded64(int64_t n) { return std::max<int64_t>(64, (n + 63) / 64 * 64); }

pvec_vector_t make(int dim, int64_t n, int placement, const int* periodic = nullptr) {
  Props p;
  pvec_schema_t schema = make_full_schema(&p);
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  desc.dim = dim;
  for (int d = 0; d < dim; ++d) {
    desc.domain_lo[d] = kDomainLo[d % 3];
    desc.domain_hi[d] = kDomainHi[d % 3];
    desc.boundary[d] = periodic && periodic[d] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  desc.n_particles = n;
  desc.placement = placement;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&desc, schema, &v));
  pvec_schema_destroy(schema);
  return v;
}

// Every byte of both mirrors of particles [0, n_local) is zero.
void check_zero(pvec_vector_t v, Failures& f) {
  for (int side = 0; side < 2; ++side) {
    if (side == 1) REQUIRE(pvec_device_to_host(v, nullptr, 0) == PVEC_SUCCESS);
    const Snapshot s = snapshot(v);
    for (size_t q = 0; q < s.cols.size(); ++q)
      if (std::any_of(s.cols[q].begin(), s.cols[q].end(), [](unsigned char c) { return c; }))
        f.addf(side ? "device" : "host", " mirror of column ", static_cast<int>(q) - 1,
               " is not zero after creation");
  }
}

#ifdef PVEC_TEST_HAVE_MPI
std::vector<int64_t> allgather_on(MPI_Comm comm, const std::vector<int64_t>& mine) {
  int P = 0;
  MPI_Comm_size(comm, &P);
  int k = static_cast<int>(mine.size());
  std::vector<int> n(P), at(P);
  MPI_Allgather(&k, 1, MPI_INT, n.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < P; ++r) {
    at[r] = total;
    total += n[r];
  }
  std::vector<int64_t> out(total);
  MPI_Allgatherv(mine.data(), k, MPI_INT64_T, out.data(), n.data(), at.data(), MPI_INT64_T, comm);
  return out;
}
#endif

}  // namespace

TEST_CASE("EVEN placement splits a global count, lower ranks first", "[dist][create]") {
  const int P = size(), r = rank();
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{10}, int64_t{1000}, int64_t{64} * P + 3}) {
    CAPTURE(n);
    pvec_vector_t v = make(3, n, PVEC_PLACE_EVEN);
    Failures f;
    const int64_t want = n / P + (r < n % P ? 1 : 0);
    if (n_local(v) != want) f.addf("local size ", n_local(v), ", expected ", want);
    if (capacity(v) != rounded64(want))
      f.addf("capacity ", capacity(v), ", expected ", rounded64(want));
    if (n_ghost(v) != 0) f.add("ghosts after creation");
    if (sum(n_local(v)) != n) f.add("the local sizes do not add up to the global count");
    int size_v = 0, rank_v = -1;
    DIST_OK(pvec_vector_get_nranks(v, &size_v));
    DIST_OK(pvec_vector_get_rank(v, &rank_v));
    if (size_v != P || rank_v != r) f.addf("comm size/rank ", size_v, "/", rank_v);
    check_zero(v, f);
    f.require("EVEN placement");
    DIST_OK(pvec_vector_destroy(v));
  }
}

TEST_CASE("LOCAL placement takes each rank's count", "[dist][create]") {
  const int r = rank();
  const int64_t mine = 3 * r + 1 + (r == 1 ? 130 : 0);
  pvec_vector_t v = make(2, mine, PVEC_PLACE_LOCAL);
  Failures f;
  if (n_local(v) != mine) f.addf("local size ", n_local(v), ", expected ", mine);
  if (capacity(v) != rounded64(mine)) f.addf("capacity ", capacity(v));
  const int64_t P = size();
  if (sum(n_local(v)) != 3 * P * (P - 1) / 2 + P + (P > 1 ? 130 : 0)) f.add("global count");
  check_zero(v, f);
  f.require("LOCAL placement");
  DIST_OK(pvec_vector_destroy(v));
}

#ifdef PVEC_TEST_HAVE_MPI
TEST_CASE("a vector on a sub-communicator lives and maps there", "[dist][create]") {
  const int P = size(), r = rank();
  const int color = r < (P + 1) / 2 ? 0 : 1;
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, r, &half);
  int hs = 0, hr = 0;
  MPI_Comm_size(half, &hs);
  MPI_Comm_rank(half, &hr);

  Props p;
  pvec_schema_t schema = make_full_schema(&p);
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  desc.dim = 2;
  desc.boundary[0] = PVEC_PERIODIC;
  desc.n_particles = 101 + 50 * color;
  desc.placement = PVEC_PLACE_EVEN;
  if (color == 0) {
    desc.has_comm = 1;
    desc.comm_f = static_cast<int64_t>(MPI_Comm_c2f(half));
  } else {
    pvec_vector_desc_set_comm(&desc, half);  // the helper pvec.h gives after <mpi.h>
  }
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&desc, schema, &v));
  pvec_schema_destroy(schema);
  Failures f;
  int size_v = 0, rank_v = -1;
  DIST_OK(pvec_vector_get_nranks(v, &size_v));
  DIST_OK(pvec_vector_get_rank(v, &rank_v));
  if (size_v != hs || rank_v != hr)
    f.addf("comm size/rank ", size_v, "/", rank_v, ", expected ", hs, "/", hr);
  const int64_t N = desc.n_particles;
  const int64_t want = N / hs + (hr < N % hs ? 1 : 0);
  if (n_local(v) != want) f.addf("local size ", n_local(v), ", expected ", want);
  f.require("vector on a half of MPI_COMM_WORLD");

  // The halves map a different number of times: their collectives must not mix.
  int64_t first = 0, n = n_local(v);
  MPI_Exscan(&n, &first, 1, MPI_INT64_T, MPI_SUM, half);
  if (hr == 0) first = 0;
  Rng rng(7000 + static_cast<uint64_t>(r));
  for (int round = 0; round < 1 + 2 * color; ++round) {
    n = n_local(v);
    Column idc = column(v, p.id), pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < n; ++i) {
      if (round == 0) idc.set_bits(i, 0, static_cast<uint64_t>(first + i));
      set_pos(pos, i, 0, rng.uniform(-5.0, 5.0));  // periodic: wrapped by map
      set_pos(pos, i, 1, rng.uniform(0.0, 1.0));
    }
    if (round == 0) fill_values(v, p, 0, n, 77);
    // (No assertion here: the halves loop a different number of times, and the checks are
    // collective over MPI_COMM_WORLD.)
    if (pvec_map(v, 0, nullptr) != PVEC_SUCCESS)
      f.addf("map round ", round, ": ", pvec_last_error());
  }
  n = n_local(v);
  std::vector<int64_t> ids(n);
  for (int64_t i = 0; i < n; ++i) ids[i] = id_of(v, p, i);
  std::vector<int64_t> all = allgather_on(half, ids);
  std::sort(all.begin(), all.end());
  bool same = static_cast<int64_t>(all.size()) == N;
  for (int64_t k = 0; same && k < N; ++k) same = all[k] == k;
  if (!same) f.add("ids within the half are not conserved");
  check_values(v, p, 0, n, 77, f);
  // Every particle sits in this rank's subdomain of the half's decomposition.
  double lo[2], hi[2];
  DIST_OK(pvec_vector_get_subdomain(v, lo, hi));
  Column pos = column(v, PVEC_POS);
  for (int64_t i = 0; i < n; ++i) {
    double x[2] = {get_pos(pos, i, 0), get_pos(pos, i, 1)};
    int owner = -1;
    if (pvec_vector_get_owner_rank(v, x, &owner) != PVEC_SUCCESS || owner != hr)
      f.addf("particle ", i, " owner ", owner, ", this rank is ", hr, " of the half");
    for (int d = 0; d < 2; ++d)
      if (!(x[d] >= lo[d] && (x[d] < hi[d] || (d == 1 && x[d] == hi[d] && hi[d] == 1.0))))
        f.addf("particle ", i, " outside the subdomain along ", d);
  }
  f.require("map on a half");
  DIST_OK(pvec_vector_destroy(v));
  MPI_Comm_free(&half);
}
#endif

TEST_CASE("subdomains tile the box and owner_rank agrees with brute force", "[dist][decomp]") {
  const int periodic_sets[3][3] = {{1, 0, 0}, {0, 1, 0}, {1, 0, 1}};
  for (int dim = 1; dim <= 3; ++dim) {
    CAPTURE(dim);
    pvec_vector_t v = make(dim, 0, PVEC_PLACE_LOCAL, periodic_sets[dim - 1]);
    const Decomp dc = decomposition(v);
    Failures f;
    double volume = 0, box = 1;
    for (int d = 0; d < dim; ++d) box *= dc.len(d);
    for (int r = 0; r < dc.ranks; ++r) {
      double vol = 1;
      for (int d = 0; d < dim; ++d) {
        const double a = dc.sub_lo[r * dim + d], b = dc.sub_hi[r * dim + d];
        vol *= b - a;
        if (!(dc.lo[d] <= a && a < b && b <= dc.hi[d]))
          f.addf("rank ", r, " subdomain [", a, ", ", b, ") along ", d, " is not in the box");
        // Every low edge is the box's or exactly another subdomain's high edge.
        bool shared = a == dc.lo[d];
        for (int q = 0; q < dc.ranks && !shared; ++q) shared = dc.sub_hi[q * dim + d] == a;
        if (!shared) f.addf("rank ", r, " low edge ", a, " along ", d, " is nobody's high edge");
      }
      volume += vol;
      for (int q = r + 1; q < dc.ranks; ++q) {
        double overlap = 1;
        for (int d = 0; d < dim; ++d)
          overlap *= std::max(0.0, std::min(dc.sub_hi[r * dim + d], dc.sub_hi[q * dim + d]) -
                                       std::max(dc.sub_lo[r * dim + d], dc.sub_lo[q * dim + d]));
        if (overlap > 0) f.addf("ranks ", r, " and ", q, " overlap");
      }
    }
    if (std::fabs(volume - box) > 1e-12 * box) f.addf("volumes add to ", volume, " not ", box);

    // Points: random on a dyadic grid (so that periodic images are exact), then every
    // subdomain corner (the box's hi among them).
    Rng rng(900 + static_cast<uint64_t>(dim));
    std::vector<std::vector<double>> points;
    const size_t n_random = 300;
    for (size_t k = 0; k < n_random; ++k) {
      std::vector<double> x(dim);
      for (int d = 0; d < dim; ++d)
        x[d] = dc.lo[d] + dc.len(d) * static_cast<double>(rng.below(1024)) / 1024.0;
      points.push_back(x);
    }
    for (int r = 0; r < dc.ranks; ++r)
      for (int corner = 0; corner < (1 << dim); ++corner) {
        std::vector<double> x(dim);
        for (int d = 0; d < dim; ++d)
          x[d] = (corner >> d) & 1 ? dc.sub_hi[r * dim + d] : dc.sub_lo[r * dim + d];
        points.push_back(x);
      }
    for (size_t k = 0; k < points.size(); ++k) {
      const std::vector<double>& x = points[k];
      std::vector<double> w = x;  // wrapped into [lo, hi) where periodic
      for (int d = 0; d < dim; ++d)
        if (dc.periodic[d] && w[d] == dc.hi[d]) w[d] = dc.lo[d];
      const int want = dc.owner(w.data());
      int got = -1;
      const pvec_status st = pvec_vector_get_owner_rank(v, x.data(), &got);
      if (st != PVEC_SUCCESS || got != want)
        f.addf("owner_rank at (", x[0], dim > 1 ? ", ..." : "", ") is ", got, " status ", st,
               ", brute force ", want);
      if (k >= n_random) continue;
      // Whole periods away on the periodic dimensions.
      std::vector<double> y = w;
      for (int d = 0; d < dim; ++d)
        if (dc.periodic[d]) y[d] += (d % 2 ? -2.0 : 3.0) * dc.len(d);
      if (pvec_vector_get_owner_rank(v, y.data(), &got) != PVEC_SUCCESS || got != want)
        f.addf("owner_rank of a periodic image is ", got, ", expected ", want);
    }
    // Bad points.
    std::vector<double> bad(dim, 0.0);
    for (int d = 0; d < dim; ++d) bad[d] = 0.5 * (dc.lo[d] + dc.hi[d]);
    int np = -1;
    for (int d = 0; d < dim; ++d)
      if (!dc.periodic[d]) np = d;
    int out = 0;
    if (np >= 0) {
      std::vector<double> b = bad;
      b[np] = nudge(dc.hi[np], PVEC_FLOAT64, 1);
      if (pvec_vector_get_owner_rank(v, b.data(), &out) != PVEC_ERROR_INVALID_ARGUMENT)
        f.add("owner_rank accepted a point past a non-periodic hi");
    }
    bad[0] = std::numeric_limits<double>::quiet_NaN();
    if (pvec_vector_get_owner_rank(v, bad.data(), &out) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("owner_rank accepted NaN");
    bad[0] = std::numeric_limits<double>::infinity();
    if (pvec_vector_get_owner_rank(v, bad.data(), &out) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("owner_rank accepted +Inf");
    if (pvec_vector_get_owner_rank(v, nullptr, &out) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("owner_rank accepted x == NULL");
    if (pvec_vector_get_subdomain(v, nullptr, nullptr) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("subdomain accepted lo == hi == NULL");
    f.require("decomposition");
    DIST_OK(pvec_vector_destroy(v));
  }
}

#ifdef PVEC_TEST_HAVE_MPI
TEST_CASE("a garbage communicator is a status, not an abort", "[dist][create]") {
  Props p;
  pvec_schema_t schema = make_full_schema(&p);
  MPI_Errhandler before = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &before);
  // Not communicator handles: made-up indices, a negative one, one beyond MPI_Fint.
  for (int64_t bad : {int64_t{12345}, int64_t{-7}, int64_t{1000000}, int64_t{1} << 40}) {
    INFO("comm_f " << bad);
    pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
    desc.has_comm = 1;
    desc.comm_f = bad;
    pvec_vector_t v = nullptr;
    const pvec_status st = pvec_vector_create(&desc, schema, &v);
    const std::string msg = pvec_last_error();
    CHECK((st == PVEC_ERROR_MPI || st == PVEC_ERROR_INVALID_ARGUMENT));
    CHECK(v == nullptr);
    CHECK(msg.find("pvec_vector_create") != std::string::npos);
    CHECK(msg.find("comm") != std::string::npos);
  }
  // The program's error handler on MPI_COMM_WORLD is back in place.
  MPI_Errhandler after = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &after);
  int cmp_fatal = after == MPI_ERRORS_ARE_FATAL;
  int was_fatal = before == MPI_ERRORS_ARE_FATAL;
  CHECK(cmp_fatal == was_fatal);
  MPI_Errhandler_free(&before);
  MPI_Errhandler_free(&after);
  // A valid communicator still works afterwards.
  pvec_vector_t v = make(3, 10, PVEC_PLACE_LOCAL);
  DIST_OK(pvec_vector_destroy(v));
  pvec_schema_destroy(schema);
}
#endif
