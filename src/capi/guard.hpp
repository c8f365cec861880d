// The guard of the C ABI: every extern "C" function checks its arguments, calls the layer
// below, and turns any exception into a status and a per-thread message (pvec_last_error).
// No logic lives in capi/: one file per section of pvec.h, each function a few lines.
#pragma once

#include <pvec.h>

#include "backend/profile_range.hpp"
#include "capi/handle_table.hpp"
#include "common/error.hpp"
#include "neighbors/cell_list.hpp"
#include "neighbors/verlet_list.hpp"
#include "particles/schema.hpp"
#include "vector/dist_vector.hpp"

#include <cstring>
#include <string>
#include <utility>

namespace pvec::impl::capi {

// The calling thread's last error message.
std::string& last_error();

HandleTable<Schema>& schemas();
HandleTable<DistVector>& vectors();

// A neighbour structure refers to its vector by handle, so that a destroyed vector is
// reported (INVALID_HANDLE) instead of read.
struct CellListObject {
  pvec_vector_t vec;
  CellListParams params;
  CellList list;
};
struct VerletObject {
  pvec_vector_t vec;
  pvec_vector_t source = nullptr;  // the vector whose rows are the neighbours (null: vec)
  VerletParams params;
  VerletList list;
};
HandleTable<CellListObject>& cell_lists();
HandleTable<VerletObject>& verlet_lists();

template <class F>
pvec_status guard(const char* fn, F&& body) {
  std::string& err = last_error();
  err.clear();
  try {
    body();
    return PVEC_SUCCESS;
  } catch (const Error& e) {
    err = std::string(fn) + ": " + e.what();
    return e.status();
  } catch (const std::bad_alloc&) {
    err = std::string(fn) + ": out of host memory";
    return PVEC_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    err = std::string(fn) + ": internal error: " + e.what();
    return PVEC_ERROR_INTERNAL;
  } catch (...) {
    err = std::string(fn) + ": internal error: unknown exception";
    return PVEC_ERROR_INTERNAL;
  }
}

// guard for an operation (not a query or a setting): also an NVTX range named after the C
// function, which Nsight Systems shows in the caller's timeline (backend/profile_range.hpp).
template <class F>
pvec_status op_guard(const char* fn, F&& body) {
  ProfileRange range(fn);
  return guard(fn, std::forward<F>(body));
}

// An enum argument from C may hold any int: read its bits as an int before validating, never
// as the C++ enum (whose out-of-range values are undefined behaviour).
// Taken by reference: copying the parameter would already be a typed load.
template <class E>
inline int enum_value(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "pvec enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

template <class T>
T& out_arg(T* p, const char* name) {
  if (p == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, name, " is NULL");
  return *p;
}

// PVEC_ERROR_STATE unless pvec_init was called (and pvec_finalize not yet).
void require_init();

// The vector of a handle, its size settled first (an asynchronous removal's count taken:
// DistVector::settle), so that the call sees the particles as they are.
inline DistVector& vec_of(pvec_vector_t v) {
  DistVector& d = vectors().get(v);
  d.settle();
  return d;
}
// The vector without waiting for a pending removal: for the calls that do not depend on the
// local count (pointers, the stream).
inline DistVector& vec_unsettled(pvec_vector_t v) { return vectors().get(v); }

// INVALID_ARGUMENT naming the flags outside allowed.
inline void check_flags(unsigned flags, unsigned allowed) {
  if ((flags & ~allowed) != 0)
    fail(PVEC_ERROR_INVALID_ARGUMENT, "unknown flags 0x", std::hex, flags & ~allowed,
         " (this call takes 0x", allowed, ")");
}

// Getter returning a pointer: NULL on error, message set.
template <class F>
void* pointer_guard(const char* fn, F&& body) {
  void* result = nullptr;
  guard(fn, [&] { result = body(); });
  return result;
}

}  // namespace pvec::impl::capi
