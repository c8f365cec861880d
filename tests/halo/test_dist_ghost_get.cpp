// Proves that pvec_ghost_get gives every rank exactly the ghosts of the brute-force reference
// (all particles of all ranks gathered; every periodic image checked against the widened
// subdomain, shifts computed in the position type), with the listed properties' values bit
// for bit, the local particles untouched and the other mirror untouched: 1D/2D/3D, mixed
// boundaries, float32/float64, ghost widths from tiny to wider than a subdomain and wider
// than the box, coordinates placed where rounding decides, on the host and the device path.
#include "dist_util.hpp"

#include <algorithm>
#include <cmath>
#include <set>

using namespace dist;

namespace {

// One ghost_get on path, checked against the reference; listed: the properties asked for
// (nullptr: all), their values expected as value_bits(id, ..., salt).
void check_ghost_get(pvec_vector_t v, const Props& p, const Setup& s, Path path,
                     const std::vector<int>* listed, uint64_t salt, const char* what) {
  const Decomp dc = decomposition(v);
  const AllParticles all = gather_particles(v, p);
  const Snapshot before = snapshot(v);
  Failures f;
  std::string err;
  const pvec_status st = run_on(
      v, path,
      [&](unsigned fl) {
        return pvec_ghost_get(v, listed ? listed->data() : nullptr,
                              listed ? static_cast<int>(listed->size()) : 0, fl);
      },
      f, &err);
  INFO(what << " on the " << name_of(path) << " path: " << err);
  DIST_REQUIRE(st == PVEC_SUCCESS);
  const int64_t n = n_local(v), g = n_ghost(v);
  if (capacity(v) != before.capacity && generation(v) == before.generation)
    f.add("ghost_get changed the capacity but not the generation");
  if (capacity(v) < n + g) f.addf("capacity ", capacity(v), " < ", n + g, " particles");
  if (n != before.n_local) f.addf("local size changed from ", before.n_local, " to ", n);
  const Snapshot after = snapshot(v);
  const std::string diff = compare_rows(before, after, std::min(before.n_local, n));
  if (!diff.empty()) f.add("ghost_get changed a local particle: " + diff);
  const std::vector<GhostEntry> want = reference_ghosts(dc, s.pos, s.width, all, rank());
  compare_ghosts(want, actual_ghosts(v, p), s.dim, f);
  check_values(v, p, n, n + g, salt, f, listed ? listed : &p.values);
  // The figures: received = ghosts; own periodic images (ghosts of this rank's particles) are
  // counted apart and travel in no message.
  std::set<int64_t> mine;
  for (size_t k = 0; k < all.ids.size(); ++k)
    if (all.rank[k] == rank()) mine.insert(all.ids[k]);
  int64_t own_images = 0;
  for (const GhostEntry& e : want) own_images += mine.count(e.id) != 0 ? 1 : 0;
  const pvec_op_stats ops = op_stats(v);
  if (ops.particles_received != g) f.addf("particles_received ", ops.particles_received, " != ", g);
  check_exchange_figures(ops, own_images, "ghost_get", f);
  f.require(what);
}

void run(const Setup& s) {
  for (Path path : {Path::host, Path::device}) {
    CAPTURE(s.dim, pvec_dtype_name(s.pos), s.periodic[0], s.periodic[1], s.periodic[2], s.width,
            name_of(path));
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    check_ghost_get(v, p, s, path, nullptr, s.seed, "all properties");
    // New values, a subset of the properties (id included, to identify the ghosts), a
    // fresh plan: the new values travel, the old ghosts are replaced.
    fill_values(v, p, 0, n_local(v), s.seed + 1);
    const std::vector<int> some = {p.tu23, p.id, p.f32, p.vi3};
    check_ghost_get(v, p, s, path, &some, s.seed + 1, "a subset of the properties");
    // Positions listed explicitly as well, after 35 other 4-byte components (with float32
    // positions, the shifted ones are in the second launch of the packing kernel).
    const std::vector<int> with_pos = {p.id, p.t57, PVEC_POS, p.f64};
    check_ghost_get(v, p, s, path, &with_pos, s.seed + 1, "PVEC_POS listed");
    // The positions travel once, listed or not: the same bytes without PVEC_POS in the list.
    const pvec_op_stats listed_ops = op_stats(v);
    const std::vector<int> without_pos = {p.id, p.t57, p.f64};
    check_ghost_get(v, p, s, path, &without_pos, s.seed + 1, "PVEC_POS not listed");
    CHECK(op_stats(v).bytes_sent == listed_ops.bytes_sent);
    CHECK(op_stats(v).particles_sent == listed_ops.particles_sent);
    DIST_OK(pvec_vector_destroy(v));
  }
}

Setup setup(int dim, pvec_dtype t, std::initializer_list<int> periodic, double width, int64_t n,
            uint64_t seed) {
  Setup s;
  s.dim = dim;
  s.pos = t;
  int d = 0;
  for (int b : periodic) s.periodic[d++] = b;
  s.width = width;
  s.n_per_rank = n;
  s.seed = seed;
  return s;
}

}  // namespace

TEST_CASE("ghost_get matches the brute-force reference in 1D", "[dist][ghost]") {
  run(setup(1, PVEC_FLOAT64, {1}, 0.05, 200, 101));
  run(setup(1, PVEC_FLOAT32, {0}, 0.7, 120, 102));  // wider than a subdomain at 3-4 ranks
  run(setup(1, PVEC_FLOAT32, {1}, 2.5, 40, 103));   // wider than the box: images +-1, +-2
  run(setup(1, PVEC_FLOAT64, {1}, 0.0, 60, 104));   // no width: no ghosts at all
  // Wider than 16 boxes: more than 32 candidate cells per particle, the path that tests
  // combination by combination instead of through bit masks.
  run(setup(1, PVEC_FLOAT64, {1}, 16.5 * (kDomainHi[0] - kDomainLo[0]), 6, 105));
}

TEST_CASE("ghost_get matches the brute-force reference in 2D", "[dist][ghost]") {
  run(setup(2, PVEC_FLOAT32, {1, 0}, 0.1, 150, 201));
  run(setup(2, PVEC_FLOAT64, {1, 1}, 1.2, 60, 202));  // wider than a subdomain
  run(setup(2, PVEC_FLOAT32, {1, 1}, 0.01, 150, 203));
  run(setup(2, PVEC_FLOAT32, {0, 0}, 0.25, 100, 204));
}

TEST_CASE("ghost_get matches the brute-force reference in 3D", "[dist][ghost]") {
  run(setup(3, PVEC_FLOAT64, {1, 0, 1}, 0.15, 150, 301));
  run(setup(3, PVEC_FLOAT32, {0, 1, 0}, 0.2, 150, 302));
  run(setup(3, PVEC_FLOAT32, {1, 1, 1}, 0.3, 80, 303));
}

// On the device a plan's count pass makes room for about as many particles near a boundary
// as the previous plan had, before it knows how many there are, and repeats itself when there
// are more: every particle first deep inside its subdomain (none near), then a thousand and
// more near a face (more than the room), then the same again (room enough).
TEST_CASE("ghost_get when many more particles come near a boundary than the time before",
          "[dist][ghost]") {
  Setup s = setup(3, PVEC_FLOAT64, {1, 1, 1}, 0.02, 2500, 401);
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  const Decomp dc = decomposition(v);
  const int64_t n = n_local(v);
  // Particle i at the centre of this rank's subdomain, nudged by i, and for i < near along x
  // at a distance below the ghost width from the subdomain's low face.
  auto place = [&](int64_t near) {
    const Column pos = column(v, PVEC_POS);
    for (int64_t i = 0; i < n; ++i)
      for (int d = 0; d < 3; ++d) {
        const double lo = dc.sub_lo[rank() * 3 + d], hi = dc.sub_hi[rank() * 3 + d];
        double x = 0.5 * (lo + hi) + 0.1 * (hi - lo) * (static_cast<double>(i % 97) / 97 - 0.5);
        if (d == 0 && i < near) x = lo + 0.5 * s.width * static_cast<double>(i % 89 + 1) / 90;
        set_pos(pos, i, d, x);
      }
  };
  for (Path path : {Path::device, Path::host}) {
    CAPTURE(name_of(path));
    place(0);
    check_ghost_get(v, p, s, path, nullptr, s.seed, "no particle near a boundary");
    CHECK(n_ghost(v) == 0);
    place(std::min<int64_t>(n, 2200));
    check_ghost_get(v, p, s, path, nullptr, s.seed, "2200 particles near a boundary");
    CHECK(n_ghost(v) >= std::min<int64_t>(n, 2200));
    check_ghost_get(v, p, s, path, nullptr, s.seed, "the same again");
  }
  DIST_OK(pvec_vector_destroy(v));
}

// The ghost test uses the coordinate a ghost is stored with (x + (T)(s L), rounded to the
// position type), so a float32 image that rounds into the ghost region is a ghost and one
// that rounds out of it is not. Domain [-1, 1] periodic, one particle on rank 0.
TEST_CASE("ghost_get decides periodic images by their float32 coordinate", "[dist][ghost]") {
  struct Probe {
    double width;
    float x;
    const char* why;
  };
  const Probe probes[] = {
      // x + 2 = 1.01000005 in double, but 1.00999999 < 1.01 as stored: a ghost.
      {0.01, std::nextafter(-0.99f, 0.0f), "image rounds down into the region"},
      // x + 4 = 3.49999994 in double, but 3.5 = hi + width as stored: not a ghost.
      {2.5, std::nextafter(-0.5f, -1.0f), "image rounds up onto the region's open end"}};
  for (const Probe& pr : probes)
    for (Path path : {Path::host, Path::device}) {
      CAPTURE(pr.why, pr.width, pr.x, name_of(path));
      Props p;
      pvec_schema_t schema = make_full_schema(&p);
      pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
      desc.dim = 1;
      desc.pos_dtype = PVEC_FLOAT32;
      desc.domain_lo[0] = -1.0;
      desc.domain_hi[0] = 1.0;
      desc.boundary[0] = PVEC_PERIODIC;
      desc.ghost_width = pr.width;
      desc.n_particles = rank() == 0 ? 1 : 0;
      desc.placement = PVEC_PLACE_LOCAL;
      pvec_vector_t v = nullptr;
      DIST_OK(pvec_vector_create(&desc, schema, &v));
      pvec_schema_destroy(schema);
      if (rank() == 0) {
        column(v, p.id).set_bits(0, 0, 7);
        set_pos(column(v, PVEC_POS), 0, 0, pr.x);
      }
      DIST_OK(pvec_map(v, 0, nullptr));
      Setup s;
      s.dim = 1;
      s.pos = PVEC_FLOAT32;
      s.periodic[0] = 1;
      s.width = pr.width;
      fill_values(v, p, 0, n_local(v), 5);
      check_ghost_get(v, p, s, path, nullptr, 5, pr.why);
      DIST_OK(pvec_vector_destroy(v));
    }
}
