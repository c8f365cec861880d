// ghost_put: ghost values back to the particles they copy, combined there (pvec_ghost_put).
#include "halo/ghost_put.hpp"

#include "backend/device.hpp"
#include "backend/for_each.cuh"
#include "common/clock.hpp"
#include "common/dispatch.hpp"
#include "common/error.hpp"
#include "exchange/message_layout.hpp"
#include "halo/ghost_blocks_host.hpp"
#include "halo/ghost_put_host.hpp"
#include "halo/plan_index.cuh"
#include "halo/reduce_column.cuh"

#include <vector>

namespace pvec::impl {

using U = Workspace::Use;

void ghost_put(DistContext& ctx, const GhostPlan* plan, const std::vector<int>& cols,
               pvec_reduce_op op, unsigned flags) {
  GhostFlight f;
  ghost_put_begin(ctx, plan, cols, op, flags, f);
  ghost_put_end(ctx, plan, f);
}

void ghost_put_begin(DistContext& ctx, const GhostPlan* plan_in, const std::vector<int>& cols,
                     pvec_reduce_op op, unsigned flags, GhostFlight& f) {
  f = GhostFlight{};
  ctx.stats = OpStats{};
  auto t_start = Clock::now();
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  ParticleSet& ps = ctx.ps;
  const bool gpu = device && ps.cuda();
  const Exec ex = ps.exec(device);
  const Workspace::Side side = ctx.ws.side(gpu);
  const int P = ctx.comm.size(), me = ctx.comm.rank();
  const bool ok = plan_in && plan_in->valid && plan_in->on_device == device &&
                  plan_in->n_local == ps.n_local() && ps.n_ghost() == plan_in->n_recv;
  const int64_t worst = ctx.comm.allreduce_max(ctx.refusal ? 2 : !ok ? 1 : 0);
  if (worst == 2) {
    ctx.refuse_if_asked();
    fail(PVEC_ERROR_MPI,
         "pvec_ghost_put was refused on another rank (its own status and message are there); "
         "nothing was changed");
  }
  if (worst == 1)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "ghost_put needs the ghosts of a previous ghost_get on the same side (mirror), with "
         "no particle added, removed or mapped since");
  const GhostPlan& plan = *plan_in;
  ps.sync_stream();
  ps.flush_device();
  const int64_t n = ps.n_local(), cap = ps.capacity();

  // Ghost values go back to their sources: the reverse of ghost_get's exchange. The values of
  // this rank's own images stay where they are: ReduceColumn reads them from the ghost rows.
  f.layout.emplace(ps, cols);
  const MessageLayout& layout = *f.layout;
  std::vector<int64_t>&send_bytes = f.send_bytes, &send_displs = f.send_displs,
  &recv_bytes = f.recv_bytes, &recv_displs = f.recv_displs;
  const int64_t send_total = layout.offsets(plan.recv_counts, send_bytes, send_displs, me);
  const int64_t recv_total = layout.offsets(plan.send_counts, recv_bytes, recv_displs, me);
  const Route route = ctx.prepare_exchange(device, send_total, recv_total);
  char *sendbuf = nullptr, *recvbuf = nullptr;
  ctx.agree("pvec_ghost_put: making room", [&] {
    sendbuf = ctx.send_buffer(device, route, send_total);
    if (route == Route::mpi)
      recvbuf = static_cast<char*>(side[U::recv].ensure(std::max<int64_t>(recv_total, 8)));
    ctx.reserve_peers(device, 3 * P);
  });
  if (!ex.on_device) {
    move_ghost_blocks_host(ps, layout, plan, device, false, sendbuf, send_bytes, send_displs);
  } else {
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
  }
  ps.sync_stream();  // queued kernels belong to the compute time
  ctx.stats.compute_seconds += seconds_since(t_start);
  // (ReduceColumn only reads the received blocks.)
  f.device = device;
  f.op = op;
  f.recvbuf = recvbuf;
  f.transport = ctx.start_exchange(device, route, sendbuf, send_bytes, send_displs, recvbuf,
                                   recv_bytes, recv_displs);
  f.kind = GhostFlight::Kind::put;
}

void ghost_put_end(DistContext& ctx, const GhostPlan* plan_in, GhostFlight& flight) {
  if (flight.kind != GhostFlight::Kind::put || plan_in == nullptr)
    fail(PVEC_ERROR_INTERNAL, "ghost_put_end without its begin");
  GhostFlight f = std::move(flight);
  flight = GhostFlight{};
  const GhostPlan& plan = *plan_in;
  ParticleSet& ps = ctx.ps;
  const bool device = f.device;
  const Exec ex = ps.exec(device);
  const int P = ctx.comm.size(), me = ctx.comm.rank();
  const int64_t n = ps.n_local(), cap = ps.capacity();
  const MessageLayout& layout = *f.layout;
  const pvec_reduce_op op = f.op;
  std::vector<int64_t>& recv_displs = f.recv_displs;
  char* got = const_cast<char*>(ctx.finish_exchange(f.transport, f.recv_bytes, recv_displs));
  auto t_reduce = Clock::now();
  // (after the exchange: through shared memory each block is read where its sender put it)
  const int64_t* peers =
      ctx.upload_peers(device, {&recv_displs, &plan.send_first, &plan.send_counts});
  const BlockIndex at = plan_index(plan, peers, P, me, n);
  if (!ex.on_device)  // in parallel ranges of source rows, in the serial order of each row
    reduce_columns_host(ps, layout, plan, at, got, device, static_cast<int>(op));
  else
    for (size_t k = 0; k < layout.cols.size(); ++k) {
      PropertyBuffer& c = ps.column(layout.cols[k]);
      with_dtype(c.spec.dtype, [&](auto t) {
        using T = decltype(t);
        ReduceColumn<T> f{
            at,  got,          plan.sources(),       static_cast<T*>(c.mirror(device)),
            cap, c.spec.ncomp, layout.col_prefix[k], static_cast<int>(op)};
        for_each(ex, plan.n_send, f);  // on the device: atomic combinations
      });
    }
  ps.sync_stream();
  ctx.stats.particles_sent = plan.n_recv;
  ctx.stats.particles_received = plan.n_send;
  ctx.stats.particles_self = plan.send_counts[me];
  ctx.stats.compute_seconds += seconds_since(t_reduce);
}

}  // namespace pvec::impl
