// ghost_get: copies of the particles near this rank's subdomain, of any rank, appended as
// ghosts (pvec_ghost_get). Runs on the host or the device mirrors with the same element
// functions (halo/ghost_candidates.cuh, exchange/row_kernels.cuh).
#include "halo/ghost_get.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/clock.hpp"
#include "common/dispatch.hpp"
#include "backend/gather_rows.hpp"
#include "common/error.hpp"
#include "common/index_list.hpp"
#include "decomp/band.hpp"
#include "decomp/near_cells.hpp"
#include "exchange/message_layout.hpp"
#include "exchange/row_kernels_host.hpp"
#include "exchange/row_kernels.cuh"
#include "exchange/row_table.cuh"
#include "halo/ghost_candidates.cuh"
#include "halo/ghost_near.cuh"
#include "halo/ghost_blocks_host.hpp"
#include "halo/ghost_plan_host.hpp"
#include "halo/near_passes.cuh"
#include "halo/plan_index.cuh"
#include "halo/plan_runs.hpp"
#include "primitives/primitives.hpp"
#include "primitives/select_if.cuh"

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

namespace pvec::impl {

using U = Workspace::Use;

namespace {

// Tests: the host builds its plans with the device path's passes (force_generic_ghost_plan).
bool g_generic_plan = false;
// Tests: runs forced on (1) or off (0) in the host row kernels (force_plan_runs).
int g_plan_runs = -1;

// GhostCandidates of this rank for positions pos, without output arrays.
template <class T, int DIM>
GhostCandidates<T, DIM> make_candidates(const DistContext& ctx, const T* pos) {
  const int me = ctx.comm.rank();
  int own[PVEC_MAX_DIM] = {0, 0, 0, 0};
  ctx.grid.cells_of_rank(me, own);
  GhostCandidates<T, DIM> f{};
  f.g = ctx.grid;
  f.width = ctx.ghost_width;
  f.me = me;
  for (int d = 0; d < DIM; ++d) f.own[d] = own[d];
  f.pos = pos;
  f.cap = ctx.ps.capacity();
  f.inner = inner_band<T, DIM>(ctx.grid, me, ctx.ghost_width);
  f.use_cells = near_cells<T, DIM>(ctx.grid, me, ctx.ghost_width, f.cells);
  return f;
}

// The plan's entries on the host (halo/ghost_plan_host.hpp): two passes, no sort. Returns
// their number; bounds: the first entry of each rank, then the total.
template <class T>
int64_t host_entries(DistContext& ctx, GhostPlan& plan, const T* pos, bool narrow,
                     const Workspace::Side& side, int64_t* bounds) {
  const int P = ctx.comm.size();
  const int64_t n = ctx.ps.n_local();
  const int64_t ie = IndexList::elem_size(narrow);
  const IndexList records{side[U::near_list].ensure(std::max<int64_t>(n, 1) * ie), narrow};
  uint32_t* words = side[U::cell_words].ensure_as<uint32_t>(std::max<int64_t>(n, 1));
  int64_t total = 0;
  with_dim(ctx.grid.dim, [&](auto D) {
    constexpr int DIM = D.value;
    const GhostCandidates<T, DIM> f = make_candidates<T, DIM>(ctx, pos);
    const GhostNear<T, DIM> near{f.inner, pos, ctx.ps.capacity()};
    total = plan_entries_host(
        f, near, n, P, records, words, side[U::entry_cursors],
        [&](int64_t m) {
          const int64_t slots = std::max<int64_t>(m, 1);
          return std::make_pair(IndexList{plan.src.ensure(slots * ie), narrow},
                                plan.shift.ensure_as<int32_t>(slots));
        },
        bounds);
  });
  if (P > 1) {  // the entries' ranks, for the row kernels' BlockIndex and ghost_put
    int32_t* peer = plan.peer.ensure_as<int32_t>(std::max<int64_t>(total, 1));
    for (int r = 0; r < P; ++r) std::fill(peer + bounds[r], peer + bounds[r + 1], r);
  }
  return total;
}

// The plan's entries on the device (and on the host when a test asks for this path): select
// the particles near a subdomain boundary, count their candidates, scan, place them, sort by
// destination rank (halo/near_passes.cuh). Returns their number; bounds as host_entries'.
template <class T>
int64_t generic_entries(DistContext& ctx, GhostState& halo, GhostPlan* plan, const T* pos,
                        bool narrow, bool device, const Workspace::Side& side, int64_t* bounds) {
  ParticleSet& ps = ctx.ps;
  const bool gpu = device && ps.cuda();
  const Exec ex = ps.exec(device);
  const int P = ctx.comm.size(), me = ctx.comm.rank();
  const int64_t n = ps.n_local();
  const int64_t ie = IndexList::elem_size(narrow);
  // The particles near a subdomain boundary.
  const IndexList near{side[U::near_list].ensure(std::max<int64_t>(n, 1) * ie), narrow};
  // On the device, after a first plan, the host does not wait for the number of near
  // particles: the count pass makes room for a few more than last time and reads the
  // number on the device, and the synchronisation after the scan of the counts brings
  // both numbers back. Only more near particles than room repeat the count and scan.
  // The counts: [count per near particle (0 beyond them) | the total after the scan |
  // near count].
  const bool speculate = gpu && halo.near_hint >= 0;
  int64_t nb = 0, room = 0, total = 0;
  int64_t* count = nullptr;
  const int64_t* nb_dev = nullptr;
  uint32_t* words = nullptr;
  auto make_room = [&](int64_t r) {
    room = r;
    count = side[U::near_counts].ensure_as<int64_t>(room + 2);
    // The count pass's records as cell words, for the fill pass (kKeysAlt is free
    // until the sort after the fill).
    words = side[U::cell_words].ensure_as<uint32_t>(std::max<int64_t>(room, 1));
  };
  with_dim(ctx.grid.dim, [&](auto D) {
    GhostNear<T, D.value> f{inner_band<T, D.value>(ctx.grid, me, ctx.ghost_width), pos,
                            ps.capacity()};
    // (the votes in kValsAlt, free until the sort after the fill)
    if (speculate) {
      make_room(std::min(n, halo.near_hint + halo.near_hint / 16 + 1024));
      nb_dev = count + room + 1;
      select_where_async(ex, n, f, near, side[U::near_votes], side[U::temp], count + room + 1);
    } else {
      nb = select_where(ex, n, f, near, side[U::near_votes], side[U::temp]);
      make_room(nb);
    }
  });
  // Count pass, then fill pass (into the output arrays), the dimension a template
  // parameter.
  auto candidates = [&](bool fill, int32_t* pe, IndexList sr, int32_t* sh, int64_t* packed) {
    with_dim(ctx.grid.dim, [&](auto D) {
      constexpr int DIM = D.value;
      GhostCandidates<T, DIM> f = make_candidates<T, DIM>(ctx, pos);
      f.peer = pe;
      f.src = sr;
      f.shift = sh;
      f.packed = packed;
      if (fill)
        for_each_unordered(ex, nb, FillNear<T, DIM>{f, near, count, words});
      else
        for_each_unordered(ex, room + 1, CountNear<T, DIM>{f, near, count, words, room, nb_dev});
    });
  };
  candidates(false, nullptr, IndexList{}, nullptr, nullptr);
  total = exclusive_scan(ex, count, room, side[U::temp], speculate ? &nb : nullptr);
  if (nb > room) {  // more near particles than room: again, with room for all
    make_room(nb);
    nb_dev = nullptr;
    candidates(false, nullptr, IndexList{}, nullptr, nullptr);
    total = exclusive_scan(ex, count, room, side[U::temp]);
  }
  if (gpu) halo.near_hint = nb;
  const int64_t slots = std::max<int64_t>(total, 1);
  const IndexList src_plan{plan->src.ensure(slots * ie), narrow};
  int32_t* shift_plan = plan->shift.ensure_as<int32_t>(slots);
  if (P == 1) {
    // One destination: the entries are in plan order as the fill pass writes them,
    // and need no peer array (plan_index).
    candidates(true, nullptr, src_plan, shift_plan, nullptr);
    bounds[0] = 0;
    bounds[1] = total;
  } else {
    // The fill pass writes the entries' peers and payloads into scratch (not kIndexB,
    // kIndexA or kKeysAlt: it reads the near list, the offsets and the cell words from
    // there; kSend and kRecv are free until the messages are made after the plan),
    // and a stable sort by peer writes them in plan order. With narrow indices the
    // payload is source and shift packed in one word (pack_entry), split after the
    // sort; otherwise it is the entry's number, and source and shift are gathered by
    // it.
    int32_t* peer_plan = plan->peer.ensure_as<int32_t>(slots);
    int32_t* peer = side[U::entry_peers].ensure_as<int32_t>(slots);
    int64_t* sorted = side[U::sorted_payload].ensure_as<int64_t>(slots);
    if (narrow) {
      int64_t* packed = side[U::packed_entries].ensure_as<int64_t>(slots);
      candidates(true, peer, IndexList{}, nullptr, packed);
      sort_pairs_to(ex, peer, peer_plan, packed, sorted, total, P - 1, side[U::temp]);
      for_each_unordered(ex, total, UnpackEntries{sorted, src_plan, shift_plan});
    } else {
      const IndexList src{side[U::entry_sources].ensure(slots * ie), narrow};
      int32_t* shift = side[U::entry_shifts].ensure_as<int32_t>(slots);
      candidates(true, peer, src, shift, nullptr);
      int64_t* ids = side[U::entry_ids].ensure_as<int64_t>(slots);
      for_each(ex, total, Iota{ids});
      sort_pairs_to(ex, peer, peer_plan, ids, sorted, total, P - 1, side[U::temp]);
      gather_rows(ex, shift_plan, 0, shift, 0, sorted, total, 1, sizeof(int32_t));
      gather_rows(ex, src_plan.data, 0, src.data, 0, sorted, total, 1, ie);
    }
    bucket_bounds(ex, peer_plan, total, P, bounds, side[U::temp]);
  }
  return total;
}

// Builds the plan of a ghost_get (which local particle goes to which rank, with which periodic
// shift) from the positions: the entries of the particles near a subdomain boundary, sorted by
// destination rank (host_entries or generic_entries); then exchanges the counts. Collective. On
// failure the plan is kept but invalid (its buffers are reused).
void build_plan(DistContext& ctx, GhostState& halo, bool device) {
  ParticleSet& ps = ctx.ps;
  const bool gpu = device && ps.cuda();
  const Exec ex = ps.exec(device);
  const Workspace::Side side = ctx.ws.side(gpu);
  const int P = ctx.comm.size();
  const int64_t n = ps.n_local();
  // Keep the previous plan's buffers when it ran on the same side: no allocation in
  // steady state.
  std::unique_ptr<GhostPlan> plan = std::move(halo.plan);
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
  plan->narrow_src = narrow;
  int64_t total = 0;
  try {
    ctx.agree("pvec_ghost_get: building the plan", [&] {
      ctx.refuse_if_asked();
      with_pos_type(ctx.pos_dtype, [&](auto t) {
        using T = decltype(t);
        const T* pos = static_cast<const T*>(ps.column(0).mirror(device));
        std::vector<int64_t> bounds(P + 1);
        total = !ex.on_device && !g_generic_plan
                    ? host_entries<T>(ctx, *plan, pos, narrow, side, bounds.data())
                    : generic_entries<T>(ctx, halo, plan.get(), pos, narrow, device, side,
                                         bounds.data());
        plan->send_counts.resize(P);
        plan->send_first.resize(P);
        for (int r = 0; r < P; ++r) {
          plan->send_first[r] = bounds[r];
          plan->send_counts[r] = bounds[r + 1] - bounds[r];
        }
        plan->n_send = total;
        plan->n_runs = 0;
        if (!ex.on_device) make_plan_runs(*plan);
      });
    });
  } catch (...) {
    plan->valid = false;  // its buffers may be half rewritten; keep them for reuse
    halo.plan = std::move(plan);
    throw;
  }
  ctx.comm.exchange_counts(plan->send_counts, plan->recv_counts);
  plan->recv_first.assign(P, 0);
  plan->n_recv = 0;
  for (int r = 0; r < P; ++r) {
    plan->recv_first[r] = plan->n_recv;
    plan->n_recv += plan->recv_counts[r];
  }
  halo.plan = std::move(plan);
}

// A block of at least this many particles travels in pieces straight into the ghost rows
// (host_pieces): from there every piece (k elements) is large enough that its own message
// costs less than unpacking it; smaller blocks travel whole and are unpacked (at 10^5 particles
// per rank, 16 pieces of 20 KB each made plan reuse 0.1 ms slower than one message).
constexpr int64_t kPieceRows = 16384;
int64_t g_piece_rows = kPieceRows;  // tests: force_ghost_piece_rows

// The messages of a ghost_get on host memory as pieces (Communicator::exchange_pieces): for a
// block of kPieceRows particles or more, every component row of the block (k contiguous
// elements) is its own piece, sent from the packed block and received straight into the ghost
// rows it belongs to, so that the receiver unpacks nothing; a smaller block is one piece, from
// send + send_displs[r] into recv + recv_displs[r]. Sender and receiver decide alike: the
// sender's count for a rank is that rank's count from it. ps must have its final capacity.
void host_pieces(const ParticleSet& ps, const MessageLayout& layout, const GhostPlan& plan,
                 bool device, char* send, const std::vector<int64_t>& send_bytes,
                 const std::vector<int64_t>& send_displs, char* recv,
                 const std::vector<int64_t>& recv_bytes, const std::vector<int64_t>& recv_displs,
                 int me, std::vector<Communicator::Piece>& sends,
                 std::vector<Communicator::Piece>& recvs) {
  const int P = static_cast<int>(plan.send_counts.size());
  const int64_t n = ps.n_local(), cap = ps.capacity();
  for (int r = 0; r < P; ++r) {
    const int64_t ks = plan.send_counts[r], kr = plan.recv_counts[r];
    if (r == me) continue;
    if (ks > 0 && ks < g_piece_rows) sends.push_back({r, send + send_displs[r], send_bytes[r]});
    if (kr > 0 && kr < g_piece_rows) recvs.push_back({r, recv + recv_displs[r], recv_bytes[r]});
    for (size_t q = 0; q < layout.cols.size(); ++q) {
      const PropertyBuffer& c = ps.column(layout.cols[q]);
      const int64_t e = static_cast<int64_t>(c.spec.elem_size);
      char* rows = static_cast<char*>(const_cast<void*>(c.mirror(device)));
      for (int64_t comp = 0; comp < c.spec.ncomp; ++comp) {
        if (ks >= g_piece_rows)
          sends.push_back(
              {r, send + send_displs[r] + ks * (layout.col_prefix[q] + comp * e), ks * e});
        if (kr >= g_piece_rows)
          recvs.push_back({r, rows + (comp * cap + n + plan.recv_first[r]) * e, kr * e});
      }
    }
  }
}

// Packs the columns cols of the plan's entries for their ranks and posts the messages (own
// periodic images written in place); finish_ghosts completes them. Collective.
void start_ghosts(DistContext& ctx, const GhostPlan& plan, const std::vector<int>& cols,
                  bool device, Clock::time_point t_start, GhostFlight& f) {
  ParticleSet& ps = ctx.ps;
  const bool gpu = device && ps.cuda();
  const Exec ex = ps.exec(device);
  const Workspace::Side side = ctx.ws.side(gpu);
  const int P = ctx.comm.size(), me = ctx.comm.rank();
  const int64_t n = ps.n_local();

  // The messages: this rank's own periodic images are in none (PackRows writes them straight
  // into the ghost rows), so their blocks are empty.
  f.layout.emplace(ps, cols);
  const MessageLayout& layout = *f.layout;
  std::vector<int64_t>&send_bytes = f.send_bytes, &send_displs = f.send_displs,
  &recv_bytes = f.recv_bytes, &recv_displs = f.recv_displs;
  const int64_t send_total = layout.offsets(plan.send_counts, send_bytes, send_displs, me);
  const int64_t recv_total = layout.offsets(plan.recv_counts, recv_bytes, recv_displs, me);
  const Route route = ctx.prepare_exchange(device, send_total, recv_total);
  f.device = device;
  // Host memory and MPI: large blocks land in the ghost rows (host_pieces), the others in the
  // receive buffer, to be unpacked. Through shared memory every block is copied from its
  // sender's segment into the ghost rows.
  const bool pieces = !gpu && route == Route::mpi;
  f.pieces = pieces;
  auto landed = [&](int r) { return pieces && plan.recv_counts[r] >= g_piece_rows; };
  bool unpack = false;
  for (int r = 0; r < P; ++r) unpack = unpack || (recv_bytes[r] > 0 && !landed(r));
  char *sendbuf = nullptr, *recvbuf = nullptr;
  int64_t* peers = nullptr;
  ParticleSet::Reservation growth;
  ctx.agree("pvec_ghost_get: making room", [&] {
    sendbuf = ctx.send_buffer(device, route, send_total);
    // (8 bytes at least even when every block lands in place, as before the pieces: a later
    // ghost_put finds the buffer made and allocates nothing)
    if (route == Route::mpi)
      recvbuf = static_cast<char*>(
          side[U::recv].ensure(std::max<int64_t>(unpack || !pieces ? recv_total : 0, 8)));
    ctx.reserve_peers(device, 3 * P);  // as in map
    growth = ps.reserve_growth(n + plan.n_recv);
  });
  ps.install_growth(growth);
  const std::vector<RowTable> tables = row_tables(ps, layout, device, true, ctx.grid);
  peers = ctx.upload_peers(device, {&send_displs, &plan.send_first, &plan.send_counts});
  const BlockIndex at = plan_index(plan, peers, P, me, n);
  with_pos_type(ctx.pos_dtype, [&](auto t) {  // shifting needs arithmetic in the position type
    using T = decltype(t);
    const auto* shift = static_cast<const int32_t*>(plan.shift.data());
    for (const RowTable& table : tables) {
      if (ex.on_device)
        for_each(ex, plan.n_send, PackRows<T>{table, at, sendbuf, plan.sources(), shift});
      else  // the same copies, a column at a time (exchange/row_kernels_host.hpp)
        pack_rows_host<T>(table, at, sendbuf, plan.sources(), shift, plan.n_send, runs_of(plan));
    }
  });
  ps.sync_stream();  // queued kernels belong to the compute time
  ctx.stats.compute_seconds += seconds_since(t_start);
  f.recvbuf = recvbuf;
  if (pieces) {
    std::vector<Communicator::Piece> sends, recvs;
    host_pieces(ps, layout, plan, device, sendbuf, send_bytes, send_displs, recvbuf, recv_bytes,
                recv_displs, me, sends, recvs);
    ctx.exchange_pieces(sends, recvs, false);
  } else {
    f.transport = ctx.start_exchange(device, route, sendbuf, send_bytes, send_displs, recvbuf,
                                     recv_bytes, recv_displs);
  }
}

// Completes start_ghosts' messages and unpacks what arrived into the ghost rows. Local.
void finish_ghosts(DistContext& ctx, const GhostPlan& plan, GhostFlight& f) {
  ParticleSet& ps = ctx.ps;
  const bool device = f.device;
  const bool gpu = device && ps.cuda();
  const int P = ctx.comm.size(), me = ctx.comm.rank();
  const int64_t n = ps.n_local(), cap = ps.capacity();
  const MessageLayout& layout = *f.layout;
  std::vector<int64_t>&recv_bytes = f.recv_bytes, &recv_displs = f.recv_displs;
  auto landed = [&](int r) { return f.pieces && plan.recv_counts[r] >= g_piece_rows; };
  const char* got = f.recvbuf;
  if (f.pieces)
    ctx.finish_pieces();
  else
    got = ctx.finish_exchange(f.transport, recv_bytes, recv_displs);
  auto t_unpack = Clock::now();
  if (!gpu) {  // in parallel ranges of each block's values
    for (int r = 0; r < P; ++r)
      if (landed(r)) recv_bytes[r] = 0;  // (in place already)
    move_ghost_blocks_host(ps, layout, plan, device, true, const_cast<char*>(got), recv_bytes,
                           recv_displs);
  } else {
    for (int r = 0; r < P; ++r) {
      const int64_t k = plan.recv_counts[r];
      if (recv_bytes[r] == 0) continue;  // nothing (or own images)
      for (size_t q = 0; q < layout.cols.size(); ++q) {
        PropertyBuffer& c = ps.column(layout.cols[q]);
        const size_t e = c.spec.elem_size;
        copy_2d(static_cast<char*>(c.mirror(device)) + (n + plan.recv_first[r]) * e,
                c.row_bytes(cap), got + recv_displs[r] + k * layout.col_prefix[q], k * e, k * e,
                c.spec.ncomp, gpu, ps.stream());
      }
    }
  }
  ps.sync_stream();
  ps.set_sizes(n, plan.n_recv);
  ctx.stats.particles_sent = plan.n_send;
  ctx.stats.particles_received = plan.n_recv;
  ctx.stats.particles_self = plan.send_counts[me];
  ctx.stats.compute_seconds += seconds_since(t_unpack);
}

}  // namespace

void force_generic_ghost_plan(bool on) { g_generic_plan = on; }
void force_plan_runs(int mode) { g_plan_runs = mode < 0 ? -1 : (mode > 0 ? 1 : 0); }
int forced_plan_runs() { return g_plan_runs; }
void force_ghost_piece_rows(int64_t rows) { g_piece_rows = rows > 0 ? rows : kPieceRows; }

void ghost_get(DistContext& ctx, GhostState& halo, std::vector<int> cols, unsigned flags) {
  GhostFlight f;
  ghost_get_begin(ctx, halo, std::move(cols), flags, f);
  ghost_get_end(ctx, halo, f);
}

void ghost_get_end(DistContext& ctx, GhostState& halo, GhostFlight& f) {
  if (f.kind != GhostFlight::Kind::get || !halo.plan)
    fail(PVEC_ERROR_INTERNAL, "ghost_get_end without its begin");
  GhostFlight done = std::move(f);
  f = GhostFlight{};
  finish_ghosts(ctx, *halo.plan, done);
}

void ghost_get_begin(DistContext& ctx, GhostState& halo, std::vector<int> cols, unsigned flags,
                     GhostFlight& f) {
  ctx.stats = OpStats{};
  auto t_start = Clock::now();
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const bool reuse = (flags & PVEC_GHOST_REUSE_PLAN) != 0;
  const bool skip_pos = (flags & PVEC_GHOST_SKIP_POSITIONS) != 0;
  ParticleSet& ps = ctx.ps;
  if (skip_pos && !reuse)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "PVEC_GHOST_SKIP_POSITIONS needs PVEC_GHOST_REUSE_PLAN (positions decide the plan)");
  if (reuse) {
    // Every rank must agree that its plan is still valid, or none replays: one allreduce of
    // the worst answer (3: this rank refuses the call, see DistContext::refusal; 2: the
    // positions were left out but changed; 1: no valid plan).
    const GhostPlan* p = halo.plan.get();
    const bool ok = p && p->valid && p->on_device == device && p->n_local == ps.n_local() &&
                    (!skip_pos || ps.n_ghost() == p->n_recv);
    const int64_t mine = ctx.refusal ? 3 : !ok ? 1 : skip_pos && ctx.positions_changed ? 2 : 0;
    const int64_t worst = ctx.comm.allreduce_max(mine);
    if (worst == 3) {
      ctx.refuse_if_asked();
      fail(PVEC_ERROR_MPI,
           "pvec_ghost_get was refused on another rank (its own status and message are "
           "there); nothing was changed");
    }
    if (worst == 1)
      fail(PVEC_ERROR_INVALID_ARGUMENT,
           "PVEC_GHOST_REUSE_PLAN: no valid plan from a previous ghost_get on this side (the "
           "particles changed, or the previous call ran on the other mirror)");
    if (worst == 2)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "PVEC_GHOST_SKIP_POSITIONS: the local positions of the ",
           device ? "device" : "host",
           " mirror changed since its ghosts last received theirs (a copy of newer positions "
           "from the other mirror, or a change declared with pvec_vector_mark_modified, on this "
           "or another rank), so the ghosts' positions no longer match; send the positions "
           "(leave out PVEC_GHOST_SKIP_POSITIONS)");
  }
  if (!skip_pos && std::find(cols.begin(), cols.end(), 0) == cols.end())
    cols.insert(cols.begin(), 0);  // the positions travel once, listed or not
  ps.sync_stream();
  ps.flush_device();

  if (!reuse) build_plan(ctx, halo, device);
  f = GhostFlight{};
  start_ghosts(ctx, *halo.plan, cols, device, t_start, f);
  f.kind = GhostFlight::Kind::get;
}

}  // namespace pvec::impl
