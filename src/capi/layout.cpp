// Section 5 of pvec.h: layout and raw pointers.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"

#include <cstring>
#include <vector>

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 5. Layout and pointers ---------------------------------------------------------- */

extern "C" pvec_status pvec_vector_get_layout(pvec_vector_t vec, int prop, pvec_layout* out) {
  return guard("pvec_vector_get_layout", [&] {
    auto& v = vec_of(vec);
    versioned_size(out, PVEC_LAYOUT_SIZE_V1, "out", "pvec_layout");
    write_versioned(out, v.layout(prop), PVEC_LAYOUT_SIZE_V1, "out", "pvec_layout");
  });
}

extern "C" pvec_status pvec_vector_get_layouts(pvec_vector_t vec, const int* props, int nprops,
                                               pvec_layout* out, int n_out) {
  return guard("pvec_vector_get_layouts", [&] {
    auto& v = vec_of(vec);
    const size_t stride = versioned_size(out, PVEC_LAYOUT_SIZE_V1, "out", "pvec_layout");
    const std::vector<int> list = v.prop_list(props, nprops);
    if (n_out < 0 || static_cast<size_t>(n_out) < list.size())
      fail(PVEC_ERROR_INVALID_ARGUMENT, "out has room for ", n_out, " layouts, ", list.size(),
           " asked", props == nullptr ? " (the positions and every property)" : "");
    std::vector<pvec_layout> got;
    for (int prop : list) got.push_back(v.layout(prop));  // every check before any write
    char* at = reinterpret_cast<char*>(out);
    for (size_t k = 0; k < got.size(); ++k) {
      pvec_layout* slot = reinterpret_cast<pvec_layout*>(at + k * stride);
      std::memcpy(static_cast<void*>(slot), &stride, sizeof stride);  // the caller's size
      write_versioned(slot, got[k], PVEC_LAYOUT_SIZE_V1, "out", "pvec_layout");
    }
  });
}

extern "C" void* pvec_host_ptr(pvec_vector_t vec, int prop) {
  return pointer_guard("pvec_host_ptr", [&]() -> void* {
    auto& v = vec_unsettled(vec);
    return v.particles().column(v.column_of(prop)).host;
  });
}

extern "C" void* pvec_device_ptr(pvec_vector_t vec, int prop) {
  return pointer_guard("pvec_device_ptr", [&]() -> void* {
    auto& v = vec_unsettled(vec);
    int col = v.column_of(prop);
    v.mirrors().flush_device();
    return v.particles().column(col).dev;
  });
}
