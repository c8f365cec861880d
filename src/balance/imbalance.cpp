// measure_imbalance (imbalance.hpp): one local pass over the weights, then one allreduce of
// (count, weight, a bad-weight code) for the maxima and one for the sums.
#include "balance/imbalance.hpp"

#include "common/dtype.hpp"
#include "common/error.hpp"

#include <cmath>

namespace pvec::impl {

void check_weight_column(const ParticleSet& ps, int weight_col) {
  if (weight_col < 0) return;
  const PropertySpec& s = ps.column(weight_col).spec;
  if (s.dtype != PVEC_FLOAT32 && s.dtype != PVEC_FLOAT64)
    fail(PVEC_ERROR_DTYPE_MISMATCH, "weight property '", s.name, "' is ", dtype_name(s.dtype),
         ": a weight is a float32 or float64 scalar");
  if (s.ncomp != 1 || s.rank != 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "weight property '", s.name,
         "' has several components: a weight is one value per particle (a scalar)");
}

Imbalance measure_imbalance(ParticleSet& ps, const Communicator& comm, int weight_col, bool device,
                            ReduceScratch& scratch) {
  check_weight_column(ps, weight_col);
  const double count = static_cast<double>(ps.n_local());
  double weight = count;
  // 0: fine; else 1 + the rank of a rank with a negative, NaN or infinite weight, so that the
  // minimum over the ranks of (bad ? rank : size) names the lowest.
  double bad = comm.size();
  comm.agree("pvec_vector_get_imbalance: reading the weights", [&] {
    if (weight_col < 0) return;
    const LocalStats st = local_stats(ps, weight_col, device, scratch);
    weight = st.sum;
    if (st.nan || st.min < 0 || !std::isfinite(st.sum)) bad = comm.rank();
  });
  double mx[2] = {count, weight}, sum[3] = {count, weight, bad};
  comm.allreduce(mx, 2, PVEC_FLOAT64, AllreduceOp::max);
  comm.allreduce(sum + 2, 1, PVEC_FLOAT64, AllreduceOp::min);
  if (sum[2] < comm.size())
    fail(PVEC_ERROR_INVALID_ARGUMENT, "weight property '", ps.column(weight_col).spec.name,
         "' holds a negative, NaN or infinite value on rank ", static_cast<int>(sum[2]),
         ": weights are costs, finite and >= 0");
  comm.allreduce(sum, 2, PVEC_FLOAT64, AllreduceOp::sum);
  Imbalance out;
  const double ranks = comm.size();
  out.count = sum[0] > 0 ? mx[0] * ranks / sum[0] : 1.0;
  out.weight = sum[1] > 0 ? mx[1] * ranks / sum[1] : 1.0;
  return out;
}

}  // namespace pvec::impl
