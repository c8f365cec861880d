// Allocation failure on one rank inside a collective call (white box, pvec_static, 2+ ranks).
// pvec.h: PVEC_ERROR_MPI means "a collective call failed on another rank", and on error the
// vector is left as it was. So when the k-th allocation of rank 1 fails inside pvec_map or
// pvec_ghost_get, rank 1 must return OUT_OF_MEMORY, every other rank PVEC_ERROR_MPI, nobody
// may hang, and every rank's vector must be unchanged. A hang shows as the CTest timeout.
#include "capi_util.hpp"
#include "memory/allocator.hpp"
#include "test_support.hpp"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

// 600 particles per rank spread over the whole box, so that map moves most of them and
// ghost_get exchanges ghosts with every neighbour.
capi::Vector make(int rank) {
  pvec_vector_desc d = capi::make_desc(600);
  d.boundary[0] = PVEC_PERIODIC;
  d.ghost_width = 0.1;
  capi::Vector v = capi::make_vector(capi::mixed_props(), d);
  const pvec_layout pos = capi::layout_of(v.get(), PVEC_POS);
  for (int64_t i = 0; i < 600; ++i)
    for (int c = 0; c < 3; ++c)
      capi::set_elem(pos.host_ptr, pos.dtype, c * pos.stride_elems + i,
                     static_cast<double>((i * 7919 + c * 104729 + rank * 31) % 1000) / 1000.0);
  const int nprops = static_cast<int>(capi::mixed_props().size());
  for (int p = 0; p < nprops; ++p) capi::fill_host(v.get(), p, 1 + rank, 0, 600);
  return v;
}

}  // namespace

TEST_CASE("allocation failure on one rank fails the collective call everywhere",
          "[hardening][collective]") {
  using pvec::impl::inject_allocation_failure;
  const int rank = pvec_test::world_rank();
  if (pvec_test::world_size() < 2) return;  // needs a second rank to fail on
  const std::vector<std::pair<std::string, std::function<pvec_status(pvec_vector_t)>>> ops = {
      {"map", [](pvec_vector_t v) { return pvec_map(v, 0, nullptr); }},
      {"ghost_get", [](pvec_vector_t v) { return pvec_ghost_get(v, nullptr, 0, 0); }},
  };
  std::string report;
  for (const auto& op : ops) {
    bool done = false;
    for (int64_t k = 0; k < 60 && !done; ++k) {
      capi::Vector v = make(rank);
      const capi::Snapshot before = capi::snapshot(v.get());
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 1) inject_allocation_failure(k);
      const pvec_status s = op.second(v.get());
      inject_allocation_failure(-1);
      const std::string msg = pvec_last_error();
      // Everyone's status, to judge the outcome together.
      std::vector<int> all(pvec_test::world_size());
      const int mine = static_cast<int>(s);
      MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
      bool any_failed = false;
      for (int x : all) any_failed = any_failed || x != PVEC_SUCCESS;
      if (!any_failed) {
        done = true;  // rank 1 needed fewer than k+1 allocations
        break;
      }
      const std::string where = op.first + ", allocation #" + std::to_string(k) + " of rank 1: ";
      const pvec_status want = rank == 1 ? PVEC_ERROR_OUT_OF_MEMORY : PVEC_ERROR_MPI;
      if (s != want)
        report += "\n  " + where + "rank " + std::to_string(rank) + " got " +
                  pvec_status_string(s) + " (" + msg + ")";
      if (!(capi::snapshot(v.get()) == before))
        report += "\n  " + where + "rank " + std::to_string(rank) + "'s vector changed";
    }
    if (!done) report += "\n  " + op.first + ": never succeeded";
  }
  INFO("rank " << rank << ":" << report);
  CHECK(report.empty());
}
