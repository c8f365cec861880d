// Section 6 of pvec.h: host <-> device transfers and streams.
#include "capi/guard.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 6. Transfers -------------------------------------------------------------------- */

extern "C" pvec_status pvec_vector_set_stream(pvec_vector_t vec, pvec_stream_t stream) {
  return guard("pvec_vector_set_stream", [&] {
    auto& v = vec_of(vec);
    v.mirrors().sync_stream();
    v.mirrors().set_stream(stream);
  });
}

extern "C" pvec_status pvec_vector_get_stream(pvec_vector_t vec, pvec_stream_t* stream) {
  return guard("pvec_vector_get_stream", [&] {
    auto& v = vec_unsettled(vec);
    out_arg(stream, "stream") = static_cast<pvec_stream_t>(v.particles().stream());
  });
}

namespace {
pvec_status transfer(const char* fn, pvec_vector_t vec, const int* props, int nprops,
                     bool to_device, bool async, void* stream) {
  return op_guard(fn, [&] {
    auto& v = vec_of(vec);
    std::vector<int> cols = v.columns_of(props, nprops, true);
    v.transfer(to_device, cols, async ? stream : v.particles().stream(), !async);
  });
}
}  // namespace

extern "C" pvec_status pvec_host_to_device(pvec_vector_t vec, const int* props, int nprops) {
  return transfer("pvec_host_to_device", vec, props, nprops, true, false, nullptr);
}
extern "C" pvec_status pvec_device_to_host(pvec_vector_t vec, const int* props, int nprops) {
  return transfer("pvec_device_to_host", vec, props, nprops, false, false, nullptr);
}
extern "C" pvec_status pvec_host_to_device_async(pvec_vector_t vec, const int* props, int nprops,
                                                 pvec_stream_t stream) {
  return transfer("pvec_host_to_device_async", vec, props, nprops, true, true, stream);
}
extern "C" pvec_status pvec_device_to_host_async(pvec_vector_t vec, const int* props, int nprops,
                                                 pvec_stream_t stream) {
  return transfer("pvec_device_to_host_async", vec, props, nprops, false, true, stream);
}

extern "C" pvec_status pvec_vector_synchronize(pvec_vector_t vec) {
  return op_guard("pvec_vector_synchronize", [&] { vec_of(vec).particles().sync_stream(); });
}

/* ---- 6. Mirror coherence ------------------------------------------------------------- */

namespace {
unsigned row_sets(unsigned flags) {
  const unsigned rows =
      (flags & PVEC_ROWS_LOCAL ? kRowsLocal : 0u) | (flags & PVEC_ROWS_GHOST ? kRowsGhost : 0u);
  return rows == 0 ? kRowsAll : rows;
}
}  // namespace

extern "C" pvec_status pvec_vector_mark_modified(pvec_vector_t vec, const int* props, int nprops,
                                                 unsigned flags) {
  return guard("pvec_vector_mark_modified", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_ROWS_LOCAL | PVEC_ROWS_GHOST);
    const std::vector<int> cols = v.columns_of(props, nprops, true);
    v.mark_written((flags & PVEC_ON_DEVICE) != 0, cols, row_sets(flags),
                   "the caller (pvec_vector_mark_modified)");
  });
}

extern "C" pvec_status pvec_vector_sync(pvec_vector_t vec, const int* props, int nprops,
                                        unsigned flags) {
  return op_guard("pvec_vector_sync", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_ROWS_LOCAL | PVEC_ROWS_GHOST);
    const std::vector<int> cols = v.columns_of(props, nprops, true);
    v.require_no_flight("pvec_vector_sync");
    v.sync((flags & PVEC_ON_DEVICE) != 0, cols, row_sets(flags));
  });
}

extern "C" pvec_status pvec_vector_get_mirror_state(pvec_vector_t vec, int prop, unsigned* state) {
  return guard("pvec_vector_get_mirror_state", [&] {
    auto& v = vec_of(vec);
    const int col = v.column_of(prop);
    out_arg(state, "state") = v.currency(col);
  });
}

extern "C" pvec_status pvec_vector_set_auto_sync(pvec_vector_t vec, int on) {
  return guard("pvec_vector_set_auto_sync", [&] { vec_of(vec).set_auto_sync(on != 0); });
}
