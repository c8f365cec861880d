// Section 2 of pvec.h: library start and end.
#include "capi/guard.hpp"
#include "backend/device.hpp"
#include "runtime/environment.hpp"

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
