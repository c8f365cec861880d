// map: every local particle to the rank owning its position. Runs on the host mirrors or,
// with PVEC_ON_DEVICE, on the device mirrors; the steps are element functions launched by
// for_each, so the host backend in CI runs the logic the GPU runs.
#include "migrate/map.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/clock.hpp"
#include "common/dispatch.hpp"
#include "common/error.hpp"
#include "exchange/block_index.cuh"
#include "exchange/message_layout.hpp"
#include "exchange/row_kernels.cuh"
#include "exchange/row_kernels_host.hpp"
#include "exchange/row_table.cuh"
#include "migrate/label_owner.cuh"
#include "migrate/wrap_positions.cuh"
#include "primitives/for_each_count.cuh"
#include "primitives/primitives.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace pvec::impl {

using U = Workspace::Use;

namespace {
// The bit of LabelOwner's answer that map votes into words (its movers).
constexpr int kMoverBit = 1;
static_assert(LabelOwner<float, 1>::kMover == 1u << kMoverBit, "kMoverBit names kMover");
// The host wrap's blocks in spread order (backend/host_parallel.hpp): 8192 particles.
constexpr int64_t kWrapSpreadChunks = 8192 / kWrapChunk;
}  // namespace

int64_t map(DistContext& ctx, unsigned flags) {
  ctx.stats = OpStats{};
  auto t_start = Clock::now();
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const bool remove_outside = (flags & PVEC_MAP_REMOVE_OUTSIDE) != 0;
  ParticleSet& ps = ctx.ps;
  const Exec ex = ps.exec(device);
  const Workspace::Side side = ctx.ws.side(device && ps.cuda());
  const int P = ctx.comm.size(), me = ctx.comm.rank();
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
  ctx.agree("pvec_map: labelling", [&] {
    ctx.refuse_if_asked();
    dest = side[U::owner_labels].ensure_as<int32_t>(std::max<int64_t>(n, 1));
    mover_votes = side[U::mover_votes].ensure_as<uint32_t>(std::max<int64_t>(n_words, 1));
    // Padded for WrapPositions' 16-byte loads (the pad bytes are never acted on).
    wrap_flag = side[U::wrap_flags].ensure_as<uint8_t>((n / kWrapChunk + 1) * kWrapChunk);
    with_pos_type(ctx.pos_dtype, [&](auto t) {
      using T = decltype(t);
      with_dim(ctx.grid.dim, [&](auto D) {
        using Label = LabelOwner<T, D.value>;
        int64_t counts[3];
        for_each_count(
            ex, n,
            Label{ctx.grid, static_cast<const T*>(ps.column(0).mirror(device)), ps.capacity(), dest,
                  wrap_flag, me, own_band<T, D.value>(ctx.grid, me)},
            side[U::temp], counts, mover_votes, kMoverBit);
        outside = counts[0];
        m = counts[1];
        to_wrap = counts[2];
      });
    });
  });
  // 2. Decide together: a bad particle anywhere leaves every rank untouched.
  const int64_t outside_global = ctx.comm.allreduce_sum(outside);
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
  ctx.agree("pvec_map: selecting movers", [&] {
    if (m == 0) return;  // the common step of a 1-rank run: nothing leaves, nothing to sort
    movers = side[U::movers].ensure_as<int64_t>(m);
    const int64_t selected =
        voted_indices(ex, mover_votes, n_words, IndexList{movers, false}, side[U::temp]);
    if (selected != m)
      fail(PVEC_ERROR_INTERNAL, "pvec_map: ", selected, " movers selected, ", m, " counted");
    keys = side[U::mover_keys].ensure_as<int32_t>(2 * m);
    order = side[U::mover_order].ensure_as<int64_t>(m);
    for_each_unordered(ex, m, MoverKeys{dest, movers, keys, order, P});
    // The send and receive slots serve as the sort's alternate buffers until packing.
    sort_pairs(ex, keys, order, m, P, side[U::temp], side[U::sort_keys_alt],
               side[U::sort_vals_alt]);
    bucket_bounds(ex, keys, m, P + 1, bounds.data(), side[U::temp]);
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
  ctx.comm.exchange_counts(send_count, recv_count);
  std::vector<int64_t> recv_first(P, 0);
  int64_t n_recv = 0;
  for (int r = 0; r < P; ++r) {
    recv_first[r] = n_recv;
    n_recv += recv_count[r];
  }
  const int64_t n_new = n_stay + n_recv;
  std::vector<int> all_columns(ps.column_count());
  std::iota(all_columns.begin(), all_columns.end(), 0);
  MessageLayout layout(ps, std::move(all_columns));
  std::vector<int64_t> send_bytes, send_displs, recv_bytes, recv_displs;
  const int64_t send_total = layout.offsets(send_count, send_bytes, send_displs, me);
  const int64_t recv_total = layout.offsets(recv_count, recv_bytes, recv_displs, me);
  const Route route = ctx.prepare_exchange(device, send_total, recv_total);
  // keys/order live in the kKeysAlt/kValsAlt slots; send and recv get their own. Growth
  // comes last: it is the only step here that changes the vector.
  char *sendbuf = nullptr, *recvbuf = nullptr;
  int64_t* peers = nullptr;
  ParticleSet::Reservation growth;
  // Room for the per-peer arrays is reserved here, so that the upload after growth allocates
  // nothing.
  ctx.agree("pvec_map: making room", [&] {
    sendbuf = ctx.send_buffer(device, route, send_total);
    if (route == Route::mpi)  // else the blocks are read from the IPC or shared buffers
      recvbuf = static_cast<char*>(side[U::recv].ensure(std::max<int64_t>(recv_total, 8)));
    if (n_new < n) {
      // Fewer arrive than leave: the stayers in rows [n_new, n) fill the holes the arrivals
      // leave below n_new (as many as there are such stayers, at most m - n_recv).
      tail = side[U::tail_stayers].ensure_as<int64_t>(m);
      h = select_indices(ex, dest, n_new, n, me, true, tail, side[U::temp]);
      if (h > m - n_recv)
        fail(PVEC_ERROR_INTERNAL, "pvec_map: ", h, " stayers beyond the new end, at most ",
             m - n_recv, " expected");
    }
    ctx.reserve_peers(device, 6 * P);
    growth = ps.reserve_growth(n_new);
  });
  ps.install_growth(growth);  // may reallocate: take column pointers after this
  const int64_t cap = ps.capacity();
  const std::vector<RowTable> tables = row_tables(ps, layout, device, false, ctx.grid);
  peers = ctx.upload_peers(
      device, {&send_displs, &send_first, &send_count, &recv_displs, &recv_first, &recv_count});
  BlockIndex at{keys, peers, peers + P, peers + 2 * P, -1, 0};

  // 6. Commit: wrap periodic coordinates, pack the movers, move the stayers beyond the new
  // end into holes, exchange, unpack the arrivals into the other holes and after the old end.
  if (to_wrap > 0)
    with_pos_type(ctx.pos_dtype, [&](auto t) {
      using T = decltype(t);
      with_dim(ctx.grid.dim, [&](auto D) {
        const int64_t chunks = (n + kWrapChunk - 1) / kWrapChunk;
        const WrapPositions<T, D.value> w{ctx.grid, static_cast<T*>(ps.column(0).mirror(device)),
                                          cap, wrap_flag, n};
        if (ex.on_device)
          for_each(ex, chunks, w);
        else  // chunks are independent; spread, as the flagged ones gather like the movers
          host_for_spread(
              chunks, kWrapSpreadChunks,
              [&](int64_t b, int64_t e) {
                for (int64_t c = b; c < e; ++c) w(c);
              },
              kHostRowGrain);
      });
    });
  for (const RowTable& t : tables) {
    if (ex.on_device)
      for_each(ex, n_send, PackRows<float>{t, at, sendbuf, IndexList{order, false}, nullptr});
    else  // the same copies, a column at a time (exchange/row_kernels_host.hpp)
      pack_rows_host<float>(t, at, sendbuf, IndexList{order, false}, nullptr, n_send);
    if (h > 0) for_each(ex, h, MoveRows{t, movers + n_recv, tail});
  }
  ps.sync_stream();  // queued kernels belong to the compute time
  ctx.stats.compute_seconds += seconds_since(t_start);
  const char* got = ctx.exchange(device, route, sendbuf, send_bytes, send_displs, recvbuf,
                                 recv_bytes, recv_displs);
  auto t_unpack = Clock::now();
  if (route == Route::shared_memory)  // the blocks' places in the senders' segments
    peers = ctx.upload_peers(
        device, {&send_displs, &send_first, &send_count, &recv_displs, &recv_first, &recv_count});
  for (const RowTable& t : tables) {
    const UnpackRows u{t, got, peers + 3 * P, peers + 4 * P, peers + 5 * P, P, movers, m, n};
    if (ex.on_device)
      for_each(ex, n_recv, u);
    else
      unpack_rows_host(u, n_recv);
  }
  ps.sync_stream();
  ps.set_sizes(n_new, 0);
  ps.bump_generation();
  ctx.stats.particles_sent = n_send;
  ctx.stats.particles_received = n_recv;
  ctx.stats.rows_changed = m > 0 || to_wrap > 0 || n_recv > 0;
  ctx.stats.compute_seconds += seconds_since(t_unpack);
  return ctx.comm.allreduce_sum(removed_here);
}

}  // namespace pvec::impl
