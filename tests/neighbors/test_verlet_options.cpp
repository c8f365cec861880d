// Verlet list options (pvec_verlet_create_with) at 1-4 ranks, host and device path: a
// key-ordered full list gives every particle its neighbours in ascending id, the same set as a
// brute force over the whole (known) particle set, so a floating-point sum over it equals the
// serial reference bitwise at every rank count, on equal and on rebalanced boxes; the pair
// filter leaves out exactly the pairs of two flagged particles; bad options and a key whose
// ghost rows are not current are refused and change nothing.
#include "neighbors_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace nbr_test;

namespace {

constexpr int kOptId = 0, kWall = 1, kQ = 2, kVec = 3;
constexpr int64_t kN = 1500;  // particles in the whole run
constexpr double kSkin = 0.03;
// The cutoff: ~20 neighbours a particle by default; the dense runs reach ~170 (the device's
// largest warp sort) and ~400 (beyond it: the CUB path).
double g_cut = 0.12;

struct Particle {
  double x[3];
  int64_t id;
  int32_t wall;
  double q;
};

// The whole particle set, the same on every rank: in [0, 1)^3, periodic along x only; every
// third particle a wall; ids in a shuffled order, so that id order is not row order.
std::vector<Particle> all_particles() {
  std::vector<Particle> p(kN);
  Rng rng(4242);
  for (int64_t k = 0; k < kN; ++k) {
    for (double& c : p[k].x) c = rng.uniform();
    p[k].id = static_cast<int64_t>(mix(static_cast<uint64_t>(k)) >> 20) * kN + k;
    p[k].wall = k % 3 == 0 ? 1 : 0;
    p[k].q = 1.0 + rng.uniform();
  }
  return p;
}

double min_image_dist2(const Particle& a, const Particle& b) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) {
    double dx = b.x[d] - a.x[d];
    if (d == 0) dx -= std::round(dx);
    r2 += dx * dx;
  }
  return r2;
}

// The per-particle sum a force loop would make: not associative, so its value depends on the
// order of the terms.
double term(double qi, double qj) { return qi * qj + 1.0 / qj; }

pvec_vector_t make_vector() {
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "wall", PVEC_INT32, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "q", PVEC_FLOAT64, nullptr) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_vector(s, "vec", PVEC_INT32, 2, nullptr) == PVEC_SUCCESS);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.boundary[0] = PVEC_PERIODIC;
  d.ghost_width = g_cut + kSkin;
  // Rank r starts with the particles k = r, r + size, ...; map sends them home.
  const std::vector<Particle> all = all_particles();
  d.n_particles = (kN - rank() + size() - 1) / size();
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  const Column pos = column(v, PVEC_POS), id = column(v, kOptId), wall = column(v, kWall),
               q = column(v, kQ);
  int64_t i = 0;
  for (int64_t k = rank(); k < kN; k += size(), ++i) {
    for (int c = 0; c < 3; ++c) set_pos(pos, i, c, all[k].x[c]);
    reinterpret_cast<int64_t*>(id.base)[i] = all[k].id;
    reinterpret_cast<int32_t*>(wall.base)[i] = all[k].wall;
    reinterpret_cast<double*>(q.base)[i] = all[k].q;
  }
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  return v;
}

const int kGhostProps[] = {kOptId, kWall, kQ};

// Map and ghost_get (id, wall, q) on the path's mirror; the host mirror then holds the rows.
void distribute(pvec_vector_t v, Path p, bool rebalance) {
  const unsigned on = flag_of(p);
  DIST_OK(pvec_map(v, on, nullptr));
  if (rebalance) DIST_OK(pvec_vector_rebalance(v, PVEC_NO_WEIGHT, 1.0, on, nullptr, nullptr));
  DIST_OK(pvec_ghost_get(v, kGhostProps, 3, on));
  if (p == Path::device) to_host(v);
}

pvec_verlet_options options(Path p, bool half = false) {
  pvec_verlet_options o = PVEC_VERLET_OPTIONS_INIT;
  o.cutoff = g_cut;
  o.skin = kSkin;
  o.flags = flag_of(p) | (half ? static_cast<unsigned>(PVEC_VERLET_HALF) : 0u);
  o.key_prop = kOptId;
  o.skip_prop = kWall;
  return o;
}

// The key-ordered, filtered list of every local particle against the brute force over the
// whole set, and the sums over it against the serial reference, bitwise.
void check_list(pvec_vector_t v, const HostList& h, const std::vector<Particle>& all, Failures& f) {
  const Column id = column(v, kOptId), q = column(v, kQ);
  const auto* ids = reinterpret_cast<const int64_t*>(id.base);
  const auto* qs = reinterpret_cast<const double*>(q.base);
  std::vector<int64_t> index_of_id;  // ids are k + kN * something: k = id % kN
  const int64_t n = n_local(v);
  if (h.n != n) f.addf("the list has ", h.n, " particles, the rank ", n);
  for (int64_t i = 0; i < std::min(n, h.n); ++i) {
    const Particle& pi = all[static_cast<size_t>(ids[i] % kN)];
    std::vector<int64_t> want;
    for (const Particle& pj : all)
      if (pj.id != pi.id && !(pi.wall && pj.wall) &&
          min_image_dist2(pi, pj) < (g_cut + kSkin) * (g_cut + kSkin))
        want.push_back(pj.id);
    std::sort(want.begin(), want.end());
    std::vector<int64_t> got;
    double sum = 0;
    for (int64_t e = h.offsets[i]; e < h.offsets[i + 1]; ++e) {
      got.push_back(ids[h.nbr[e]]);
      sum += term(qs[i], qs[h.nbr[e]]);
    }
    if (got != want) {
      f.addf("particle id ", pi.id, ": ", got.size(),
             " neighbours in the list (sorted: ", std::is_sorted(got.begin(), got.end()), "), ",
             want.size(), " by brute force");
      continue;
    }
    double ref = 0;
    for (const int64_t j : want) ref += term(pi.q, all[static_cast<size_t>(j % kN)].q);
    if (std::memcmp(&sum, &ref, sizeof sum) != 0)
      f.addf("particle id ", pi.id, ": the sum over the list ", sum, " differs from the ",
             "serial sum in id order ", ref);
  }
}

}  // namespace

TEST_CASE("key-ordered Verlet lists give bitwise the same sums on any decomposition",
          "[neighbors]") {
  const std::vector<Particle> all = all_particles();
  for (Path p : {Path::host, Path::device})
    for (bool rebalanced : {false, true}) {
      INFO(name_of(p) << " path" << (rebalanced ? ", rebalanced" : ""));
      Failures f;
      pvec_vector_t v = make_vector();
      distribute(v, p, rebalanced);
      pvec_verlet_options o = options(p);
      pvec_verlet_t l = nullptr;
      DIST_OK(pvec_verlet_create_with(v, &o, &l));
      check_list(v, fetch_list(l), all, f);
      // A rebuild keeps the options.
      DIST_OK(pvec_verlet_build(l));
      check_list(v, fetch_list(l), all, f);

      // A half list with the same options: each particle's part of it in key order, and
      // together with the other ends, the filtered pairs of the full list.
      pvec_verlet_options oh = options(p, true);
      pvec_verlet_t hl = nullptr;
      DIST_OK(pvec_verlet_create_with(v, &oh, &hl));
      const HostList hh = fetch_list(hl), hf = fetch_list(l);
      const auto* ids = reinterpret_cast<const int64_t*>(column(v, kOptId).base);
      int64_t half_pairs = 0, full_pairs = hf.offsets.back();
      for (int64_t i = 0; i < hh.n; ++i) {
        for (int64_t e = hh.offsets[i] + 1; e < hh.offsets[i + 1]; ++e)
          if (ids[hh.nbr[e - 1]] >= ids[hh.nbr[e]]) {
            f.addf("half list: the neighbours of row ", i, " are not in ascending id");
            break;
          }
        half_pairs += hh.offsets[i + 1] - hh.offsets[i];
      }
      // Every pair once in the run (half) against twice (full).
      if (2 * sum(half_pairs) != sum(full_pairs))
        f.addf("half list: ", sum(half_pairs), " pairs in the run, full list ", sum(full_pairs));
      DIST_OK(pvec_verlet_destroy(hl));
      DIST_OK(pvec_verlet_destroy(l));
      f.require("key-ordered lists");
      DIST_OK(pvec_vector_destroy(v));
    }
}

TEST_CASE("key order of long neighbour lists (every sorting path of the device)", "[neighbors]") {
  const std::vector<Particle> all = all_particles();
  for (double cut : {0.27, 0.4})
    for (Path p : {Path::host, Path::device}) {
      INFO(name_of(p) << " path, cutoff " << cut);
      g_cut = cut;
      Failures f;
      pvec_vector_t v = make_vector();
      distribute(v, p, false);
      pvec_verlet_options o = options(p);
      pvec_verlet_t l = nullptr;
      DIST_OK(pvec_verlet_create_with(v, &o, &l));
      const HostList h = fetch_list(l);
      int64_t longest = 0;
      for (int64_t i = 0; i < h.n; ++i)
        longest = std::max(longest, h.offsets[i + 1] - h.offsets[i]);
      if (n_local(v) > 0 && cut > 0.3 && longest <= 256)
        f.addf("the dense case is not dense: ", longest, " neighbours at most");
      check_list(v, h, all, f);
      // A rebuild (the device fills padded rows of the last build's room and orders them
      // straight into the list when no segment passes 256 entries).
      DIST_OK(pvec_verlet_build(l));
      check_list(v, fetch_list(l), all, f);
      DIST_OK(pvec_verlet_destroy(l));
      DIST_OK(pvec_vector_destroy(v));
      g_cut = 0.12;
      f.require("long lists");
    }
}

TEST_CASE("key order with ties: ascending key, then row, on every sorting path", "[neighbors]") {
  // The key is the int32 wall flag (0 or 1): every segment is two runs of equal keys, each in
  // row order, and holds the same neighbours as the list without a key.
  for (double cut : {0.12, 0.27, 0.4})
    for (Path p : {Path::host, Path::device}) {
      INFO(name_of(p) << " path, cutoff " << cut);
      g_cut = cut;
      Failures f;
      pvec_vector_t v = make_vector();
      distribute(v, p, false);
      const auto* wall = reinterpret_cast<const int32_t*>(column(v, kWall).base);
      pvec_verlet_options o = options(p);
      o.key_prop = kWall;
      o.skip_prop = PVEC_NO_PROPERTY;
      pvec_verlet_options plain = o;
      plain.key_prop = PVEC_NO_PROPERTY;
      pvec_verlet_t l = nullptr, lp = nullptr;
      DIST_OK(pvec_verlet_create_with(v, &o, &l));
      DIST_OK(pvec_verlet_create_with(v, &plain, &lp));
      const HostList ref = fetch_list(lp);
      for (int build = 0; build < 2; ++build) {
        if (build == 1) DIST_OK(pvec_verlet_build(l));
        const HostList h = fetch_list(l);
        if (h.offsets != ref.offsets) {
          f.addf("build ", build, ": the keyed list's offsets differ from the plain list's");
          continue;
        }
        for (int64_t i = 0; i < h.n; ++i) {
          const int64_t e0 = h.offsets[i], e1 = h.offsets[i + 1];
          bool ordered = true;
          for (int64_t e = e0 + 1; e < e1; ++e) {
            const int32_t a = h.nbr[e - 1], b = h.nbr[e];
            ordered = ordered && (wall[a] < wall[b] || (wall[a] == wall[b] && a < b));
          }
          std::vector<int32_t> got(h.nbr.begin() + e0, h.nbr.begin() + e1);
          std::vector<int32_t> want(ref.nbr.begin() + e0, ref.nbr.begin() + e1);
          std::sort(got.begin(), got.end());
          std::sort(want.begin(), want.end());
          if (!ordered || got != want) {
            f.addf("build ", build, ", row ", i, ": ", ordered ? "" : "not in (key, row) order",
                   got != want ? " other neighbours than the plain list" : "");
            break;
          }
        }
      }
      DIST_OK(pvec_verlet_destroy(lp));
      DIST_OK(pvec_verlet_destroy(l));
      DIST_OK(pvec_vector_destroy(v));
      g_cut = 0.12;
      f.require("ties");
    }
}

TEST_CASE("Verlet options refuse bad properties and keys whose ghosts are not current",
          "[neighbors]") {
  for (Path p : {Path::host, Path::device}) {
    INFO(name_of(p) << " path");
    pvec_vector_t v = make_vector();
    distribute(v, p, false);
    const unsigned on = flag_of(p);
    pvec_verlet_t l = nullptr;
    auto refused = [&](pvec_verlet_options o, pvec_status want) {
      pvec_verlet_t out = nullptr;
      const pvec_status got = pvec_verlet_create_with(v, &o, &out);
      CHECK(got == want);
      CHECK(out == nullptr);
    };
    pvec_verlet_options o = options(p);
    o.key_prop = kQ;  // float64
    refused(o, PVEC_ERROR_DTYPE_MISMATCH);
    o.key_prop = PVEC_POS;
    refused(o, PVEC_ERROR_INVALID_ARGUMENT);
    o.key_prop = 99;
    refused(o, PVEC_ERROR_OUT_OF_RANGE);
    o.key_prop = -7;
    refused(o, PVEC_ERROR_OUT_OF_RANGE);
    o = options(p);
    o.skip_prop = kVec;  // two components
    refused(o, PVEC_ERROR_INVALID_ARGUMENT);
    o = options(p);
    o.flags |= 1u << 30;
    refused(o, PVEC_ERROR_INVALID_ARGUMENT);
    o = options(p);
    o.struct_size = PVEC_VERLET_OPTIONS_SIZE_V1 - 1;
    refused(o, PVEC_ERROR_INVALID_ARGUMENT);
    CHECK(pvec_verlet_create_with(v, nullptr, &l) == PVEC_ERROR_INVALID_ARGUMENT);
    o = options(p);
    CHECK(pvec_verlet_create_with(v, &o, nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
    CHECK(pvec_verlet_options_init(nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
    pvec_verlet_options init;
    std::memset(&init, 0xff, sizeof init);
    REQUIRE(pvec_verlet_options_init(&init) == PVEC_SUCCESS);
    CHECK(init.struct_size == sizeof(pvec_verlet_options));
    CHECK(init.key_prop == PVEC_NO_PROPERTY);
    CHECK(init.skip_prop == PVEC_NO_PROPERTY);
    CHECK(init.cells_per_cutoff == 1);

    // A new ghost plan without the key: its ghost rows are not current (ghosts exist only at
    // more than one rank or across the periodic boundary, which every rank count has here).
    const int only_q[] = {kQ};
    DIST_OK(pvec_ghost_get(v, only_q, 1, on));
    REQUIRE(n_ghost(v) > 0);
    refused(options(p), PVEC_ERROR_STATE);
    CHECK(std::string(pvec_last_error()).find("'id'") != std::string::npos);
    // A replay that brings id and wall makes them current; a ghost_put of id does not.
    DIST_OK(pvec_ghost_get(v, kGhostProps, 3, on | PVEC_GHOST_REUSE_PLAN));
    o = options(p);
    DIST_OK(pvec_verlet_create_with(v, &o, &l));
    const int only_id[] = {kOptId};
    DIST_OK(pvec_ghost_put(v, only_id, 1, PVEC_REDUCE_MAX, on));
    CHECK(pvec_verlet_build(l) == PVEC_ERROR_STATE);
    // Ghost rows copied from the mirror where they are current count as current.
    DIST_OK(pvec_ghost_get(v, kGhostProps, 3, on | PVEC_GHOST_REUSE_PLAN));
    if (p == Path::host) {
      pvec_verlet_options od = options(Path::device);
      // The device mirror's ghost rows are older than the host's (pvec knows: its host ghost_get
      // wrote them): refused as a stale mirror.
      refused(od, PVEC_ERROR_STALE_MIRROR);
      DIST_OK(pvec_host_to_device(v, nullptr, 0));
      pvec_verlet_t ld = nullptr;
      DIST_OK(pvec_verlet_create_with(v, &od, &ld));
      DIST_OK(pvec_verlet_destroy(ld));
    }
    DIST_OK(pvec_verlet_build(l));
    DIST_OK(pvec_verlet_destroy(l));
    DIST_OK(pvec_vector_destroy(v));
  }
}
