// DistVector: what a pvec_vector_t handle refers to. One rank's ParticleSet, the
// communicator, the decomposition of the domain, and the plans of map and ghost exchange.
#pragma once

#include "balance/balanced_grid.hpp"
#include "balance/imbalance.hpp"
#include "coherence/mirror_state.hpp"
#include "comm/communicator.hpp"
#include "comm/op_stats.hpp"
#include "comm/transport.hpp"
#include "decomp/cartesian_grid.hpp"
#include "exchange/dist_context.hpp"
#include "halo/ghost_flight.hpp"
#include "halo/ghost_plan.hpp"
#include "memory/workspace.hpp"
#include "neighbors/locality_sort.hpp"
#include "neighbors/neighbor_input.hpp"
#include "particles/particle_set.hpp"
#include "particles/schema.hpp"
#include "population/particle_ids.hpp"
#include "population/remove_marked.hpp"
#include "population/spawn.hpp"
#include "reduce/reduction.hpp"

#include <pvec.h>

#include <memory>
#include <string>
#include <vector>

namespace pvec::impl {

class DistVector {
 public:
  // Validates desc; collective over the communicator.
  DistVector(const pvec_vector_desc& desc, const Schema& schema);
  ~DistVector();

  int dim() const { return grid_.dim; }
  pvec_dtype pos_dtype() const { return pos_dtype_; }
  const CartGrid& grid() const { return grid_; }
  // Replaces the decomposition (a restart reusing its writer's boxes); the caller maps next.
  void set_grid(const CartGrid& g) {
    grid_ = g;
    forget_ghost_plan();
  }
  double ghost_width() const { return ghost_width_; }
  const Schema& schema() const { return schema_; }
  // Read-only: every change of the particles goes through the methods below, which keep the
  // plans consistent (the ghost plan is forgotten when the local particles change).
  const ParticleSet& particles() const { return *ps_; }
  // Pointer getters and stream changes need the mirrors themselves (flush); they change no
  // particle and so no plan.
  ParticleSet& mirrors() { return *ps_; }
  // Copies the columns between the mirrors (pvec_host_to_device, pvec_device_to_host and their
  // _async forms), all rows [0, n_local + n_ghost). Refuses (STALE_MIRROR) to copy rows that
  // are older on the source than on the destination, unless they were declared written there.
  void transfer(bool to_device, const std::vector<int>& columns, void* stream, bool wait);

  // Mirror coherence (coherence/mirror_state.hpp, docs/coherence.md). pvec notes which mirror
  // each of its operations wrote; an operation that reads a column on a mirror holding older
  // values than the other throws PVEC_ERROR_STALE_MIRROR naming the column and what changed
  // the other mirror, or first copies the newer rows with automatic synchronisation on.
  //   mark_written: the caller wrote `rows` of the columns on one mirror
  //   (pvec_vector_mark_modified). sync: copy to one mirror the rows of the columns that are older
  //   there (pvec_vector_sync). currency: the PVEC_MIRROR_* bits of what is current where
  //   (pvec_vector_get_mirror_state).
  void mark_written(bool device, const std::vector<int>& columns, unsigned rows, const char* by);
  void sync(bool to_device, const std::vector<int>& columns, unsigned rows);
  unsigned currency(int column) const;
  // Rows of the columns were copied to one mirror from the other outside transfer() (a
  // restart's own copies): both now hold the same values.
  void note_copied(bool to_device, const std::vector<int>& columns, unsigned rows) {
    mirror_state_.copied(to_device, columns, rows);
  }
  void set_auto_sync(bool on) { auto_sync_ = on; }
  bool auto_sync() const { return auto_sync_; }
  // Every column (the positions first).
  std::vector<int> all_columns() const;
  // Checks (or, with automatic synchronisation, brings up to date) `rows` of the columns
  // on one mirror before `what` reads them; throws STALE_MIRROR.
  // Local: a collective caller agrees on the outcome (check_current_together).
  void check_current(bool device, const std::vector<int>& columns, unsigned rows, const char* what);
  // check_current, then every rank learns whether one refused (one allreduce).
  void check_current_together(bool device, const std::vector<int>& columns, unsigned rows,
                              const char* what);

  // Population (population/, docs/population.md): pvec_vector_remove_marked and its _async
  // form, pvec_vector_spawn_begin / _commit / _cancel, pvec_vector_ids_init / _take.
  int64_t remove_marked(const MarkSource& mark, unsigned flags);
  void remove_marked_async(const MarkSource& mark, unsigned flags, int64_t* n_removed_dev);
  // An asynchronous removal leaves the local count on the device until the host needs it:
  // waits for it and sets the sizes. Every entry point of the C interface calls it first.
  void settle();
  bool removal_pending() const { return pending_.active; }
  pvec_spawner spawn_begin(int64_t max_new, unsigned flags);
  // Returns the slots claimed (also written to *n_added, may be null, before an overflow
  // throws OUT_OF_RANGE).
  int64_t spawn_commit(int64_t* n_added);
  void spawn_cancel();
  bool spawning() const { return spawn_.open; }
  void ids_init(int prop, unsigned flags);
  void ids_take(int64_t count, int64_t* first, int64_t* stride);

  // Growth and removal (pvec_vector_reserve, pvec_vector_resize, pvec_vector_append,
  // pvec_vector_remove, pvec_vector_shrink_to_fit): drop the ghosts and the ghost plan.
  void reserve(int64_t n);
  void resize(int64_t n);
  int64_t append(int64_t k);
  void remove(const int64_t* indices, int64_t count);
  void shrink_to_fit();
  const Communicator& comm() const { return *comm_; }
  // Fortran handle (MPI_Comm_c2f) of pvec's private communicator, for collective file I/O
  // through libraries that duplicate it themselves (io/, parallel HDF5); -1 without MPI.
  int64_t io_comm_f() const { return comm_->fortran_handle(); }

  // Column of property prop (PVEC_POS for positions); throws OUT_OF_RANGE.
  int column_of(int prop) const;
  // Columns for a property list; NULL means all columns (with the positions first if
  // positions_if_all), PVEC_NO_PROPS none. Throws on a bad or repeated entry.
  std::vector<int> columns_of(const int* props, int nprops, bool positions_if_all) const;
  // The property indices (PVEC_POS for positions) of a list as pvec.h takes it: NULL means
  // the positions then every property, PVEC_NO_PROPS none. Throws on a bad or repeated entry.
  std::vector<int> prop_list(const int* props, int nprops) const;
  // What a kernel needs to index property prop (or PVEC_POS): pvec_vector_get_layout. Flushes the
  // deferred zero fill of the device mirror first, so its pointer can be handed out.
  pvec_layout layout(int prop);
  const std::string& name_of(int column) const { return ps_->column(column).spec.name; }

  void subdomain(int rank, double* lo, double* hi) const;
  int owner_rank(const double* x) const;

  // Distribution: migrate/map, halo/ghost_get, halo/ghost_put.
  int64_t map(unsigned flags);
  void ghost_get(const int* props, int nprops, unsigned flags);
  void ghost_put(const int* props, int nprops, pvec_reduce_op op, unsigned flags);
  // The split-phase forms (pvec_ghost_get_begin / _end, pvec_ghost_put_begin / _end): begin
  // does the collective part and posts the messages; end completes them. One exchange in
  // flight per vector; while one is, every call that changes the particles, moves rows,
  // exchanges or reads the ghost rows is refused (STATE): require_idle.
  void ghost_get_begin(const int* props, int nprops, unsigned flags);
  void ghost_get_end();
  void ghost_put_begin(const int* props, int nprops, pvec_reduce_op op, unsigned flags);
  void ghost_put_end();
  bool in_flight() const { return flight_.active(); }
  // Throws STATE while a split-phase ghost exchange is in flight (what: the call refused).
  void require_no_flight(const char* what) const;
  // Any change of local particles invalidates the ghost plan.
  void forget_ghost_plan();
  // The ghosts are gone: forget_ghost_plan, and their rows hold nothing on either mirror.
  void dropped_ghosts();
  // Whether the ghost rows of a column on one mirror (device: the second mirror) hold what its
  // owners hold: brought by a ghost_get on that mirror since the one that built the ghost
  // plan, or copied there by a transfer from a mirror where they were, and no ghost_put of
  // the column since. Neighbour options that read ghost values (keys, pair flags) require it.
  bool ghost_rows_current(int column, bool device) const;

  // Neighbour search (neighbors/). The rows epoch counts the changes of which particle is in
  // which row: every change of the local particles and every ghost_get that builds a new plan
  // (a ghost_get that replays its plan keeps the rows). Lists remember the epoch they were
  // built at and are stale once it moved on.
  uint64_t rows_epoch() const { return rows_epoch_; }
  NeighborInput neighbor_input();
  // pvec_vector_sort: reorders the local rows by cell; returns whether anything moved.
  bool sort(const SortParams& p);

  // pvec_vector_reduce: each component of property prop (or PVEC_POS) over the local particles
  // of every rank, on the host or device mirror, into result (ncomp values of
  // widened(dtype)). Collective.
  void reduce(int prop, AllreduceOp op, bool device, void* result);

  // pvec_vector_get_imbalance: max over mean of the local counts, and of the local sums of
  // the scalar float property weight_prop (PVEC_NO_WEIGHT: the counts), read on the host or
  // device mirror. Collective.
  Imbalance imbalance(int weight_prop, bool device);

  // For collectives whose arguments are checked on each rank: every rank passed the same
  // values (NaN equal to NaN), else INVALID_ARGUMENT on every rank naming `what`, so that a
  // rank refusing its own arguments never leaves the others waiting. One allreduce.
  void require_same_args(const std::vector<double>& args, const char* what) const;

  // pvec_vector_rebalance: when the imbalance (of weight_prop's sums, or of the counts with
  // PVEC_NO_WEIGHT) exceeds threshold, a balanced grid (balance/balanced_grid.hpp) replaces the
  // decomposition and the particles are mapped to it; on failure the decomposition and the
  // particles stay as they were. before/after: the imbalance measured before and after (equal
  // when nothing was done). Returns whether it rebalanced. Collective.
  bool rebalance(int weight_prop, double threshold, bool device, double* before, double* after);

  // Shared decompositions (pvec_vector_follow): this vector takes leader's boxes now (mapping
  // its particles on the host or device mirror when they differ) and at every later
  // rebalance of the leader, which maps its followers too. leader null: stop following, keep
  // the boxes. Throws INVALID_ARGUMENT (another domain, dimension, boundary or set of ranks;
  // itself), STATE (this vector is followed; the leader follows another), and map's errors
  // (then nothing changed). Collective.
  void follow(DistVector* leader, bool device);
  const DistVector* leader() const { return leader_; }

  // Figures of the last map / ghost_get / ghost_put, for benchmarks.
  const OpStats& last_stats() const { return stats_; }

  // The block output stages device rows through (io/staging.hpp's read_rows): pinned with the
  // CUDA backend, so that the copies run at the link's speed, and kept between writes, so that
  // only the first write allocates it (about 1 MiB).
  ScratchBuffer& io_staging() {
    if (!io_stage_kind_set_) {
      io_stage_.set_kind(ps_->cuda() ? MemKind::pinned : MemKind::host);
      io_stage_kind_set_ = true;
    }
    return io_stage_;
  }

 private:
  DistContext context();

  CartGrid grid_;
  pvec_dtype pos_dtype_;
  double ghost_width_ = 0;
  Schema schema_;
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<ParticleSet> ps_;
  // How messages travel (its CUDA IPC buffers are released collectively by ~DistVector).
  // Declared after comm_, destroyed before.
  std::unique_ptr<Transport> transport_;
  GhostState halo_;
  uint64_t rows_epoch_ = 0;
  std::vector<char> ghost_current_[2];     // per mirror, per column (ghost_rows_current)
  MirrorState mirror_state_;               // which mirror is newer, per column
  bool auto_sync_ = false;                 // copy older rows instead of refusing
  uint64_t pos_sent_version_[2] = {0, 0};  // local positions' version at the last send
  // The columns read by an operation, as a refusal for DistContext (null when current).
  std::exception_ptr refusal(bool device, const std::vector<int>& columns, unsigned rows,
                             const char* what);
  void throw_stale(bool device, const MirrorState::Stale& st, const char* what) const;
  // Throws STATE while a spawn is open or a split-phase ghost exchange is in flight (what: the
  // operation refused).
  void require_idle(const char* what) const;
  // The halves of ghost_get and ghost_put, with the name errors give (the blocking call's or
  // the begin's / end's).
  void start_ghost_get(const int* props, int nprops, unsigned flags, const char* what);
  void finish_ghost_get(const char* what);
  void start_ghost_put(const int* props, int nprops, pvec_reduce_op op, unsigned flags,
                       const char* what);
  void finish_ghost_put(const char* what);
  GhostFlight flight_;               // the exchange in flight (inactive: none)
  std::vector<int> flight_carried_;  // ghost_get: the listed columns; ghost_put: its columns
  std::vector<int> flight_sent_;     // ghost_get: what travels (the positions too, unless left out)
  bool flight_skip_pos_ = false;
  uint64_t flight_pos_version_ = 0;  // the local positions' version when they were packed
  PendingRemoval pending_;
  RemovalScratch removal_;
  SpawnState spawn_;
  IdCounter ids_;
  DistVector* leader_ = nullptr;                   // the vector whose boxes this one follows
  std::vector<DistVector*> followers_;             // the vectors that follow this one
  std::vector<DistVector*> followers_with_this();  // this vector first, then its followers
  void note_ghost_rows(int column, bool device, bool current);
  SortScratch sort_;
  Workspace ws_;
  ScratchBuffer io_stage_;
  bool io_stage_kind_set_ = false;
  ReduceScratch reduce_;
  bool reduce_kind_set_ = false;
  ReduceScratch& reduce_scratch();  // reduce_, its buffers set to the device kind first
  BalanceScratch balance_;          // device memory of the balanced grid's passes
  bool balance_kind_set_ = false;
  OpStats stats_;
};

}  // namespace pvec::impl
