// The brute-force references of the distribution tests (dist_util.hpp): the decomposition as
// the tests compute it (who owns a point), and the ghosts every rank should hold, from all
// ranks' particles gathered with MPI, against the ghosts it does hold.
#include "dist_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace dist {

// ---- Decomposition -----------------------------------------------------------------------

bool Decomp::in_sub(int r, const double* x) const {
  for (int d = 0; d < dim; ++d) {
    const double a = sub_lo[r * dim + d], b = sub_hi[r * dim + d];
    const bool closed = !periodic[d] && b == hi[d];
    if (!(x[d] >= a && (x[d] < b || (closed && x[d] == b)))) return false;
  }
  return true;
}

int Decomp::owner(const double* x) const {
  int found = -1;
  for (int r = 0; r < ranks; ++r)
    if (in_sub(r, x)) {
      if (found >= 0) return -2;  // two owners: the subdomains overlap
      found = r;
    }
  return found;
}

Decomp decomposition(pvec_vector_t v) {
  Decomp dc;
  dc.dim = dim_of(v);
  dc.ranks = size();
  REQUIRE(pvec_vector_get_domain(v, dc.lo, dc.hi) == PVEC_SUCCESS);
  int bc[PVEC_MAX_DIM] = {0, 0, 0, 0};
  REQUIRE(pvec_vector_get_boundaries(v, bc) == PVEC_SUCCESS);
  for (int d = 0; d < dc.dim; ++d) dc.periodic[d] = bc[d] == PVEC_PERIODIC;
  std::vector<double> lo(dc.dim), hi(dc.dim);
  REQUIRE(pvec_vector_get_subdomain(v, lo.data(), hi.data()) == PVEC_SUCCESS);
  dc.sub_lo = allgather(lo);
  dc.sub_hi = allgather(hi);
  return dc;
}

void check_positions_owned(pvec_vector_t v, const Decomp& dc, Failures& f) {
  Column pos = column(v, PVEC_POS);
  const int me = rank();
  const int64_t n = n_local(v);
  for (int64_t i = 0; i < n; ++i) {
    double x[PVEC_MAX_DIM];
    for (int d = 0; d < dc.dim; ++d) x[d] = get_pos(pos, i, d);
    if (!dc.in_sub(me, x)) {
      std::ostringstream s;
      s.precision(17);
      s << "particle " << i << " at (";
      for (int d = 0; d < dc.dim; ++d) s << (d ? ", " : "") << x[d];
      s << ") is not in this rank's subdomain [";
      for (int d = 0; d < dc.dim; ++d) s << (d ? ", " : "") << dc.sub_lo[me * dc.dim + d];
      s << "] - [";
      for (int d = 0; d < dc.dim; ++d) s << (d ? ", " : "") << dc.sub_hi[me * dc.dim + d];
      s << ")";
      f.add(s.str());
    }
  }
}

// ---- Ghost reference ---------------------------------------------------------------------

namespace {
uint64_t bits_of(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// x + (T)(s * L) in T, as the ghost's stored coordinate; s == 0 leaves x as it is.
double shifted(double x, int64_t s, double L, pvec_dtype t) {
  if (s == 0) return x;
  if (t == PVEC_FLOAT32)
    return static_cast<float>(x) + static_cast<float>(static_cast<double>(s) * L);
  return x + static_cast<double>(s) * L;
}
}  // namespace

bool GhostEntry::operator<(const GhostEntry& o) const {
  if (id != o.id) return id < o.id;
  for (int d = 0; d < PVEC_MAX_DIM; ++d)
    if (bits_of(x[d]) != bits_of(o.x[d])) return bits_of(x[d]) < bits_of(o.x[d]);
  return false;
}

bool GhostEntry::operator==(const GhostEntry& o) const { return !(*this < o) && !(o < *this); }

std::string GhostEntry::str(int dim) const {
  std::ostringstream s;
  s.precision(17);
  s << "id " << id << " at (";
  for (int d = 0; d < dim; ++d) s << (d ? ", " : "") << x[d];
  s << ")";
  return s.str();
}

AllParticles gather_particles(pvec_vector_t v, const Props& p) {
  const int dim = dim_of(v);
  const int64_t n = n_local(v);
  Column idc = column(v, p.id), pos = column(v, PVEC_POS);
  std::vector<int64_t> ids(n);
  std::vector<double> xs(n * dim);
  for (int64_t i = 0; i < n; ++i) {
    ids[i] = static_cast<int64_t>(idc.bits(i, 0));
    for (int d = 0; d < dim; ++d) xs[i * dim + d] = get_pos(pos, i, d);
  }
  AllParticles all;
  std::vector<int64_t> counts;
  all.ids = allgather(ids, &counts);
  all.xs = allgather(xs);
  for (size_t r = 0; r < counts.size(); ++r) all.rank.insert(all.rank.end(), counts[r], r);
  return all;
}

std::vector<GhostEntry> reference_ghosts(const Decomp& dc, pvec_dtype t, double width,
                                         const AllParticles& all, int r) {
  const int dim = dc.dim;
  // Shifts that can matter: |s| * L <= width + L on periodic dimensions.
  int64_t smin[PVEC_MAX_DIM], smax[PVEC_MAX_DIM];
  for (int d = 0; d < dim; ++d) {
    const int64_t k = dc.periodic[d] ? static_cast<int64_t>(std::ceil(width / dc.len(d))) + 1 : 0;
    smin[d] = -k;
    smax[d] = k;
  }
  std::vector<GhostEntry> out;
  for (size_t p = 0; p < all.ids.size(); ++p) {
    // Per dimension, the coordinates (shift, x') that fall in r's widened box.
    std::vector<std::pair<int64_t, double>> ok[PVEC_MAX_DIM];
    bool any = true;
    for (int d = 0; d < dim && any; ++d) {
      const double a = dc.sub_lo[r * dim + d] - width, b = dc.sub_hi[r * dim + d] + width;
      for (int64_t s = smin[d]; s <= smax[d]; ++s) {
        const double y = shifted(all.xs[p * dim + d], s, dc.len(d), t);
        if (y >= a && y < b) ok[d].push_back({s, y});
      }
      any = !ok[d].empty();
    }
    if (!any) continue;
    size_t idx[PVEC_MAX_DIM] = {0, 0, 0, 0};
    while (true) {
      bool zero = true;
      GhostEntry e;
      e.id = all.ids[p];
      for (int d = 0; d < dim; ++d) {
        zero = zero && ok[d][idx[d]].first == 0;
        e.x[d] = ok[d][idx[d]].second;
      }
      if (!(zero && all.rank[p] == r)) out.push_back(e);
      int d = dim - 1;
      while (d >= 0 && idx[d] + 1 == ok[d].size()) idx[d--] = 0;
      if (d < 0) break;
      ++idx[d];
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<GhostEntry> actual_ghosts(pvec_vector_t v, const Props& p) {
  const int dim = dim_of(v);
  const int64_t n = n_local(v), g = n_ghost(v);
  Column idc = column(v, p.id), pos = column(v, PVEC_POS);
  std::vector<GhostEntry> out(g);
  for (int64_t j = 0; j < g; ++j) {
    out[j].id = static_cast<int64_t>(idc.bits(n + j, 0));
    for (int d = 0; d < dim; ++d) out[j].x[d] = get_pos(pos, n + j, d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void compare_ghosts(const std::vector<GhostEntry>& want, const std::vector<GhostEntry>& got,
                    int dim, Failures& f) {
  if (want.size() != got.size()) f.addf("ghost count ", got.size(), ", reference ", want.size());
  size_t i = 0, j = 0;
  while (i < want.size() || j < got.size()) {
    if (j == got.size() || (i < want.size() && want[i] < got[j])) {
      f.add("missing ghost " + want[i++].str(dim));
    } else if (i == want.size() || got[j] < want[i]) {
      f.add("unexpected ghost " + got[j++].str(dim));
    } else {
      ++i;
      ++j;
    }
  }
}

}  // namespace dist
