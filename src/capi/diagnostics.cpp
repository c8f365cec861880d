// Section 8 of pvec.h: diagnostics.
#include "capi/guard.hpp"
#include "memory/allocator.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 8. Diagnostics ------------------------------------------------------------------ */

extern "C" pvec_status pvec_memory_stats_get(pvec_memory_stats* out) {
  return guard("pvec_memory_stats_get", [&] {
    if (out == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (out->struct_size < sizeof(pvec_memory_stats))
      fail(PVEC_ERROR_INVALID_ARGUMENT, "out->struct_size is ", out->struct_size,
           "; set it to sizeof(pvec_memory_stats)");
    memory_stats(out);
  });
}

extern "C" pvec_status pvec_last_op_stats(pvec_vector_t vec, pvec_op_stats* out) {
  return guard("pvec_last_op_stats", [&] {
    auto& v = vec_of(vec);
    if (out == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, "out is NULL");
    static_assert(PVEC_OP_STATS_SIZE_V1 == offsetof(pvec_op_stats, particles_self),
                  "PVEC_OP_STATS_SIZE_V1 is the first layout");
    static_assert(PVEC_OP_STATS_SIZE_V2 == offsetof(pvec_op_stats, transport),
                  "PVEC_OP_STATS_SIZE_V2 is the second layout");
    if (out->struct_size < PVEC_OP_STATS_SIZE_V1)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "out->struct_size is ", out->struct_size,
           "; set it to sizeof(pvec_op_stats)");
    const auto& s = v.last_stats();
    out->compute_seconds = s.compute_seconds;
    out->exchange_seconds = s.exchange_seconds;
    out->bytes_sent = s.bytes_sent;
    out->bytes_received = s.bytes_received;
    out->particles_sent = s.particles_sent;
    out->particles_received = s.particles_received;
    if (out->struct_size >= PVEC_OP_STATS_SIZE_V2) out->particles_self = s.particles_self;
    if (out->struct_size >= sizeof(pvec_op_stats)) out->transport = s.transport;
  });
}
