// Section 4 of pvec.h, removal by mark and particles created by kernels; particle ids.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

namespace {
MarkSource mark_source(const DistVector& v, int mark_prop, const int32_t* marks) {
  MarkSource m;
  if (mark_prop != PVEC_NO_PROPERTY) m.column = v.column_of(mark_prop);
  m.flags = marks;
  return m;
}
}  // namespace

extern "C" pvec_status pvec_vector_remove_marked(pvec_vector_t vec, int mark_prop,
                                                 const int32_t* marks, unsigned flags,
                                                 int64_t* n_removed) {
  return op_guard("pvec_vector_remove_marked", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_REMOVE_FILL_HOLES);
    const int64_t removed = v.remove_marked(mark_source(v, mark_prop, marks), flags);
    if (n_removed != nullptr) *n_removed = removed;
  });
}

extern "C" pvec_status pvec_vector_remove_marked_async(pvec_vector_t vec, int mark_prop,
                                                       const int32_t* marks, unsigned flags,
                                                       int64_t* n_removed_dev) {
  return op_guard("pvec_vector_remove_marked_async", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_REMOVE_FILL_HOLES);
    v.remove_marked_async(mark_source(v, mark_prop, marks), flags, n_removed_dev);
  });
}

extern "C" pvec_status pvec_vector_spawn_begin(pvec_vector_t vec, int64_t max_new, unsigned flags,
                                               pvec_spawner* spawner) {
  return op_guard("pvec_vector_spawn_begin", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE);
    versioned_size(spawner, PVEC_SPAWNER_SIZE_V1, "spawner", "pvec_spawner");
    const pvec_spawner sp = v.spawn_begin(max_new, flags);
    write_versioned(spawner, sp, PVEC_SPAWNER_SIZE_V1, "spawner", "pvec_spawner");
  });
}

extern "C" pvec_status pvec_vector_spawn_commit(pvec_vector_t vec, int64_t* n_added) {
  return op_guard("pvec_vector_spawn_commit", [&] { vec_of(vec).spawn_commit(n_added); });
}

extern "C" pvec_status pvec_vector_spawn_cancel(pvec_vector_t vec) {
  return guard("pvec_vector_spawn_cancel", [&] { vec_of(vec).spawn_cancel(); });
}

extern "C" pvec_status pvec_vector_ids_init(pvec_vector_t vec, int id_prop, unsigned flags) {
  return op_guard("pvec_vector_ids_init", [&] {
    auto& v = vec_of(vec);
    check_flags(flags, PVEC_ON_DEVICE | PVEC_IDS_KEEP);
    v.ids_init(id_prop, flags);
  });
}

extern "C" pvec_status pvec_vector_ids_take(pvec_vector_t vec, int64_t count, int64_t* first,
                                            int64_t* stride) {
  return guard("pvec_vector_ids_take", [&] { vec_of(vec).ids_take(count, first, stride); });
}
