#include "population/particle_ids.hpp"

#include "backend/for_each.cuh"
#include "common/error.hpp"
#include "common/hd.hpp"

#include <limits>

namespace pvec::impl {
namespace {
struct Number {
  int64_t* ids;
  int64_t offset;
  PVEC_HD void operator()(int64_t i) const { ids[i] = offset + i; }
};
}  // namespace

int64_t IdCounter::id_at(int64_t ahead, int rank, int nranks) const {
  if (!set)
    fail(PVEC_ERROR_STATE, "no ids to hand out: call pvec_vector_ids_init first (collective)");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t k = next + ahead;
  if (k < next || k > (kMax - base - rank) / nranks)
    fail(PVEC_ERROR_OVERFLOW, "id ", base, " + ", k, " * ", nranks, " + ", rank,
         " does not fit an int64");
  return base + k * nranks + rank;
}

void number_ids(ParticleSet& ps, bool device, int column, int64_t offset) {
  ps.flush_device();
  for_each(ps.exec(device), ps.n_local(),
           Number{static_cast<int64_t*>(ps.column(column).mirror(device)), offset});
  ps.sync_stream();
}

}  // namespace pvec::impl
