// pvec.h section 7, reductions over the vector's communicator.
#include "capi/guard.hpp"
#include "common/dtype.hpp"
#include "reduce/reduction.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

extern "C" pvec_status pvec_vector_reduce(pvec_vector_t vec, int prop, pvec_reduce_op op,
                                          unsigned flags, void* result) {
  return op_guard("pvec_vector_reduce", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE);
    if (result == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "result is NULL");
    const AllreduceOp o = allreduce_op_of(enum_value(op));
    v.reduce(prop, o, (flags & PVEC_ON_DEVICE) != 0, result);
  });
}

extern "C" pvec_status pvec_vector_allreduce(pvec_vector_t vec, void* values, int64_t count,
                                             pvec_dtype dtype, pvec_reduce_op op) {
  return op_guard("pvec_vector_allreduce", [&] {
    auto& v = vec_of(vec);
    if (count < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "count ", count, " is negative");
    if (values == nullptr && count > 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "values is NULL");
    const int d = enum_value(dtype);
    if (!dtype_valid(d)) fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown dtype ", d);
    allreduce_values(v.comm(), values, count, static_cast<pvec_dtype>(d),
                     allreduce_op_of(enum_value(op)));
  });
}
