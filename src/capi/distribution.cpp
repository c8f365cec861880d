// Section 7 of pvec.h: distribution over MPI.
#include "capi/guard.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

namespace {
void check_reduce_op(const pvec_reduce_op& op) {
  const int op_value = enum_value(op);
  if (op_value < PVEC_REDUCE_ADD || op_value > PVEC_REDUCE_REPLACE)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown reduction ", op_value);
}
}  // namespace

/* ---- 7. Distribution ----------------------------------------------------------------- */

extern "C" pvec_status pvec_vector_get_rank(pvec_vector_t vec, int* rank) {
  return guard("pvec_vector_get_rank", [&] {
    auto& v = vec_of(vec);
    out_arg(rank, "rank") = v.comm().rank();
  });
}

extern "C" pvec_status pvec_vector_get_nranks(pvec_vector_t vec, int* size) {
  return guard("pvec_vector_get_nranks", [&] {
    auto& v = vec_of(vec);
    out_arg(size, "size") = v.comm().size();
  });
}

extern "C" pvec_status pvec_vector_get_subdomain(pvec_vector_t vec, double* lo, double* hi) {
  return guard("pvec_vector_get_subdomain", [&] {
    auto& v = vec_of(vec);
    if (lo == nullptr && hi == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "lo and hi are NULL");
    v.subdomain(v.comm().rank(), lo, hi);
  });
}

extern "C" pvec_status pvec_vector_get_owner_rank(pvec_vector_t vec, const double* x, int* rank) {
  return guard("pvec_vector_get_owner_rank", [&] {
    auto& v = vec_of(vec);
    if (x == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "x is NULL");
    out_arg(rank, "rank") = v.owner_rank(x);
  });
}

extern "C" pvec_status pvec_map(pvec_vector_t vec, unsigned flags, int64_t* n_removed) {
  return op_guard("pvec_map", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_MAP_REMOVE_OUTSIDE);
    int64_t removed = v.map(flags);
    if (n_removed) *n_removed = removed;
  });
}

extern "C" pvec_status pvec_ghost_get(pvec_vector_t vec, const int* props, int nprops,
                                      unsigned flags) {
  return op_guard("pvec_ghost_get", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_GHOST_REUSE_PLAN | PVEC_GHOST_SKIP_POSITIONS);
    v.ghost_get(props, nprops, flags);
  });
}

extern "C" pvec_status pvec_ghost_put(pvec_vector_t vec, const int* props, int nprops,
                                      pvec_reduce_op op, unsigned flags) {
  return op_guard("pvec_ghost_put", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE);
    check_reduce_op(op);
    v.ghost_put(props, nprops, op, flags);
  });
}

/* ---- Split-phase ghost exchange -------------------------------------------------------- */

extern "C" pvec_status pvec_ghost_get_begin(pvec_vector_t vec, const int* props, int nprops,
                                            unsigned flags) {
  return op_guard("pvec_ghost_get_begin", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_GHOST_REUSE_PLAN | PVEC_GHOST_SKIP_POSITIONS);
    v.ghost_get_begin(props, nprops, flags);
  });
}

extern "C" pvec_status pvec_ghost_get_end(pvec_vector_t vec) {
  return op_guard("pvec_ghost_get_end", [&] { vec_of(vec).ghost_get_end(); });
}

extern "C" pvec_status pvec_ghost_put_begin(pvec_vector_t vec, const int* props, int nprops,
                                            pvec_reduce_op op, unsigned flags) {
  return op_guard("pvec_ghost_put_begin", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE);
    check_reduce_op(op);
    v.ghost_put_begin(props, nprops, op, flags);
  });
}

extern "C" pvec_status pvec_ghost_put_end(pvec_vector_t vec) {
  return op_guard("pvec_ghost_put_end", [&] { vec_of(vec).ghost_put_end(); });
}
