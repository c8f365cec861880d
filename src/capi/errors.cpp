// Section 1 of pvec.h: versions, status codes and errors.
#include "capi/guard.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 1. Versions and errors ---------------------------------------------------------- */

extern "C" int pvec_version_number(void) { return PVEC_VERSION_NUMBER; }

extern "C" const char* pvec_version_string(void) {
#define PVEC_STR2(x) #x
#define PVEC_STR(x) PVEC_STR2(x)
  return PVEC_STR(PVEC_VERSION_MAJOR) "." PVEC_STR(PVEC_VERSION_MINOR) "." PVEC_STR(
      PVEC_VERSION_PATCH);
}

extern "C" const char* pvec_status_string(pvec_status status) {
  switch (enum_value(status)) {
    case PVEC_SUCCESS:
      return "success";
    case PVEC_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case PVEC_ERROR_INVALID_HANDLE:
      return "invalid handle";
    case PVEC_ERROR_OUT_OF_RANGE:
      return "index out of range";
    case PVEC_ERROR_OVERFLOW:
      return "size overflow";
    case PVEC_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case PVEC_ERROR_NO_DEVICE:
      return "no CUDA device";
    case PVEC_ERROR_CUDA:
      return "CUDA error";
    case PVEC_ERROR_MPI:
      return "MPI error";
    case PVEC_ERROR_STATE:
      return "call not allowed in this state";
    case PVEC_ERROR_PARTICLES_OUTSIDE:
      return "particles outside the domain";
    case PVEC_ERROR_DTYPE_MISMATCH:
      return "dtype mismatch";
    case PVEC_ERROR_NOT_SUPPORTED:
      return "not supported by this build";
    case PVEC_ERROR_INTERNAL:
      return "internal error";
    case PVEC_ERROR_IO:
      return "file input/output error";
    case PVEC_ERROR_STALE_MIRROR:
      return "mirror holds older values than the other";
  }
  return "unknown status";
}

extern "C" const char* pvec_last_error(void) { return last_error().c_str(); }
