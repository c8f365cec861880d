// Section 8 of pvec.h: diagnostics.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"
#include "memory/allocator.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 8. Diagnostics ------------------------------------------------------------------ */

extern "C" pvec_status pvec_memory_get_stats(pvec_memory_stats* out) {
  return guard("pvec_memory_get_stats", [&] {
    versioned_size(out, PVEC_MEMORY_STATS_SIZE_V1, "out", "pvec_memory_stats");
    pvec_memory_stats s{};
    memory_stats(&s);
    write_versioned(out, s, PVEC_MEMORY_STATS_SIZE_V1, "out", "pvec_memory_stats");
  });
}

extern "C" pvec_status pvec_vector_get_op_stats(pvec_vector_t vec, pvec_op_stats* out) {
  return guard("pvec_vector_get_op_stats", [&] {
    auto& v = vec_of(vec);
    static_assert(PVEC_OP_STATS_SIZE_V1 == sizeof(pvec_op_stats),
                  "PVEC_OP_STATS_SIZE_V1 is the whole of the first layout");
    versioned_size(out, PVEC_OP_STATS_SIZE_V1, "out", "pvec_op_stats");
    const auto& s = v.last_stats();
    pvec_op_stats o{};
    o.compute_seconds = s.compute_seconds;
    o.exchange_seconds = s.exchange_seconds;
    o.bytes_sent = s.bytes_sent;
    o.bytes_received = s.bytes_received;
    o.particles_sent = s.particles_sent;
    o.particles_received = s.particles_received;
    o.particles_self = s.particles_self;
    o.transport = s.transport;
    write_versioned(out, o, PVEC_OP_STATS_SIZE_V1, "out", "pvec_op_stats");
  });
}
