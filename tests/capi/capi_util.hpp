// Helpers for the C-ABI tests: RAII owners for handles, status assertions that show
// pvec_last_error(), typed element access by runtime dtype, value patterns and whole-vector
// snapshots. The tests talk to pvec only through pvec.h.
#pragma once
#include <pvec.h>

#include "snapshot.hpp"

#include "catch_compat.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

// Copies the last error before anything else runs: every pvec call (even the string
// functions, if the library chooses so) may clear it.
#define PVEC_REQUIRE_OK(call)                                                                      \
  do {                                                                                             \
    const pvec_status s_ = (call);                                                                 \
    const std::string e_ = pvec_last_error();                                                      \
    INFO(#call << " -> " << static_cast<int>(s_) << " (" << pvec_status_string(s_) << ") " << e_); \
    REQUIRE(s_ == PVEC_SUCCESS);                                                                   \
  } while (0)

// Asserts a failed call: the expected status, a non-empty last error, a non-NULL string.
#define PVEC_REQUIRE_STATUS(call, expected)                                                        \
  do {                                                                                             \
    const pvec_status s_ = (call);                                                                 \
    const std::string e_ = pvec_last_error();                                                      \
    INFO(#call << " -> " << static_cast<int>(s_) << " (" << pvec_status_string(s_) << ") " << e_); \
    REQUIRE(s_ == (expected));                                                                     \
    REQUIRE(!e_.empty());                                                                          \
    REQUIRE(pvec_status_string(s_) != nullptr);                                                    \
  } while (0)

// Checks that a Mismatch-returning expression found no difference, showing the first one.
// Variadic so that braced lists in the expression need no extra parentheses.
#define PVEC_CHECK_MATCH(...)                \
  do {                                       \
    const capi::Mismatch m_ = (__VA_ARGS__); \
    INFO(#__VA_ARGS__ << ": " << m_.first);  \
    CHECK(m_.count == 0);                    \
  } while (0)

namespace capi {

/// Owns a schema handle.
class Schema {
 public:
  Schema();
  ~Schema();
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;
  pvec_schema_t get() const { return h_; }

 private:
  pvec_schema_t h_ = nullptr;
};

/// Owns a vector handle.
class Vector {
 public:
  Vector() = default;
  explicit Vector(pvec_vector_t h) : h_(h) {}
  ~Vector();
  Vector(Vector&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Vector& operator=(Vector&& o) noexcept;
  Vector(const Vector&) = delete;
  Vector& operator=(const Vector&) = delete;
  pvec_vector_t get() const { return h_; }

 private:
  pvec_vector_t h_ = nullptr;
};

/// One property declaration: rank 0 ignores n and m, rank 1 uses n.
struct PropSpec {
  std::string name;
  pvec_dtype dtype;
  int rank;
  int64_t n;
  int64_t m;
};

/// The six dtypes, in enum order.
std::vector<pvec_dtype> all_dtypes();

/// The five shapes of the tests (scalar, vector[1], vector[3], tensor[2][2], tensor[3][2])
/// for every dtype: 30 properties with distinct names.
std::vector<PropSpec> all_shapes_all_dtypes();

/// A small mixed set: float64 scalar, int32 vector[3], float32 tensor[2][2], uint64 scalar.
std::vector<PropSpec> mixed_props();

/// Number of components of a declaration.
int64_t ncomp_of(const PropSpec& p);

/// Schema with the given properties (added through pvec_schema_add).
void add_props(pvec_schema_t schema, const std::vector<PropSpec>& props);

/// Descriptor with LOCAL placement (counts per rank, the tests are serial).
pvec_vector_desc make_desc(int64_t n, int dim = 3, pvec_dtype pos_dtype = PVEC_FLOAT64,
                           pvec_backend backend = PVEC_BACKEND_AUTO);

/// Creates a vector with the properties and the descriptor; REQUIREs success.
Vector make_vector(const std::vector<PropSpec>& props, const pvec_vector_desc& desc);

/// Backends to run the tests on: AUTO (CUDA when a device is usable, else host), plus an
/// explicit HOST when AUTO resolves to CUDA, so both code paths are exercised on a GPU box.
std::vector<pvec_backend> test_backends();

/// Backend a vector resolved to.
pvec_backend backend_of(pvec_vector_t v);

/// Properties of v followed by PVEC_POS.
std::vector<int> all_fields(pvec_vector_t v);

/// Layout of one field; REQUIREs success.
pvec_layout layout_of(pvec_vector_t v, int field);

int64_t size_of(pvec_vector_t v);
int64_t capacity_of(pvec_vector_t v);
uint64_t generation_of(pvec_vector_t v);

/// Element idx of a buffer of dtype, converted to double (values used are exact).
double get_elem(const void* base, pvec_dtype dtype, int64_t idx);
void set_elem(void* base, pvec_dtype dtype, int64_t idx, double value);

/// Value pattern: an integer in [1, 2^23] (exact in every dtype), distinct for distinct
/// (c, i) with c < 8 and i < 2^20 within one (field, salt).
double pattern(int field, int64_t c, int64_t i, int salt);

/// Writes pattern(field, c, i, salt) into the host mirror for particles [i0, i1).
void fill_host(pvec_vector_t v, int field, int salt, int64_t i0, int64_t i1);
/// Same for every field.
void fill_host_all(pvec_vector_t v, int salt, int64_t i0, int64_t i1);
/// Writes value into every component of particles [i0, i1) of the host mirror.
void set_host_all(pvec_vector_t v, double value, int64_t i0, int64_t i1);

/// Result of a comparison: how many elements differ, and the first difference as text.
struct Mismatch {
  int64_t count = 0;
  std::string first;
  void add(const Mismatch& o) {
    if (count == 0) first = o.first;
    count += o.count;
  }
};

/// Elements of particles [i0, i1) of one mirror (host: the layout's host_ptr; device: its
/// device_ptr, readable only with the host backend) that differ from pattern(l.prop, c, i,
/// salt); salt < 0 means "expect zero".
Mismatch count_mismatch(const pvec_layout& l, bool device_mirror, int salt, int64_t i0, int64_t i1);
/// count_mismatch over every field of v, host mirror.
Mismatch host_mismatch_all(pvec_vector_t v, int salt, int64_t i0, int64_t i1);
/// count_mismatch over every field of v's device mirror, read by a device_to_host after
/// poisoning the live host range: valid on every backend, but overwrites the host mirror.
Mismatch device_mismatch_all_via_copy(pvec_vector_t v, int salt, int64_t i0, int64_t i1);

// The vector snapshot of tests/support (sizes and the live bytes of both mirrors).
using pvec_test::compare_rows;
using pvec_test::Snapshot;
using pvec_test::snapshot;
using pvec_test::to_string;

}  // namespace capi
