// Rows of the bad-input matrix that need a process of their own: calls made before pvec_init
// and after pvec_finalize. hardening_state executes them in order; hardening_matrix only
// counts their function names as covered (the completeness check takes the union).
#pragma once
#include <pvec.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace hardening {

// What a state row expects: a status (with a message unless SUCCESS), plus an optional
// extra check of the call's results.
struct StateRow {
  const char* fn;    // exported function under test
  const char* what;  // the wrong state
  pvec_status want;  // documented status
  std::function<pvec_status()> call;
  std::function<bool()> extra;  // may be empty; false means failure
};

// Handles that must survive between the phases of hardening_state.
struct StateHandles {
  pvec_schema_t schema_before = nullptr;  // created before pvec_init
  pvec_vector_t vec = nullptr;            // created between init and finalize
  pvec_schema_t schema_after = nullptr;   // created after pvec_finalize
  int flag = -1;
  pvec_memory_stats mem{};
};

inline pvec_vector_desc state_desc() {
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.n_particles = 10;
  d.backend = PVEC_BACKEND_HOST;
  return d;
}

// Phase 1: before pvec_init. Schemas work; vectors need the library started.
inline std::vector<StateRow> rows_before_init(StateHandles& h) {
  return {
      {"pvec_initialized", "before init: flag is 0", PVEC_SUCCESS,
       [&h] { return pvec_initialized(&h.flag); }, [&h] { return h.flag == 0; }},
      {"pvec_finalize", "before init", PVEC_ERROR_STATE, [] { return pvec_finalize(); }, {}},
      {"pvec_schema_create",
       "before init is allowed",
       PVEC_SUCCESS,
       [&h] { return pvec_schema_create(&h.schema_before); },
       {}},
      {"pvec_schema_add_scalar",
       "before init is allowed",
       PVEC_SUCCESS,
       [&h] { return pvec_schema_add_scalar(h.schema_before, "m", PVEC_FLOAT64, nullptr); },
       {}},
      {"pvec_vector_create",
       "before init",
       PVEC_ERROR_STATE,
       [&h] {
         const pvec_vector_desc d = state_desc();
         pvec_vector_t out = nullptr;
         return pvec_vector_create(&d, h.schema_before, &out);
       },
       {}},
      {"pvec_memory_get_stats", "before init: nothing allocated", PVEC_SUCCESS,
       [&h] {
         h.mem.struct_size = sizeof h.mem;
         return pvec_memory_get_stats(&h.mem);
       },
       [&h] {
         return h.mem.host_bytes == 0 && h.mem.pinned_bytes == 0 && h.mem.device_bytes == 0;
       }},
  };
}

// Phase 2: pvec_init twice (harmless), one vector created.
inline std::vector<StateRow> rows_init(StateHandles& h, int* argc, char*** argv) {
  return {
      {"pvec_init", "first call", PVEC_SUCCESS, [=] { return pvec_init(argc, argv); }, {}},
      {"pvec_init",
       "second call is harmless",
       PVEC_SUCCESS,
       [] { return pvec_init(nullptr, nullptr); },
       {}},
      {"pvec_initialized", "after init: flag is 1", PVEC_SUCCESS,
       [&h] { return pvec_initialized(&h.flag); }, [&h] { return h.flag == 1; }},
      {"pvec_vector_create",
       "after init",
       PVEC_SUCCESS,
       [&h] {
         const pvec_vector_desc d = state_desc();
         return pvec_vector_create(&d, h.schema_before, &h.vec);
       },
       {}},
  };
}

// Phase 3: after pvec_finalize. Everything alive was destroyed; only section 1,
// pvec_initialized and schema functions may be called.
inline std::vector<StateRow> rows_after_finalize(StateHandles& h) {
  return {
      {"pvec_finalize",
       "finalize (vector and schema still alive)",
       PVEC_SUCCESS,
       [] { return pvec_finalize(); },
       {}},
      {"pvec_finalize", "twice", PVEC_ERROR_STATE, [] { return pvec_finalize(); }, {}},
      {"pvec_init",
       "after finalize",
       PVEC_ERROR_STATE,
       [] { return pvec_init(nullptr, nullptr); },
       {}},
      {"pvec_initialized", "after finalize: flag is 0", PVEC_SUCCESS,
       [&h] { return pvec_initialized(&h.flag); }, [&h] { return h.flag == 0; }},
      {"pvec_vector_get_size",
       "vector destroyed by finalize",
       PVEC_ERROR_INVALID_HANDLE,
       [&h] {
         int64_t n = 0;
         return pvec_vector_get_size(h.vec, &n);
       },
       {}},
      {"pvec_vector_destroy",
       "vector destroyed by finalize",
       PVEC_ERROR_INVALID_HANDLE,
       [&h] { return pvec_vector_destroy(h.vec); },
       {}},
      {"pvec_schema_get_count",
       "schema destroyed by finalize",
       PVEC_ERROR_INVALID_HANDLE,
       [&h] {
         int n = 0;
         return pvec_schema_get_count(h.schema_before, &n);
       },
       {}},
      {"pvec_schema_create",
       "after finalize is allowed",
       PVEC_SUCCESS,
       [&h] { return pvec_schema_create(&h.schema_after); },
       {}},
      {"pvec_schema_add_vector",
       "after finalize is allowed",
       PVEC_SUCCESS,
       [&h] { return pvec_schema_add_vector(h.schema_after, "v", PVEC_FLOAT32, 3, nullptr); },
       {}},
      {"pvec_vector_create",
       "after finalize",
       PVEC_ERROR_STATE,
       [&h] {
         const pvec_vector_desc d = state_desc();
         pvec_vector_t out = nullptr;
         return pvec_vector_create(&d, h.schema_after, &out);
       },
       {}},
      {"pvec_memory_get_stats", "after finalize: every byte returned", PVEC_SUCCESS,
       [&h] {
         h.mem.struct_size = sizeof h.mem;
         return pvec_memory_get_stats(&h.mem);
       },
       [&h] {
         return h.mem.host_bytes == 0 && h.mem.pinned_bytes == 0 && h.mem.device_bytes == 0;
       }},
      {"pvec_schema_destroy",
       "after finalize is allowed",
       PVEC_SUCCESS,
       [&h] { return pvec_schema_destroy(h.schema_after); },
       {}},
  };
}

// Names of every function some state row calls (for the completeness check).
inline std::vector<std::string> state_row_functions() {
  StateHandles h;
  std::vector<std::string> names;
  const std::vector<StateRow> phases[] = {rows_before_init(h), rows_init(h, nullptr, nullptr),
                                          rows_after_finalize(h)};
  for (const auto& rows : phases)
    for (const StateRow& r : rows) names.push_back(r.fn);
  return names;
}

}  // namespace hardening
