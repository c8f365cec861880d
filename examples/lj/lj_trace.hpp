// lj_trace.hpp -- when each part of each measured step ran, on every rank (lj_md --trace FILE).
//
// Every rank records (step, part, start, end) in seconds of MPI_Wtime from a common origin
// taken after a barrier; write() gathers the records on rank 0 and writes one CSV line per
// part: rank,step,part,start_ms,end_ms. bench/plot_timeline.py draws it. On the GPU every
// kernel of the example is waited for (lj::for_each), so a part's interval is its device time.
#ifndef LJ_TRACE_HPP
#define LJ_TRACE_HPP

#include <mpi.h>

#include <cstdio>
#include <vector>

namespace lj {

// Seconds of each part of a step, summed over the steps.
enum Part { kForce, kIntegrate, kGhostGet, kGhostPut, kCheck, kRebuild, kParts };
const char* const kPartNames[kParts] = {"force",     "integrate", "ghost_get",
                                        "ghost_put", "check",     "rebuild"};
// The intervals --trace records (a finer split of the parts above).
enum Event {
  kEvKick,
  kEvCheck,
  kEvRebuild,
  kEvGhostGet,
  kEvGetBegin,
  kEvInterior,
  kEvGetEnd,
  kEvBoundary,
  kEvForce,
  kEvGhostPut,
  kEvKick2,
  kEvEnergy,
  kEvents
};
const char* const kEventNames[kEvents] = {
    "kick+drift",      "verlet_check",      "rebuild",       "ghost_get",
    "ghost_get_begin", "forces (interior)", "ghost_get_end", "forces (boundary)",
    "forces",          "ghost_put",         "kick",          "energy"};

class Trace {
 public:
  /// Starts recording (on) or keeps it off; origin: the time all ranks agree is zero.
  void start(bool on, double origin) {
    on_ = on;
    origin_ = origin;
    rec_.clear();
  }
  bool on() const { return on_; }
  void add(int step, int part, double t_begin, double t_end) {
    if (!on_) return;
    rec_.insert(rec_.end(), {static_cast<double>(step), static_cast<double>(part),
                             t_begin - origin_, t_end - origin_});
  }
  /// Collective over comm. Rank 0 writes path; returns false (on every rank) if it could not.
  bool write(const char* path, const char* const* names, MPI_Comm comm) const {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int mine = static_cast<int>(rec_.size());
    std::vector<int> counts(size), displs(size);
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    std::vector<double> all;
    if (rank == 0) {
      int total = 0;
      for (int r = 0; r < size; ++r) {
        displs[r] = total;
        total += counts[r];
      }
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(rec_.data(), mine, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
                0, comm);
    int ok = 1;
    if (rank == 0) {
      std::FILE* f = std::fopen(path, "w");
      ok = f != nullptr;
      if (f) {
        std::fprintf(f, "rank,step,part,start_ms,end_ms\n");
        for (int r = 0; r < size; ++r)
          for (int k = displs[r]; k + 3 < displs[r] + counts[r]; k += 4)
            std::fprintf(f, "%d,%d,%s,%.6f,%.6f\n", r, static_cast<int>(all[k]),
                         names[static_cast<int>(all[k + 1])], 1e3 * all[k + 2], 1e3 * all[k + 3]);
        ok = std::fclose(f) == 0;
      }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    return ok != 0;
  }

 private:
  bool on_ = false;
  double origin_ = 0;
  std::vector<double> rec_;  // step, part, start, end
};

}  // namespace lj

#endif  // LJ_TRACE_HPP
