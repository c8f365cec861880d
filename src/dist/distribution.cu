// map, ghost_get and ghost_put. Each runs on the host mirrors or, with PVEC_ON_DEVICE, on the
// device mirrors; the steps are the same element functions (dist_kernels.cuh) launched by
// for_each, so the host backend in CI runs the logic the GPU runs.
#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "backend/kernels.hpp"
#include "backend/primitives.hpp"
#include "backend/select_if.cuh"
#include "core/error.hpp"
#include "dist/dist_kernels.cuh"
#include "dist/dist_vector.hpp"
#include "dist/environment.hpp"
#include "dist/ghost_plan.hpp"
#include "dist/message_layout.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <type_traits>
#include <utility>

namespace pvec::detail {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Calls f(std::integral_constant<int, D>) for the vector's dimension D.
template <class F>
void with_dim(int dim, F&& f) {
  switch (dim) {
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    case 3:
      f(std::integral_constant<int, 3>{});
      break;
    default:
      f(std::integral_constant<int, 4>{});
      break;
  }
}

template <class F>
void with_pos_type(pvec_dtype t, F&& f) {
  if (t == PVEC_FLOAT32)
    f(float{});
  else
    f(double{});
}

template <class F>
void with_dtype(pvec_dtype t, F&& f) {
  switch (t) {
    case PVEC_FLOAT32:
      f(float{});
      break;
    case PVEC_FLOAT64:
      f(double{});
      break;
    case PVEC_INT32:
      f(int32_t{});
      break;
    case PVEC_INT64:
      f(int64_t{});
      break;
    case PVEC_UINT32:
      f(uint32_t{});
      break;
    default:
      f(uint64_t{});
      break;
  }
}

// The subdomain shrunk by the ghost width on every side with a neighbour: a particle inside
// is a ghost nowhere (GhostNear). Non-periodic domain boundaries have no neighbour; across a
// periodic one the images are tested on coordinates rounded to T, so the band gives way by a
// few units in the last place there.
template <class T, int DIM>
Band<T, DIM> inner_band(const CartGrid& g, int me, double width) {
  int c[PVEC_MAX_DIM] = {0, 0, 0, 0};
  g.cells_of_rank(me, c);
  const double eps = sizeof(T) == 4 ? 1.1920928955078125e-7 : 2.220446049250313e-16;
  double lo[DIM], hi[DIM];
  for (int d = 0; d < DIM; ++d) {
    const double slack = 4 * eps * (std::fabs(g.lo[d]) + std::fabs(g.hi[d]) + g.length(d));
    const bool first = c[d] == 0, last = c[d] == g.dims[d] - 1;
    lo[d] = g.edge(d, c[d]) + (first && !g.periodic[d] ? 0 : width + (first ? slack : 0));
    hi[d] = g.edge(d, c[d] + 1) - (last && !g.periodic[d] ? 0 : width + (last ? slack : 0));
  }
  return band_of<T, DIM>(lo, hi);
}

// The bit of LabelOwner's answer that map votes into words (its movers).
constexpr int kMoverBit = 1;
static_assert(LabelOwner<float, 1>::kMover == 1u << kMoverBit, "kMoverBit names kMover");

// The components of a message for the row kernels (PackRows, MoveRows, UnpackRows), in
// slices of at most kRowComps of one element size, one launch each. The addresses are final only
// once the growth is installed. shift_positions: the position components take the entries' periodic
// shifts.
std::vector<RowTable> row_tables(const ParticleSet& ps, const MessageLayout& layout, bool device,
                                 bool shift_positions, const CartGrid& grid) {
  std::vector<RowTable> tables;
  const int64_t cap = ps.capacity();
  for (size_t q = 0; q < layout.cols.size(); ++q) {
    const PropertyBuffer& c = ps.column(layout.cols[q]);
    const int64_t e = static_cast<int64_t>(c.spec.elem_size);
    const bool pos = shift_positions && layout.cols[q] == 0;
    for (int64_t i = 0; i < c.spec.ncomp; ++i) {
      if (tables.empty() || tables.back().n == kRowComps || tables.back().wide != (e == 8)) {
        tables.emplace_back();
        tables.back().wide = e == 8;
      }
      RowTable& t = tables.back();
      const int f = t.n++;
      t.row[f] = static_cast<char*>(const_cast<void*>(c.mirror(device))) + i * cap * e;
      t.msg[f] = layout.col_prefix[q] + i * e;
      t.shift[f] = static_cast<int8_t>(pos ? i : -1);
      t.step[f] = pos ? grid.length(static_cast<int>(i)) : 0.0;
    }
  }
  return tables;
}

// Where the entries of a ghost plan go (ghost_get) or come from (ghost_put): peers holds the
// per-peer block offsets, first entries and counts (3 P words); this rank's own images are the
// ghost rows from n + recv_first[me]. With one rank the plan has no peer array: every entry is
// an own image.
BlockIndex plan_index(const GhostPlan& plan, const int64_t* peers, int P, int me, int64_t n) {
  return BlockIndex{P == 1 ? nullptr : static_cast<const int32_t*>(plan.peer.data()),
                    peers,
                    peers + P,
                    peers + 2 * P,
                    me,
                    n + plan.recv_first[me]};
}

}  // namespace

void DistVector::reserve_peers(bool device, size_t words) {
  ws_.host[Workspace::kPeers].ensure_as<int64_t>(words);
  if (device && ps_->cuda()) ws_.dev[Workspace::kPeers].ensure_as<int64_t>(words);
}

int64_t* DistVector::upload_peers(bool device,
                                  const std::vector<const std::vector<int64_t>*>& arrays) {
  size_t total = 0;
  for (auto* a : arrays) total += a->size();
  reserve_peers(device, total);
  int64_t* h = static_cast<int64_t*>(ws_.host[Workspace::kPeers].data());
  size_t at = 0;
  for (auto* a : arrays) {
    std::copy(a->begin(), a->end(), h + at);
    at += a->size();
  }
  if (!(device && ps_->cuda())) return h;
  int64_t* d = static_cast<int64_t*>(ws_.dev[Workspace::kPeers].data());
  copy_bytes(d, h, total * sizeof(int64_t), true, ps_->stream());
  return d;
}

template <class F>
void DistVector::agree(const char* what, F&& f) {
  comm_->agree(what, std::forward<F>(f));
}

bool DistVector::prepare_exchange(bool device, int64_t recv_total) {
  if (ipc_ == nullptr) return false;
  // Bookkeeping of the exchange (an MPI collective, where the ranks also wait for each
  // other): counted as exchange time, not as the compute time that runs around it.
  auto t0 = Clock::now();
  const bool ipc = ipc_->prepare(device && ps_->cuda(), recv_total);
  const double dt = seconds_since(t0);
  stats_.exchange_seconds += dt;
  stats_.compute_seconds -= dt;
  return ipc;
}

const char* DistVector::exchange(bool device, bool ipc, const void* send,
                                 const std::vector<int64_t>& send_bytes,
                                 const std::vector<int64_t>& send_displs, void* recv,
                                 const std::vector<int64_t>& recv_bytes,
                                 const std::vector<int64_t>& recv_displs) {
  const int P = comm_->size(), me = comm_->rank();
  // A rank's own block is always empty: map sends nothing to itself, and ghost_get/ghost_put
  // write or read their own periodic images in place.
  if (send_bytes[me] != 0 || recv_bytes[me] != 0)
    fail(PVEC_ERROR_INTERNAL, "a message block from a rank to itself");
  int64_t send_total = 0, recv_total = 0;
  for (int r = 0; r < P; ++r) {
    send_total += send_bytes[r];
    recv_total += recv_bytes[r];
  }
  stats_.bytes_sent += send_total;
  stats_.bytes_received += recv_total;
  auto t0 = Clock::now();
  const bool on_gpu = device && ps_->cuda();
  if (on_gpu) ps_->sync_stream();  // packing done before MPI reads the buffers
  stats_.transport = P == 1                        ? PVEC_TRANSPORT_NONE
                     : ipc                         ? PVEC_TRANSPORT_CUDA_IPC
                     : !on_gpu || mpi_cuda_aware() ? PVEC_TRANSPORT_MPI
                                                   : PVEC_TRANSPORT_MPI_STAGED;
  if (ipc) {
    // Every rank takes part, with or without blocks of its own.
    recv = const_cast<void*>(
        ipc_->exchange(send, send_bytes, send_displs, recv_displs, ps_->stream()));
  } else if (send_total + recv_total == 0) {
    // nothing for MPI
  } else if (!on_gpu || mpi_cuda_aware()) {
    comm_->exchange_data(send, send_bytes, send_displs, recv, recv_bytes, recv_displs);
  } else {
    // Stage through pinned host buffers kept in the workspace: one copy each way of the
    // whole message area.
    const int64_t send_span = send_displs[P - 1] + send_bytes[P - 1];
    const int64_t recv_span = recv_displs[P - 1] + recv_bytes[P - 1];
    void* hs = ws_.host[Workspace::kSend].ensure(std::max<int64_t>(send_span, 1));
    void* hr = ws_.host[Workspace::kRecv].ensure(std::max<int64_t>(recv_span, 1));
    copy_bytes(hs, send, send_span, true, ps_->stream());
    ps_->sync_stream();
    comm_->exchange_data(hs, send_bytes, send_displs, hr, recv_bytes, recv_displs);
    copy_bytes(recv, hr, recv_span, true, ps_->stream());
    ps_->sync_stream();
  }
  stats_.exchange_seconds += seconds_since(t0);
  return static_cast<const char*>(recv);
}

int64_t DistVector::map(unsigned flags) {
  stats_ = OpStats{};
  auto t_start = Clock::now();
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const bool remove_outside = (flags & PVEC_MAP_REMOVE_OUTSIDE) != 0;
  ParticleSet& ps = *ps_;
  const Exec ex = ps.exec(device);
  ScratchBuffer* side = ws_.side(device && ps.cuda());
  const int P = comm_->size(), me = comm_->rank();
  const int64_t n = ps.n_local();

  ps.sync_stream();
  ps.flush_device();
  // 1. Label owners without changing anything; the same pass counts the particles outside,
  // the movers and the periodic coordinates that need wrapping.
  // The pass also votes the movers into words of 32 bits (kIndexB, free until the tail is
  // selected), from which step 3 lists them (with one rank, the particles to remove).
  int32_t* dest = nullptr;
  uint8_t* wrap_flag = nullptr;
  uint32_t* mover_votes = nullptr;
  const int64_t n_words = (n + 31) / 32;
  int64_t outside = 0, m = 0, to_wrap = 0;
  agree("pvec_map: labelling", [&] {
    dest = side[Workspace::kLabels].ensure_as<int32_t>(std::max<int64_t>(n, 1));
    mover_votes = side[Workspace::kIndexB].ensure_as<uint32_t>(std::max<int64_t>(n_words, 1));
    // Padded for WrapPositions' 16-byte loads (the pad bytes are never acted on).
    wrap_flag = side[Workspace::kFlags].ensure_as<uint8_t>((n / kWrapChunk + 1) * kWrapChunk);
    with_pos_type(pos_dtype_, [&](auto t) {
      using T = decltype(t);
      with_dim(grid_.dim, [&](auto D) {
        using Label = LabelOwner<T, D.value>;
        int64_t counts[3];
        for_each_count(ex, n,
                       Label{grid_, static_cast<const T*>(ps.column(0).mirror(device)),
                             ps.capacity(), dest, wrap_flag, me, own_band<T, D.value>(grid_, me)},
                       side[Workspace::kTemp], counts, mover_votes, kMoverBit);
        outside = counts[0];
        m = counts[1];
        to_wrap = counts[2];
      });
    });
  });
  // 2. Decide together: a bad particle anywhere leaves every rank untouched.
  const int64_t outside_global = comm_->allreduce_sum(outside);
  if (outside_global > 0 && !remove_outside)
    fail(PVEC_ERROR_PARTICLES_OUTSIDE, outside_global,
         " particle(s) outside the non-periodic domain or with a NaN/Inf coordinate (", outside,
         " on this rank); no rank changed anything. Pass PVEC_MAP_REMOVE_OUTSIDE to "
         "remove them instead");

  // 3. Movers (ascending index: their rows are the holes the arrivals fill); 4. the movers
  // sorted by destination (outside particles get key P and are not sent).
  int64_t *movers = nullptr, *tail = nullptr, *order = nullptr;
  int32_t* keys = nullptr;
  int64_t h = 0;
  std::vector<int64_t> bounds(P + 2, 0);
  agree("pvec_map: selecting movers", [&] {
    if (m == 0) return;  // the common step of a 1-rank run: nothing leaves, nothing to sort
    movers = side[Workspace::kIndexA].ensure_as<int64_t>(m);
    const int64_t selected =
        voted_indices(ex, mover_votes, n_words, IndexList{movers, false}, side[Workspace::kTemp]);
    if (selected != m)
      fail(PVEC_ERROR_INTERNAL, "pvec_map: ", selected, " movers selected, ", m, " counted");
    keys = side[Workspace::kKeysAlt].ensure_as<int32_t>(2 * m);
    order = side[Workspace::kValsAlt].ensure_as<int64_t>(m);
    for_each(ex, m, MoverKeys{dest, movers, keys, order, P});
    // The send and receive slots serve as the sort's alternate buffers until packing.
    sort_pairs(ex, keys, order, m, P, side[Workspace::kTemp], side[Workspace::kSend],
               side[Workspace::kRecv]);
    bucket_bounds(ex, keys, m, P + 1, bounds.data(), side[Workspace::kTemp]);
  });
  const int64_t n_stay = n - m;
  std::vector<int64_t> send_count(P), send_first(P);
  for (int r = 0; r < P; ++r) {
    send_first[r] = bounds[r];
    send_count[r] = bounds[r + 1] - bounds[r];
  }
  const int64_t removed_here = m - bounds[P];
  const int64_t n_send = bounds[P];

  // 5. Counts, then make room for everything before changing anything.
  std::vector<int64_t> recv_count;
  comm_->exchange_counts(send_count, recv_count);
  std::vector<int64_t> recv_first(P, 0);
  int64_t n_recv = 0;
  for (int r = 0; r < P; ++r) {
    recv_first[r] = n_recv;
    n_recv += recv_count[r];
  }
  const int64_t n_new = n_stay + n_recv;
  MessageLayout layout(ps, columns_of(nullptr, 0, true));
  std::vector<int64_t> send_bytes, send_displs, recv_bytes, recv_displs;
  const int64_t send_total = layout.offsets(send_count, send_bytes, send_displs, me);
  const int64_t recv_total = layout.offsets(recv_count, recv_bytes, recv_displs, me);
  const bool ipc = prepare_exchange(device, recv_total);
  // keys/order live in the kKeysAlt/kValsAlt slots; send and recv get their own. Growth
  // comes last: it is the only step here that changes the vector.
  char *sendbuf = nullptr, *recvbuf = nullptr;
  int64_t* peers = nullptr;
  ParticleSet::Reservation growth;
  // Room for the per-peer arrays is reserved here, so that the upload after growth allocates
  // nothing.
  agree("pvec_map: making room", [&] {
    sendbuf = static_cast<char*>(side[Workspace::kSend].ensure(std::max<int64_t>(send_total, 8)));
    if (!ipc)  // with IPC the blocks land in the IPC buffer
      recvbuf = static_cast<char*>(side[Workspace::kRecv].ensure(std::max<int64_t>(recv_total, 8)));
    if (n_new < n) {
      // Fewer arrive than leave: the stayers in rows [n_new, n) fill the holes the arrivals
      // leave below n_new (as many as there are such stayers, at most m - n_recv).
      tail = side[Workspace::kIndexB].ensure_as<int64_t>(m);
      h = select_indices(ex, dest, n_new, n, me, true, tail, side[Workspace::kTemp]);
      if (h > m - n_recv)
        fail(PVEC_ERROR_INTERNAL, "pvec_map: ", h, " stayers beyond the new end, at most ",
             m - n_recv, " expected");
    }
    reserve_peers(device, 6 * P);
    growth = ps.reserve_growth(n_new);
  });
  ps.install_growth(growth);  // may reallocate: take column pointers after this
  const int64_t cap = ps.capacity();
  const std::vector<RowTable> tables = row_tables(ps, layout, device, false, grid_);
  peers = upload_peers(
      device, {&send_displs, &send_first, &send_count, &recv_displs, &recv_first, &recv_count});
  BlockIndex at{keys, peers, peers + P, peers + 2 * P, -1, 0};

  // 6. Commit: wrap periodic coordinates, pack the movers, move the stayers beyond the new
  // end into holes, exchange, unpack the arrivals into the other holes and after the old end.
  if (to_wrap > 0)
    with_pos_type(pos_dtype_, [&](auto t) {
      using T = decltype(t);
      with_dim(grid_.dim, [&](auto D) {
        for_each(ex, (n + kWrapChunk - 1) / kWrapChunk,
                 WrapPositions<T, D.value>{grid_, static_cast<T*>(ps.column(0).mirror(device)), cap,
                                           wrap_flag, n});
      });
    });
  for (const RowTable& t : tables) {
    for_each(ex, n_send, PackRows<float>{t, at, sendbuf, IndexList{order, false}, nullptr});
    if (h > 0) for_each(ex, h, MoveRows{t, movers + n_recv, tail});
  }
  ps.sync_stream();  // queued kernels belong to the compute time
  stats_.compute_seconds += seconds_since(t_start);
  const char* got =
      exchange(device, ipc, sendbuf, send_bytes, send_displs, recvbuf, recv_bytes, recv_displs);
  auto t_unpack = Clock::now();
  for (const RowTable& t : tables)
    for_each(ex, n_recv,
             UnpackRows{t, got, peers + 3 * P, peers + 4 * P, peers + 5 * P, P, movers, m, n});
  ps.sync_stream();
  ps.set_sizes(n_new, 0);
  ps.bump_generation();
  forget_ghost_plan();
  stats_.particles_sent = n_send;
  stats_.particles_received = n_recv;
  stats_.compute_seconds += seconds_since(t_unpack);
  return comm_->allreduce_sum(removed_here);
}

void DistVector::ghost_get(const int* props, int nprops, unsigned flags) {
  stats_ = OpStats{};
  auto t_start = Clock::now();
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const bool reuse = (flags & PVEC_GHOST_REUSE_PLAN) != 0;
  const bool skip_pos = (flags & PVEC_GHOST_SKIP_POSITIONS) != 0;
  ParticleSet& ps = *ps_;
  const bool gpu = device && ps.cuda();
  const Exec ex = ps.exec(device);
  ScratchBuffer* side = ws_.side(gpu);
  const int P = comm_->size(), me = comm_->rank();
  std::vector<int> cols = columns_of(props, nprops, false);
  if (skip_pos && !reuse)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "PVEC_GHOST_SKIP_POSITIONS needs PVEC_GHOST_REUSE_PLAN (positions decide the plan)");
  if (reuse) {
    // Every rank must agree that its plan is still valid, or none replays.
    bool ok = plan_ && plan_->valid && plan_->on_device == device &&
              plan_->n_local == ps.n_local() && (!skip_pos || ps.n_ghost() == plan_->n_recv);
    if (comm_->any(!ok))
      fail(PVEC_ERROR_INVALID_ARGUMENT,
           "PVEC_GHOST_REUSE_PLAN: no valid plan from a previous ghost_get on this side (the "
           "particles changed, or the previous call ran on the other mirror)");
  }
  if (!skip_pos && std::find(cols.begin(), cols.end(), 0) == cols.end())
    cols.insert(cols.begin(), 0);  // the positions travel once, listed or not
  ps.sync_stream();
  ps.flush_device();

  const int64_t n = ps.n_local();
  if (!reuse) {
    // Keep the previous plan's buffers when it ran on the same side: no allocation in
    // steady state.
    std::unique_ptr<GhostPlan> plan = std::move(plan_);
    if (!plan || plan->on_device != device) {
      plan = std::make_unique<GhostPlan>();
      MemKind kind = gpu ? MemKind::device : MemKind::host;
      plan->src.set_kind(kind);
      plan->peer.set_kind(kind);
      plan->shift.set_kind(kind);
    }
    plan->on_device = device;
    plan->valid = true;
    plan->n_local = n;
    // Particle indices in 4 bytes where they fit (the near list, the plan's sources).
    const bool narrow = narrow_indices(n);
    const int64_t ie = IndexList::elem_size(narrow);
    plan->narrow_src = narrow;
    // Select the particles near a subdomain boundary, count their candidates, place them,
    // sort by destination rank.
    int64_t total = 0;
    try {
      agree("pvec_ghost_get: building the plan", [&] {
        with_pos_type(pos_dtype_, [&](auto t) {
          using T = decltype(t);
          const T* pos = static_cast<const T*>(ps.column(0).mirror(device));
          // The particles near a subdomain boundary.
          const IndexList near{side[Workspace::kIndexB].ensure(std::max<int64_t>(n, 1) * ie),
                               narrow};
          // On the device, after a first plan, the host does not wait for the number of near
          // particles: the count pass makes room for a few more than last time and reads the
          // number on the device, and the synchronisation after the scan of the counts brings
          // both numbers back. Only more near particles than room repeat the count and scan.
          // The counts: [count per near particle (0 beyond them) | the total after the scan |
          // near count].
          const bool speculate = gpu && near_hint_ >= 0;
          int64_t nb = 0, room = 0;
          int64_t* count = nullptr;
          const int64_t* nb_dev = nullptr;
          uint32_t* words = nullptr;
          auto make_room = [&](int64_t r) {
            room = r;
            count = side[Workspace::kIndexA].ensure_as<int64_t>(room + 2);
            // The count pass's records as cell words, for the fill pass (kKeysAlt is free
            // until the sort after the fill).
            words = side[Workspace::kKeysAlt].ensure_as<uint32_t>(std::max<int64_t>(room, 1));
          };
          with_dim(grid_.dim, [&](auto D) {
            GhostNear<T, D.value> f{inner_band<T, D.value>(grid_, me, ghost_width_), pos,
                                    ps.capacity()};
            // (the votes in kValsAlt, free until the sort after the fill)
            if (speculate) {
              make_room(std::min(n, near_hint_ + near_hint_ / 16 + 1024));
              nb_dev = count + room + 1;
              select_where_async(ex, n, f, near, side[Workspace::kValsAlt], side[Workspace::kTemp],
                                 count + room + 1);
            } else {
              nb = select_where(ex, n, f, near, side[Workspace::kValsAlt], side[Workspace::kTemp]);
              make_room(nb);
            }
          });
          int own[PVEC_MAX_DIM] = {0, 0, 0, 0};
          grid_.cells_of_rank(me, own);
          // Count pass, then fill pass (into the output arrays), the dimension a template
          // parameter.
          auto candidates = [&](bool fill, int32_t* pe, IndexList sr, int32_t* sh,
                                int64_t* packed) {
            with_dim(grid_.dim, [&](auto D) {
              constexpr int DIM = D.value;
              GhostCandidates<T, DIM> f{};
              f.g = grid_;
              f.width = ghost_width_;
              f.me = me;
              for (int d = 0; d < DIM; ++d) f.own[d] = own[d];
              f.pos = pos;
              f.cap = ps.capacity();
              f.inner = inner_band<T, DIM>(grid_, me, ghost_width_);
              f.peer = pe;
              f.src = sr;
              f.shift = sh;
              f.packed = packed;
              f.use_cells = near_cells<T, DIM>(grid_, me, ghost_width_, f.cells);
              if (fill)
                for_each(ex, nb, FillNear<T, DIM>{f, near, count, words});
              else
                for_each(ex, room + 1, CountNear<T, DIM>{f, near, count, words, room, nb_dev});
            });
          };
          candidates(false, nullptr, IndexList{}, nullptr, nullptr);
          total =
              exclusive_scan(ex, count, room, side[Workspace::kTemp], speculate ? &nb : nullptr);
          if (nb > room) {  // more near particles than room: again, with room for all
            make_room(nb);
            nb_dev = nullptr;
            candidates(false, nullptr, IndexList{}, nullptr, nullptr);
            total = exclusive_scan(ex, count, room, side[Workspace::kTemp]);
          }
          if (gpu) near_hint_ = nb;
          const int64_t slots = std::max<int64_t>(total, 1);
          const IndexList src_plan{plan->src.ensure(slots * ie), narrow};
          int32_t* shift_plan = plan->shift.ensure_as<int32_t>(slots);
          std::vector<int64_t> bounds(P + 1);
          if (P == 1) {
            // One destination: the entries are in plan order as the fill pass writes them,
            // and need no peer array (plan_index).
            candidates(true, nullptr, src_plan, shift_plan, nullptr);
            bounds = {0, total};
          } else {
            // The fill pass writes the entries' peers and payloads into scratch (not kIndexB,
            // kIndexA or kKeysAlt: it reads the near list, the offsets and the cell words from
            // there; kSend and kRecv are free until the messages are made after the plan),
            // and a stable sort by peer writes them in plan order. With narrow indices the
            // payload is source and shift packed in one word (pack_entry), split after the
            // sort; otherwise it is the entry's number, and source and shift are gathered by
            // it.
            int32_t* peer_plan = plan->peer.ensure_as<int32_t>(slots);
            int32_t* peer = side[Workspace::kLabels].ensure_as<int32_t>(slots);
            int64_t* sorted = side[Workspace::kValsAlt].ensure_as<int64_t>(slots);
            if (narrow) {
              int64_t* packed = side[Workspace::kSend].ensure_as<int64_t>(slots);
              candidates(true, peer, IndexList{}, nullptr, packed);
              sort_pairs_to(ex, peer, peer_plan, packed, sorted, total, P - 1,
                            side[Workspace::kTemp]);
              for_each(ex, total, UnpackEntries{sorted, src_plan, shift_plan});
            } else {
              const IndexList src{side[Workspace::kSend].ensure(slots * ie), narrow};
              int32_t* shift = side[Workspace::kRecv].ensure_as<int32_t>(slots);
              candidates(true, peer, src, shift, nullptr);
              int64_t* ids = side[Workspace::kIndexA].ensure_as<int64_t>(slots);
              for_each(ex, total, Iota{ids});
              sort_pairs_to(ex, peer, peer_plan, ids, sorted, total, P - 1, side[Workspace::kTemp]);
              gather_rows(ex, shift_plan, 0, shift, 0, sorted, total, 1, sizeof(int32_t));
              gather_rows(ex, src_plan.data, 0, src.data, 0, sorted, total, 1, ie);
            }
            bucket_bounds(ex, peer_plan, total, P, bounds.data(), side[Workspace::kTemp]);
          }
          plan->send_counts.resize(P);
          plan->send_first.resize(P);
          for (int r = 0; r < P; ++r) {
            plan->send_first[r] = bounds[r];
            plan->send_counts[r] = bounds[r + 1] - bounds[r];
          }
        });
      });
    } catch (...) {
      plan->valid = false;  // its buffers may be half rewritten; keep them for reuse
      plan_ = std::move(plan);
      throw;
    }
    plan->n_send = total;
    comm_->exchange_counts(plan->send_counts, plan->recv_counts);
    plan->recv_first.assign(P, 0);
    plan->n_recv = 0;
    for (int r = 0; r < P; ++r) {
      plan->recv_first[r] = plan->n_recv;
      plan->n_recv += plan->recv_counts[r];
    }
    plan_ = std::move(plan);
  }
  GhostPlan& plan = *plan_;

  // The messages: this rank's own periodic images are in none (PackRows writes them straight
  // into the ghost rows), so their blocks are empty.
  MessageLayout layout(ps, cols);
  std::vector<int64_t> send_bytes, send_displs, recv_bytes, recv_displs;
  const int64_t send_total = layout.offsets(plan.send_counts, send_bytes, send_displs, me);
  const int64_t recv_total = layout.offsets(plan.recv_counts, recv_bytes, recv_displs, me);
  const bool ipc = prepare_exchange(device, recv_total);
  char *sendbuf = nullptr, *recvbuf = nullptr;
  int64_t* peers = nullptr;
  ParticleSet::Reservation growth;
  agree("pvec_ghost_get: making room", [&] {
    sendbuf = static_cast<char*>(side[Workspace::kSend].ensure(std::max<int64_t>(send_total, 8)));
    if (!ipc)
      recvbuf = static_cast<char*>(side[Workspace::kRecv].ensure(std::max<int64_t>(recv_total, 8)));
    reserve_peers(device, 3 * P);  // as in map
    growth = ps.reserve_growth(n + plan.n_recv);
  });
  ps.install_growth(growth);
  const int64_t cap = ps.capacity();
  const std::vector<RowTable> tables = row_tables(ps, layout, device, true, grid_);
  peers = upload_peers(device, {&send_displs, &plan.send_first, &plan.send_counts});
  const BlockIndex at = plan_index(plan, peers, P, me, n);
  with_pos_type(pos_dtype_, [&](auto t) {  // shifting needs arithmetic in the position type
    using T = decltype(t);
    for (const RowTable& table : tables)
      for_each(ex, plan.n_send,
               PackRows<T>{table, at, sendbuf, plan.sources(),
                           static_cast<const int32_t*>(plan.shift.data())});
  });
  ps.sync_stream();  // queued kernels belong to the compute time
  stats_.compute_seconds += seconds_since(t_start);
  const char* got =
      exchange(device, ipc, sendbuf, send_bytes, send_displs, recvbuf, recv_bytes, recv_displs);
  auto t_unpack = Clock::now();
  for (int r = 0; r < P; ++r) {
    const int64_t k = plan.recv_counts[r];
    if (recv_bytes[r] == 0) continue;  // nothing received (or this rank's own images)
    for (size_t q = 0; q < layout.cols.size(); ++q) {
      PropertyBuffer& c = ps.column(layout.cols[q]);
      const size_t e = c.spec.elem_size;
      copy_2d(static_cast<char*>(c.mirror(device)) + (n + plan.recv_first[r]) * e, c.row_bytes(cap),
              got + recv_displs[r] + k * layout.col_prefix[q], k * e, k * e, c.spec.ncomp, gpu,
              ps.stream());
    }
  }
  ps.sync_stream();
  ps.set_sizes(n, plan.n_recv);
  stats_.particles_sent = plan.n_send;
  stats_.particles_received = plan.n_recv;
  stats_.particles_self = plan.send_counts[me];
  stats_.compute_seconds += seconds_since(t_unpack);
}

void DistVector::ghost_put(const int* props, int nprops, pvec_reduce_op op, unsigned flags) {
  stats_ = OpStats{};
  auto t_start = Clock::now();
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  ParticleSet& ps = *ps_;
  const bool gpu = device && ps.cuda();
  const Exec ex = ps.exec(device);
  ScratchBuffer* side = ws_.side(gpu);
  const int P = comm_->size(), me = comm_->rank();
  std::vector<int> cols = columns_of(props, nprops, false);
  bool ok = plan_ && plan_->valid && plan_->on_device == device && plan_->n_local == ps.n_local() &&
            ps.n_ghost() == plan_->n_recv;
  if (comm_->any(!ok))
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "ghost_put needs the ghosts of a previous ghost_get on the same side (mirror), with "
         "no particle added, removed or mapped since");
  GhostPlan& plan = *plan_;
  ps.sync_stream();
  ps.flush_device();
  const int64_t n = ps.n_local(), cap = ps.capacity();

  // Ghost values go back to their sources: the reverse of ghost_get's exchange. The values of
  // this rank's own images stay where they are: ReduceColumn reads them from the ghost rows.
  MessageLayout layout(ps, cols);
  std::vector<int64_t> send_bytes, send_displs, recv_bytes, recv_displs;
  const int64_t send_total = layout.offsets(plan.recv_counts, send_bytes, send_displs, me);
  const int64_t recv_total = layout.offsets(plan.send_counts, recv_bytes, recv_displs, me);
  const bool ipc = prepare_exchange(device, recv_total);
  char *sendbuf = nullptr, *recvbuf = nullptr;
  int64_t* peers = nullptr;
  agree("pvec_ghost_put: making room", [&] {
    sendbuf = static_cast<char*>(side[Workspace::kSend].ensure(std::max<int64_t>(send_total, 8)));
    if (!ipc)
      recvbuf = static_cast<char*>(side[Workspace::kRecv].ensure(std::max<int64_t>(recv_total, 8)));
    peers = upload_peers(device, {&recv_displs, &plan.send_first, &plan.send_counts});
  });
  for (int r = 0; r < P; ++r) {
    const int64_t k = plan.recv_counts[r];
    if (send_bytes[r] == 0) continue;  // nothing to send (or this rank's own images)
    for (size_t q = 0; q < layout.cols.size(); ++q) {
      const PropertyBuffer& c = ps.column(layout.cols[q]);
      const size_t e = c.spec.elem_size;
      copy_2d(sendbuf + send_displs[r] + k * layout.col_prefix[q], k * e,
              static_cast<const char*>(c.mirror(device)) + (n + plan.recv_first[r]) * e,
              c.row_bytes(cap), k * e, c.spec.ncomp, gpu, ps.stream());
    }
  }
  ps.sync_stream();  // queued kernels belong to the compute time
  stats_.compute_seconds += seconds_since(t_start);
  // (ReduceColumn only reads the received blocks.)
  char* got = const_cast<char*>(
      exchange(device, ipc, sendbuf, send_bytes, send_displs, recvbuf, recv_bytes, recv_displs));
  auto t_reduce = Clock::now();
  const BlockIndex at = plan_index(plan, peers, P, me, n);
  for (size_t k = 0; k < layout.cols.size(); ++k) {
    PropertyBuffer& c = ps.column(layout.cols[k]);
    with_dtype(c.spec.dtype, [&](auto t) {
      using T = decltype(t);
      ReduceColumn<T> f{at,  got,          plan.sources(),       static_cast<T*>(c.mirror(device)),
                        cap, c.spec.ncomp, layout.col_prefix[k], static_cast<int>(op)};
      for_each(ex, plan.n_send, f);
    });
  }
  ps.sync_stream();
  stats_.particles_sent = plan.n_recv;
  stats_.particles_received = plan.n_send;
  stats_.particles_self = plan.send_counts[me];
  stats_.compute_seconds += seconds_since(t_reduce);
}

}  // namespace pvec::detail
