// DistVector: what a pvec_vector_t handle refers to. One rank's ParticleSet, the
// communicator, the decomposition of the domain, and the plans of map and ghost exchange.
#pragma once

#include "core/particle_set.hpp"
#include "core/schema.hpp"
#include "dist/cartesian_grid.hpp"
#include "dist/communicator.hpp"
#include "dist/ipc_exchange.hpp"
#include "dist/workspace.hpp"

#include <pvec.h>

#include <memory>
#include <string>
#include <vector>

namespace pvec::detail {

struct GhostPlan;

class DistVector {
 public:
  // Validates desc; collective over the communicator.
  DistVector(const pvec_vector_desc& desc, const Schema& schema);
  ~DistVector();

  int dim() const { return grid_.dim; }
  pvec_dtype pos_dtype() const { return pos_dtype_; }
  const CartGrid& grid() const { return grid_; }
  double ghost_width() const { return ghost_width_; }
  const Schema& schema() const { return schema_; }
  ParticleSet& particles() { return *ps_; }
  const ParticleSet& particles() const { return *ps_; }
  const Communicator& comm() const { return *comm_; }

  // Column of property prop (PVEC_POS for positions); throws OUT_OF_RANGE.
  int column_of(int prop) const;
  // Columns for a property list; NULL means all columns. Throws on a bad or repeated entry.
  std::vector<int> columns_of(const int* props, int nprops, bool positions_if_all) const;
  const std::string& name_of(int column) const { return ps_->column(column).spec.name; }

  void subdomain(int rank, double* lo, double* hi) const;
  int owner_rank(const double* x) const;

  // Distribution (dist/map.cpp, dist/ghost.cpp).
  int64_t map(unsigned flags);
  void ghost_get(const int* props, int nprops, unsigned flags);
  void ghost_put(const int* props, int nprops, pvec_reduce_op op, unsigned flags);
  // Any change of local particles invalidates the ghost plan.
  void forget_ghost_plan();

  // Figures of the last map / ghost_get / ghost_put, for benchmarks.
  struct OpStats {
    double compute_seconds = 0;   // labelling, packing, unpacking, compaction
    double exchange_seconds = 0;  // MPI and host staging
    int64_t bytes_sent = 0;
    int64_t bytes_received = 0;
    int64_t particles_sent = 0;
    int64_t particles_received = 0;
    int64_t particles_self = 0;               // of particles_sent: this rank's own periodic images
    int64_t transport = PVEC_TRANSPORT_NONE;  // how the messages went (pvec_transport)
  };
  const OpStats& last_stats() const { return stats_; }

 private:
  // Collective, before an operation changes anything: whether its exchange goes through CUDA
  // IPC (then the caller needs no receive buffer: exchange returns where the data landed).
  // recv_total: the bytes this rank receives. Throws (on every rank) when a landing buffer
  // cannot grow.
  bool prepare_exchange(bool device, int64_t recv_total);
  // Exchange blocks between ranks; buffers are on the side exec runs on. Device buffers go
  // through CUDA IPC when prepare_exchange said so, else through MPI, staged through pinned
  // host memory when MPI cannot take device pointers. Returns where the received blocks are,
  // laid out by recv_displs: recv, or this rank's IPC landing buffer.
  const char* exchange(bool device, bool ipc, const void* send,
                       const std::vector<int64_t>& send_bytes,
                       const std::vector<int64_t>& send_displs, void* recv,
                       const std::vector<int64_t>& recv_bytes,
                       const std::vector<int64_t>& recv_displs);
  // Runs f, then every rank learns whether any rank failed: the failing rank rethrows its
  // error, the others fail with PVEC_ERROR_MPI, so no rank is left waiting in a collective.
  template <class F>
  void agree(const char* what, F&& f);
  // Upload small per-peer arrays to the side an operation runs on; returns their addresses.
  // Allocates nothing when reserve_peers made room for at least as many words.
  int64_t* upload_peers(bool device, const std::vector<const std::vector<int64_t>*>& arrays);
  // Room for `words` int64 in upload_peers' buffers (both sides), so that a later upload
  // cannot fail; throws on OOM, like every allocation before an operation commits.
  void reserve_peers(bool device, size_t words);

  CartGrid grid_;
  pvec_dtype pos_dtype_;
  double ghost_width_ = 0;
  Schema schema_;
  std::unique_ptr<Communicator> comm_;
  // Device messages through CUDA IPC (null: MPI only). Declared after comm_, destroyed before.
  std::unique_ptr<IpcExchange> ipc_;
  std::unique_ptr<ParticleSet> ps_;
  std::unique_ptr<GhostPlan> plan_;
  // How many particles were near a boundary in the last plan built on the device (-1: none
  // yet): the next plan's count pass makes room for about as many before it knows (see
  // ghost_get).
  int64_t near_hint_ = -1;
  Workspace ws_;
  OpStats stats_;
};

}  // namespace pvec::detail
