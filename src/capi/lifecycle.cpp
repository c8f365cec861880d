// Section 2 of pvec.h: library start and end.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"
#include "backend/device.hpp"
#include "runtime/environment.hpp"
#include "runtime/options.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 2. Start and end ---------------------------------------------------------------- */

extern "C" pvec_status pvec_init(int* argc, char*** argv) {
  return guard("pvec_init", [&] { environment_init(argc, argv); });
}

extern "C" pvec_status pvec_finalize(void) {
  return guard("pvec_finalize", [&] {
    require_init();
    // Vectors hold duplicated communicators: free them while MPI is alive.
    cell_lists().take_all();
    verlet_lists().take_all();
    vectors().take_all();
    schemas().take_all();
    environment_finalize();
  });
}

extern "C" pvec_status pvec_initialized(int* flag) {
  return guard("pvec_initialized",
               [&] { out_arg(flag, "flag") = environment_initialized() ? 1 : 0; });
}

extern "C" pvec_status pvec_cuda_device_count(int* count) {
  return guard("pvec_cuda_device_count", [&] { out_arg(count, "count") = device_count(); });
}

/* ---- Run-time options ------------------------------------------------------------------ */

extern "C" pvec_status pvec_options_get_count(int* count) {
  return guard("pvec_options_get_count", [&] { out_arg(count, "count") = kOptionCount; });
}

extern "C" pvec_status pvec_options_get_info(int index, pvec_option_info* out) {
  return guard("pvec_options_get_info", [&] {
    versioned_size(out, PVEC_OPTION_INFO_SIZE_V1, "out", "pvec_option_info");
    if (index < 0 || index >= kOptionCount)
      fail(PVEC_ERROR_OUT_OF_RANGE, "option ", index, " out of range: there are ", kOptionCount);
    const Option o = static_cast<Option>(index);
    const OptionSpec& spec = option_spec(o);
    pvec_option_info info = PVEC_OPTION_INFO_INIT;
    info.name = spec.name;
    info.accepts = spec.values;
    info.default_value = spec.default_value;
    info.meaning = spec.meaning;
    info.source = static_cast<int>(option_source(o));
    info.value = option_value(o);
    write_versioned(out, info, PVEC_OPTION_INFO_SIZE_V1, "out", "pvec_option_info");
  });
}

extern "C" pvec_status pvec_options_get_text(const char** text) {
  return guard("pvec_options_get_text", [&] { out_arg(text, "text") = options_text().c_str(); });
}

extern "C" pvec_status pvec_options_set(const char* name, const char* value) {
  return guard("pvec_options_set", [&] { options_set(name, value); });
}
