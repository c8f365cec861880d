// Reductions over a communicator (reduction.hpp). A build without CUDA compiles this file as
// C++; the device mirror is then a host allocation and the loops serve it too.
#include "reduce/reduction.hpp"

#include "backend/device.hpp"
#include "backend/exec.hpp"
#include "common/dispatch.hpp"
#include "common/dtype.hpp"
#include "common/error.hpp"
#include "common/hd.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "primitives/primitives.hpp"
#endif

namespace pvec::impl {
namespace {

// A partial result: the value, and whether a NaN was seen (floating types only).
template <class W>
struct Partial {
  W value;
  int nan;
};

// The identity of op in W (numeric_limits is not callable from device code: spelled out).
template <class W>
PVEC_HD W identity_of(AllreduceOp op) {
  if (op == AllreduceOp::sum) return W(0);
  if constexpr (std::is_floating_point<W>::value) {
    return op == AllreduceOp::min ? W(INFINITY) : W(-INFINITY);
  } else if constexpr (std::is_signed<W>::value) {
    return op == AllreduceOp::min ? W(INT64_MAX) : W(INT64_MIN);
  } else {
    return op == AllreduceOp::min ? W(UINT64_MAX) : W(0);
  }
}

template <class W>
struct Combine {
  AllreduceOp op;
  PVEC_HD Partial<W> operator()(const Partial<W>& a, const Partial<W>& b) const {
    Partial<W> r;
    r.nan = a.nan | b.nan;
    if (op == AllreduceOp::sum)
      r.value = a.value + b.value;
    else if (op == AllreduceOp::min)
      r.value = b.value < a.value ? b.value : a.value;
    else
      r.value = b.value > a.value ? b.value : a.value;
    return r;
  }
};

// One element as a partial: NaN goes to the flag and the value to the identity, so that
// comparisons never meet a NaN.
template <class T, class W>
struct Widen {
  AllreduceOp op;
  PVEC_HD Partial<W> operator()(const T& x) const {
    const W w = static_cast<W>(x);
    if (w != w) return Partial<W>{identity_of<W>(op), 1};
    return Partial<W>{w, 0};
  }
};

// The partials of every component of one mirror's column, on the host.
template <class T, class W>
void local_host(const T* base, int64_t cap, int64_t n, int64_t ncomp, AllreduceOp op,
                Partial<W>* out) {
  const Widen<T, W> widen{op};
  const Combine<W> combine{op};
  for (int64_t c = 0; c < ncomp; ++c) {
    Partial<W> acc{identity_of<W>(op), 0};
    const T* x = base + c * cap;
    for (int64_t i = 0; i < n; ++i) acc = combine(acc, widen(x[i]));
    out[c] = acc;
  }
}

#if defined(__CUDACC__)
// The same on the device: one CUB reduction per component into device memory, one copy back.
template <class T, class W>
void local_device(const T* base, int64_t cap, int64_t n, int64_t ncomp, AllreduceOp op,
                  void* stream, ReduceScratch& s, Partial<W>* out) {
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const int count = as_cub_count(n);
  auto* dev_out = s.out.ensure_as<Partial<W>>(static_cast<size_t>(ncomp));
  const Partial<W> init{identity_of<W>(op), 0};
  for (int64_t c = 0; c < ncomp; ++c) {
    thrust::transform_iterator<Widen<T, W>, const T*, Partial<W>> in(base + c * cap,
                                                                     Widen<T, W>{op});
    size_t bytes = 0;
    check_cuda(
        cub::DeviceReduce::Reduce(nullptr, bytes, in, dev_out + c, count, Combine<W>{op}, init, st),
        "reduction: temporary storage");
    void* tmp = s.tmp.ensure(bytes);
    check_cuda(
        cub::DeviceReduce::Reduce(tmp, bytes, in, dev_out + c, count, Combine<W>{op}, init, st),
        "reduction");
  }
  copy_bytes(out, dev_out, static_cast<size_t>(ncomp) * sizeof(Partial<W>), true, stream);
  stream_synchronize(stream);
}
#endif

template <class W>
bool is_floating() {
  return std::is_floating_point<W>::value;
}

// Every rank passes the same (count, dtype, op): the signature's largest and smallest over the
// ranks agree.
void check_same_call(const Communicator& comm, int64_t count, int dtype, AllreduceOp op,
                     int64_t what) {
  const int64_t sig = ((count * 8 + dtype) * 4 + static_cast<int64_t>(op)) * 4096 + what;
  int64_t both[2] = {sig, -sig};
  comm.allreduce(both, 2, PVEC_INT64, AllreduceOp::max);
  if (both[0] != sig || -both[1] != sig)
    fail(PVEC_ERROR_INVALID_ARGUMENT,
         "the ranks did not all pass the same count, type, property and operation (a "
         "reduction is collective: every rank makes the same call); nothing was combined");
}

// Combines local partials over the ranks into result (ncomp values of W).
template <class W>
void combine_over_ranks(const Communicator& comm, std::vector<Partial<W>>& part, AllreduceOp op,
                        W* result) {
  const int64_t n = static_cast<int64_t>(part.size());
  std::vector<W> value(part.size());
  std::vector<int32_t> nan(part.size());
  for (int64_t c = 0; c < n; ++c) {
    value[c] = part[c].value;
    nan[c] = part[c].nan;
  }
  comm.allreduce(value.data(), n,
                 std::is_same<W, double>::value    ? PVEC_FLOAT64
                 : std::is_same<W, int64_t>::value ? PVEC_INT64
                                                   : PVEC_UINT64,
                 op);
  if (is_floating<W>()) comm.allreduce(nan.data(), n, PVEC_INT32, AllreduceOp::max);
  for (int64_t c = 0; c < n; ++c)
    result[c] = nan[c] != 0 ? std::numeric_limits<W>::quiet_NaN() : value[c];
}

}  // namespace

AllreduceOp allreduce_op_of(int op) {
  switch (op) {
    case PVEC_REDUCE_ADD:
      return AllreduceOp::sum;
    case PVEC_REDUCE_MIN:
      return AllreduceOp::min;
    case PVEC_REDUCE_MAX:
      return AllreduceOp::max;
    default:
      fail(PVEC_ERROR_INVALID_ARGUMENT, "op ", op,
           " is not a reduction: PVEC_REDUCE_ADD, PVEC_REDUCE_MIN or PVEC_REDUCE_MAX");
  }
}

pvec_dtype widened(pvec_dtype t) {
  switch (t) {
    case PVEC_FLOAT32:
    case PVEC_FLOAT64:
      return PVEC_FLOAT64;
    case PVEC_INT32:
    case PVEC_INT64:
      return PVEC_INT64;
    default:
      return PVEC_UINT64;
  }
}

void allreduce_values(const Communicator& comm, void* values, int64_t count, pvec_dtype dtype,
                      AllreduceOp op) {
  if (count > INT32_MAX)  // MPI counts are int; refused before a value is read
    fail(PVEC_ERROR_NOT_SUPPORTED, "an allreduce of ", count, " values (at most 2^31 - 1)");
  check_same_call(comm, count, dtype, op, 0);
  if (count == 0) return;
  with_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    T* v = static_cast<T*>(values);
    if constexpr (std::is_floating_point<T>::value) {
      std::vector<int32_t> nan(static_cast<size_t>(count));
      std::vector<T> work(v, v + count);
      for (int64_t k = 0; k < count; ++k) {
        nan[k] = v[k] != v[k];
        if (nan[k]) work[k] = identity_of<T>(op);
      }
      comm.allreduce(work.data(), count, dtype, op);
      comm.allreduce(nan.data(), count, PVEC_INT32, AllreduceOp::max);
      for (int64_t k = 0; k < count; ++k)
        v[k] = nan[k] != 0 ? std::numeric_limits<T>::quiet_NaN() : work[k];
    } else {
      comm.allreduce(v, count, dtype, op);
    }
  });
}

void reduce_column(ParticleSet& ps, int col, bool device, AllreduceOp op, const Communicator& comm,
                   ReduceScratch& s, void* result) {
  const PropertyBuffer& column = ps.column(col);
  const int64_t ncomp = column.spec.ncomp;
  check_same_call(comm, ncomp, column.spec.dtype, op, col + 1);
  const int64_t n = ps.n_local(), cap = ps.capacity();
  if (device) ps.flush_device();
  const Exec ex = ps.exec(device);
  with_dtype(column.spec.dtype, [&](auto t) {
    using T = decltype(t);
    using W = std::conditional_t<std::is_floating_point<T>::value, double,
                                 std::conditional_t<std::is_signed<T>::value, int64_t, uint64_t>>;
    std::vector<Partial<W>> part(static_cast<size_t>(ncomp));
    const T* base = static_cast<const T*>(column.mirror(device));
    comm.agree("pvec_vector_reduce", [&] {
#if defined(__CUDACC__)
      if (ex.on_device && n > 0) {
        local_device<T, W>(base, cap, n, ncomp, op, ex.stream, s, part.data());
        return;
      }
#endif
      (void)ex;
      (void)s;
      local_host<T, W>(base, cap, n, ncomp, op, part.data());
    });
    combine_over_ranks<W>(comm, part, op, static_cast<W*>(result));
  });
}

LocalStats local_stats(ParticleSet& ps, int col, bool device, ReduceScratch& s) {
  const PropertyBuffer& column = ps.column(col);
  const pvec_dtype dt = column.spec.dtype;
  if (dt != PVEC_FLOAT32 && dt != PVEC_FLOAT64)
    fail(PVEC_ERROR_DTYPE_MISMATCH, "local_stats: a float32 or float64 column, not ",
         dtype_name(dt));
  const int64_t n = ps.n_local(), cap = ps.capacity();
  if (device) ps.flush_device();
  const Exec ex = ps.exec(device);
  Partial<double> part[2];
  auto run = [&](auto t) {
    using T = decltype(t);
    const T* base = static_cast<const T*>(column.mirror(device));
    const AllreduceOp ops[2] = {AllreduceOp::sum, AllreduceOp::min};
    for (int k = 0; k < 2; ++k) {
#if defined(__CUDACC__)
      if (ex.on_device && n > 0) {
        local_device<T, double>(base, cap, n, 1, ops[k], ex.stream, s, part + k);
        continue;
      }
#endif
      local_host<T, double>(base, cap, n, 1, ops[k], part + k);
    }
  };
  if (dt == PVEC_FLOAT32)
    run(float{});
  else
    run(double{});
  (void)ex;
  (void)s;
  LocalStats out;
  out.sum = part[0].value;
  out.min = part[1].value;
  out.nan = part[0].nan != 0 || part[1].nan != 0;
  return out;
}

}  // namespace pvec::impl
