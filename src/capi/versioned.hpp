// The versioned structs of pvec.h (pvec_vector_desc, pvec_layout, pvec_memory_stats,
// pvec_op_stats) start with struct_size, and fields are only ever appended. A caller built
// against an older pvec.h passes a smaller struct_size: pvec reads or writes only that prefix
// and uses the defaults for the fields the caller does not know. A larger struct_size (a
// newer caller) is accepted; pvec then reads and writes only the fields it knows.
#pragma once

#include "common/error.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace pvec::impl::capi {

// PVEC_ERROR_INVALID_ARGUMENT unless p is non-null and its struct_size is at least first_size,
// the size of the struct's first layout.
template <class S>
size_t versioned_size(const S* p, size_t first_size, const char* what, const char* type) {
  if (p == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, what, " is NULL");
  const size_t given = p->struct_size;
  if (given < first_size)
    fail(PVEC_ERROR_INVALID_ARGUMENT, what, "->struct_size is ", given, "; set it to sizeof(", type,
         ") (at least ", first_size, ", the size of its first layout)");
  return given;
}

// The caller's struct as this library's: defaults, overwritten by the caller's prefix.
template <class S>
S read_versioned(const S* in, const S& defaults, size_t first_size, const char* what,
                 const char* type) {
  const size_t given = versioned_size(in, first_size, what, type);
  S out = defaults;
  std::memcpy(static_cast<void*>(&out), in, std::min(given, sizeof(S)));
  out.struct_size = sizeof(S);
  return out;
}

// Writes value into the caller's struct, no byte beyond its struct_size (which is kept).
template <class S>
void write_versioned(S* out, S value, size_t first_size, const char* what, const char* type) {
  const size_t given = versioned_size(out, first_size, what, type);
  value.struct_size = given;
  std::memcpy(static_cast<void*>(out), &value, std::min(given, sizeof(S)));
}

}  // namespace pvec::impl::capi
