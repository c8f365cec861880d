// balanced_grid (balanced_grid.hpp): histograms of the coordinates, quantile cuts, and the box
// weights of each candidate grid, counted where the particles are (a kernel per pass on the
// GPU, a loop on the host) and added over the ranks as integers. A build without CUDA compiles
// this file as C++.
#include "balance/balanced_grid.hpp"

#include "backend/device.hpp"
#include "backend/exec.hpp"
#include "backend/for_each.cuh"
#include "backend/host_parallel.hpp"
#include "common/dispatch.hpp"
#include "common/error.hpp"
#include "common/hd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace pvec::impl {
namespace {

constexpr int kBins = 4096;              // coarse bins per dimension
constexpr int kSub = 256;                // fine bins inside a coarse bin a quantile falls in
constexpr double kQuantum = 16777216.0;  // 2^24: the largest weight's integer value

using u64 = unsigned long long;

PVEC_HD inline void add_u64(u64* p, u64 v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, v);
#else
  *p += v;
#endif
}

// Coordinate x along d brought into the box: wrapped where periodic, clamped elsewhere (NaN
// to lo), so that every particle counts somewhere; map decides about the ones outside.
PVEC_HD inline double in_box(const CartGrid& g, int d, double x) {
  if (g.periodic[d]) x = g.wrap(d, x);
  if (!(x >= g.lo[d])) x = g.lo[d];
  if (x > g.hi[d]) x = g.hi[d];
  return x;
}

// A particle's weight as an integer: 1 without weights, else round(w * scale).
template <class W>
PVEC_HD inline u64 quantised(const W* w, double scale, int64_t i) {
  if (w == nullptr) return 1;
  return static_cast<u64>(static_cast<double>(w[i]) * scale + 0.5);
}

PVEC_HD inline int clamp_int(int64_t v, int hi) {
  return v < 0 ? 0 : (v > hi ? hi : static_cast<int>(v));
}

// The coarse bin of in-box coordinate x along d (passes 1 and 2 must agree on it).
PVEC_HD inline int coarse_bin(const CartGrid& g, int d, double x, double inv_bin) {
  return clamp_int(static_cast<int64_t>((x - g.lo[d]) * inv_bin), kBins - 1);
}

// Pass 1: per dimension, the weight in each of kBins equal bins.
template <class T, class W>
struct CoarsePass {
  CartGrid g;
  const T* pos;
  int64_t cap;
  const W* w;
  double scale;
  double inv_bin[PVEC_MAX_DIM];
  u64* hist;  // [dim][kBins]
  PVEC_HD void operator()(int64_t i) const {
    const u64 q = quantised(w, scale, i);
    if (q == 0) return;
    for (int d = 0; d < g.dim; ++d) {
      const double x = in_box(g, d, static_cast<double>(pos[d * cap + i]));
      add_u64(hist + d * kBins + coarse_bin(g, d, x, inv_bin[d]), q);
    }
  }
};

// Pass 2: inside each requested coarse bin (request[d * kBins + b] >= 0), the weight in each of
// kSub equal sub-bins. The coarse bin is found as in pass 1.
template <class T, class W>
struct FinePass {
  CartGrid g;
  const T* pos;
  int64_t cap;
  const W* w;
  double scale;
  double inv_bin[PVEC_MAX_DIM];
  double bin[PVEC_MAX_DIM];
  const int32_t* request;  // [dim][kBins]: the request's index, or -1
  u64* hist;               // [requests][kSub]
  PVEC_HD void operator()(int64_t i) const {
    const u64 q = quantised(w, scale, i);
    if (q == 0) return;
    for (int d = 0; d < g.dim; ++d) {
      const double x = in_box(g, d, static_cast<double>(pos[d * cap + i]));
      const int b = coarse_bin(g, d, x, inv_bin[d]);
      const int32_t k = request[d * kBins + b];
      if (k < 0) continue;
      const double lo_b = g.lo[d] + b * bin[d];
      const int s = clamp_int(static_cast<int64_t>((x - lo_b) * (kSub / bin[d])), kSub - 1);
      add_u64(hist + static_cast<int64_t>(k) * kSub + s, q);
    }
  }
};

// Pass 3: the weight of each box of a candidate grid, as owner() assigns them.
template <class T, class W>
struct BoxPass {
  CartGrid g;
  const T* pos;
  int64_t cap;
  const W* w;
  double scale;
  u64* boxes;  // [ranks]
  PVEC_HD void operator()(int64_t i) const {
    const u64 q = quantised(w, scale, i);
    if (q == 0) return;
    int r = 0;
    for (int d = 0; d < g.dim; ++d)
      r = r * g.dims[d] + g.cell(d, in_box(g, d, static_cast<double>(pos[d * cap + i])));
    add_u64(boxes + r, q);
  }
};

// Counters of one pass: zeroed, filled by f over the local particles, brought to the host and
// added over the ranks (exact: integers).
template <class F>
std::vector<u64> count(const Exec& ex, ScratchBuffer& buf, size_t n, int64_t particles,
                       const Communicator& comm, F make) {
  std::vector<u64> out(n, 0);
  if (ex.on_device) {
    u64* dev = buf.ensure_as<u64>(std::max<size_t>(n, 1));
    zero_2d(dev, n * sizeof(u64), n * sizeof(u64), 1, true, ex.stream);
    for_each(ex, particles, make(dev));
    copy_bytes(out.data(), dev, n * sizeof(u64), true, ex.stream);
    stream_synchronize(ex.stream);
  } else {
    // Host: one set of counters per thread over its range of particles, added after (integer
    // sums: the same in any order).
    const int threads = std::max(1, host_threads());
    std::vector<std::vector<u64>> part(static_cast<size_t>(threads));
    struct Ctx {
      std::vector<std::vector<u64>>* part;
      size_t n;
      F* make;
    } ctx{&part, n, &make};
    host_ranges(
        particles, kHostRowGrain,
        [](void* c, int64_t a, int64_t b, int thread) {
          Ctx& x = *static_cast<Ctx*>(c);
          std::vector<u64>& mine = (*x.part)[static_cast<size_t>(thread)];
          mine.assign(x.n, 0);
          auto f = (*x.make)(mine.data());
          for (int64_t i = a; i < b; ++i) f(i);
        },
        &ctx);
    for (const std::vector<u64>& p : part)
      for (size_t k = 0; k < p.size(); ++k) out[k] += p[k];
  }
  comm.allreduce(out.data(), static_cast<int64_t>(n), PVEC_UINT64, AllreduceOp::sum);
  return out;
}

// One quantile to place: dimension d, target weight below the cut.
struct Target {
  int d;
  unsigned __int128 below;
  int bin = -1;                  // the coarse bin it falls in
  unsigned __int128 before = 0;  // the weight of the coarse bins below that one
  double cut = 0;
  unsigned __int128 reached = 0;  // the weight below the cut placed (as the histograms say)
};

// Subdomain surface of a grid (the ghost layer's size, up to the ghost width).
double surface(const CartGrid& g) {
  double s = 0;
  for (int a = 0; a < g.dim; ++a) {
    double face = 1;
    for (int b = 0; b < g.dim; ++b)
      if (b != a) face *= g.length(b) / g.dims[b];
    s += face;
  }
  return g.dim == 1 ? 1.0 : s;
}

template <class T, class W>
CartGrid balance(ParticleSet& ps, const Communicator& comm, const CartGrid& current, int weight_col,
                 double wmax, bool device, BalanceScratch& scratch) {
  const Exec ex = ps.exec(device);
  const int64_t n = ps.n_local(), cap = ps.capacity();
  const int P = comm.size();
  const T* pos = static_cast<const T*>(ps.column(0).mirror(device));
  const W* w =
      weight_col < 0 ? nullptr : static_cast<const W*>(ps.column(weight_col).mirror(device));
  // The equal grid of this rank count (the least subdomain surface), the first candidate.
  CartGrid base = current;
  const int dim = base.dim;
  double lengths[PVEC_MAX_DIM];
  for (int d = 0; d < dim; ++d) lengths[d] = base.length(d);
  choose_grid_dims(P, dim, lengths, base.dims);
  base.set_cells();

  // The scale of the weights: 2^24 for the largest over every rank.
  double scale = 1;
  if (w != nullptr) {
    if (wmax > 0)
      scale = kQuantum / wmax;
    else
      w = nullptr;  // no weight anywhere: count particles
  }

  double inv_bin[PVEC_MAX_DIM] = {1, 1, 1, 1}, bin[PVEC_MAX_DIM] = {1, 1, 1, 1};
  for (int d = 0; d < dim; ++d) {
    bin[d] = base.length(d) / kBins;
    inv_bin[d] = kBins / base.length(d);
  }
  const std::vector<u64> coarse =
      count(ex, scratch.hist, static_cast<size_t>(dim) * kBins, n, comm, [&](u64* h) {
        CoarsePass<T, W> f{base, pos, cap, w, scale, {}, h};
        for (int d = 0; d < dim; ++d) f.inv_bin[d] = inv_bin[d];
        return f;
      });
  unsigned __int128 total = 0;
  for (int b = 0; b < kBins; ++b) total += coarse[b];

  // The candidates: the equal grid's factorisation, and slabs along each dimension.
  std::vector<CartGrid> cand;
  cand.push_back(base);
  for (int d = 0; d < dim && P > 1; ++d) {
    CartGrid s = base;
    for (int k = 0; k < PVEC_MAX_DIM; ++k) s.dims[k] = 1;
    s.dims[d] = P;
    bool same = false;
    for (const CartGrid& c : cand) same = same || std::equal(c.dims, c.dims + dim, s.dims);
    if (!same && P - 1 <= CartGrid::kMaxCuts) cand.push_back(s);
  }
  // Every (dimension, cell count) a candidate needs, and its quantiles.
  std::vector<std::pair<int, int>> splits;
  for (const CartGrid& c : cand)
    for (int d = 0; d < dim; ++d)
      if (c.dims[d] > 1 &&
          std::find(splits.begin(), splits.end(), std::make_pair(d, c.dims[d])) == splits.end())
        splits.emplace_back(d, c.dims[d]);
  std::vector<Target> targets;
  for (const auto& [d, k] : splits)
    for (int j = 1; j < k; ++j) targets.push_back(Target{d, total * j / k});
  // The index of the first target of split (d, k): targets go split after split.
  auto first_target = [&](int d, int k) {
    size_t at = 0;
    for (const auto& [sd, sk] : splits) {
      if (sd == d && sk == k) break;
      at += static_cast<size_t>(sk - 1);
    }
    return at;
  };
  // Coarse: the bin where the weight below reaches the target.
  std::vector<int32_t> request(static_cast<size_t>(dim) * kBins, -1);
  int32_t requests = 0;
  for (Target& t : targets) {
    unsigned __int128 below = 0;
    int b = 0;
    while (b + 1 < kBins && below + coarse[t.d * kBins + b] < t.below)
      below += coarse[t.d * kBins + b++];
    t.bin = b;
    t.before = below;
    int32_t& r = request[static_cast<size_t>(t.d) * kBins + b];
    if (r < 0) r = requests++;
  }
  // Fine: the sub-bins of the requested bins.
  std::vector<u64> fine;
  if (requests > 0) {
    int32_t* req = request.data();
    if (ex.on_device) {
      req = scratch.request.ensure_as<int32_t>(request.size());
      copy_bytes(req, request.data(), request.size() * sizeof(int32_t), true, ex.stream);
    }
    fine = count(ex, scratch.refine, static_cast<size_t>(requests) * kSub, n, comm, [&](u64* h) {
      FinePass<T, W> f{base, pos, cap, w, scale, {}, {}, req, h};
      for (int d = 0; d < dim; ++d) {
        f.inv_bin[d] = inv_bin[d];
        f.bin[d] = bin[d];
      }
      return f;
    });
  }
  for (Target& t : targets) {
    const int32_t r = request[static_cast<size_t>(t.d) * kBins + t.bin];
    const u64* sub = fine.data() + static_cast<size_t>(r) * kSub;
    // The sub-bin edge whose weight below is nearest the target (the lower one on a tie).
    unsigned __int128 below = t.before;
    int s = 0;
    while (s < kSub && below + sub[s] < t.below) below += sub[s++];
    unsigned __int128 lower = below, upper = s < kSub ? below + sub[s] : below;
    const bool up = s < kSub && (upper - t.below) < (t.below - lower);
    const double lo_b = base.lo[t.d] + t.bin * bin[t.d];
    t.cut = lo_b + (s + (up ? 1 : 0)) * (bin[t.d] / kSub);
    t.reached = up ? upper : lower;
  }

  // Each candidate with its cuts, and its heaviest box.
  std::vector<double> heaviest;
  for (CartGrid& c : cand) {
    std::vector<std::vector<double>> cuts(static_cast<size_t>(dim));
    const double* interior[PVEC_MAX_DIM] = {nullptr, nullptr, nullptr, nullptr};
    int needed = 0;
    for (int d = 0; d < dim; ++d) needed += c.dims[d] - 1;
    for (int d = 0; d < dim && needed <= CartGrid::kMaxCuts; ++d) {
      if (c.dims[d] == 1) continue;
      const size_t at = first_target(d, c.dims[d]);
      std::vector<double>& v = cuts[static_cast<size_t>(d)];
      for (int j = 0; j + 1 < c.dims[d]; ++j) {
        double x = targets[at + static_cast<size_t>(j)].cut;
        // Strictly increasing and strictly inside: particles piled on one value leave empty
        // cells of one ulp rather than cuts that coincide.
        const double floor_x = v.empty() ? c.lo[d] : v.back();
        if (!(x > floor_x)) x = std::nextafter(floor_x, c.hi[d]);
        v.push_back(x);
      }
      if (valid_cuts(c, d, v.data(), nullptr)) interior[d] = v.data();
    }
    c.set_cuts(interior);
    // Slabs (one cut dimension): the box weights are the differences of the weights below
    // consecutive cuts, which the histograms gave. Grids cut along several dimensions: a pass
    // counts them.
    int cut_dims = 0, slab_d = 0;
    for (int d = 0; d < dim; ++d)
      if (c.dims[d] > 1) ++cut_dims, slab_d = d;
    if (cut_dims == 1 && interior[slab_d] != nullptr) {
      const size_t at = first_target(slab_d, c.dims[slab_d]);
      unsigned __int128 prev = 0, most = 0;
      for (int j = 0; j < c.dims[slab_d]; ++j) {
        const unsigned __int128 next =
            j + 1 < c.dims[slab_d] ? targets[at + static_cast<size_t>(j)].reached : total;
        const unsigned __int128 box = next > prev ? next - prev : 0;
        most = std::max(most, box);
        prev = next;
      }
      heaviest.push_back(static_cast<double>(most));
      continue;
    }
    const std::vector<u64> boxes =
        count(ex, scratch.boxes, static_cast<size_t>(P), n, comm,
              [&](u64* h) { return BoxPass<T, W>{c, pos, cap, w, scale, h}; });
    heaviest.push_back(static_cast<double>(*std::max_element(boxes.begin(), boxes.end())));
  }
  // The least surface among the candidates within 2% of the lightest heaviest box (the first
  // in candidate order on a tie): the same choice on every rank.
  const double lightest = *std::min_element(heaviest.begin(), heaviest.end());
  size_t pick = 0;
  for (size_t k = 0; k < cand.size(); ++k)
    if (heaviest[k] <= lightest * 1.02 &&
        (heaviest[pick] > lightest * 1.02 || surface(cand[k]) < surface(cand[pick])))
      pick = k;
  return cand[pick];
}

}  // namespace

CartGrid balanced_grid(ParticleSet& ps, const Communicator& comm, const CartGrid& current,
                       int weight_col, double wmax, bool device, BalanceScratch& scratch) {
  if (device) ps.flush_device();
  CartGrid out;
  with_pos_type(ps.column(0).spec.dtype, [&](auto t) {
    using T = decltype(t);
    const pvec_dtype wt = weight_col < 0 ? PVEC_FLOAT64 : ps.column(weight_col).spec.dtype;
    if (wt == PVEC_FLOAT32)
      out = balance<T, float>(ps, comm, current, weight_col, wmax, device, scratch);
    else
      out = balance<T, double>(ps, comm, current, weight_col, wmax, device, scratch);
  });
  return out;
}

}  // namespace pvec::impl
