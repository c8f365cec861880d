#include "capi_util.hpp"

#include <sstream>

namespace capi {

Schema::Schema() { PVEC_REQUIRE_OK(pvec_schema_create(&h_)); }

Schema::~Schema() {
  if (h_ != nullptr) pvec_schema_destroy(h_);
}

Vector::~Vector() {
  if (h_ != nullptr) pvec_vector_destroy(h_);
}

Vector& Vector::operator=(Vector&& o) noexcept {
  if (this != &o) {
    if (h_ != nullptr) pvec_vector_destroy(h_);
    h_ = o.h_;
    o.h_ = nullptr;
  }
  return *this;
}

std::vector<pvec_dtype> all_dtypes() {
  return {PVEC_FLOAT32, PVEC_FLOAT64, PVEC_INT32, PVEC_INT64, PVEC_UINT32, PVEC_UINT64};
}

std::vector<PropSpec> all_shapes_all_dtypes() {
  std::vector<PropSpec> out;
  for (pvec_dtype dt : all_dtypes()) {
    const std::string d = pvec_dtype_name(dt);
    out.push_back({"s_" + d, dt, 0, 1, 1});
    out.push_back({"v1_" + d, dt, 1, 1, 1});
    out.push_back({"v3_" + d, dt, 1, 3, 1});
    out.push_back({"t22_" + d, dt, 2, 2, 2});
    out.push_back({"t32_" + d, dt, 2, 3, 2});
  }
  return out;
}

std::vector<PropSpec> mixed_props() {
  return {{"mass", PVEC_FLOAT64, 0, 1, 1},
          {"cell", PVEC_INT32, 1, 3, 1},
          {"stress", PVEC_FLOAT32, 2, 2, 2},
          {"id", PVEC_UINT64, 0, 1, 1}};
}

int64_t ncomp_of(const PropSpec& p) { return p.rank == 0 ? 1 : p.rank == 1 ? p.n : p.n * p.m; }

void add_props(pvec_schema_t schema, const std::vector<PropSpec>& props) {
  for (size_t k = 0; k < props.size(); ++k) {
    const PropSpec& p = props[k];
    const int64_t ext[2] = {p.n, p.m};
    int index = -7;
    PVEC_REQUIRE_OK(pvec_schema_add(schema, p.name.c_str(), p.dtype, p.rank, ext, &index));
    REQUIRE(index == static_cast<int>(k));
  }
}

pvec_vector_desc make_desc(int64_t n, int dim, pvec_dtype pos_dtype, pvec_backend backend) {
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = dim;
  d.pos_dtype = pos_dtype;
  d.n_particles = n;
  d.placement = PVEC_PLACE_LOCAL;
  d.backend = backend;
  return d;
}

Vector make_vector(const std::vector<PropSpec>& props, const pvec_vector_desc& desc) {
  Schema s;
  add_props(s.get(), props);
  pvec_vector_t h = nullptr;
  PVEC_REQUIRE_OK(pvec_vector_create(&desc, s.get(), &h));
  REQUIRE(h != nullptr);
  return Vector(h);
}

std::vector<pvec_backend> test_backends() {
  int count = 0;
  PVEC_REQUIRE_OK(pvec_cuda_device_count(&count));
  if (count > 0) return {PVEC_BACKEND_AUTO, PVEC_BACKEND_HOST};
  return {PVEC_BACKEND_AUTO};
}

pvec_backend backend_of(pvec_vector_t v) {
  pvec_backend b = PVEC_BACKEND_AUTO;
  PVEC_REQUIRE_OK(pvec_vector_get_backend(v, &b));
  REQUIRE((b == PVEC_BACKEND_HOST || b == PVEC_BACKEND_CUDA));
  return b;
}

std::vector<int> all_fields(pvec_vector_t v) {
  int n = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_prop_count(v, &n));
  std::vector<int> out;
  for (int p = 0; p < n; ++p) out.push_back(p);
  out.push_back(PVEC_POS);
  return out;
}

pvec_layout layout_of(pvec_vector_t v, int field) {
  pvec_layout l = PVEC_LAYOUT_INIT;
  PVEC_REQUIRE_OK(pvec_vector_get_layout(v, field, &l));
  return l;
}

int64_t size_of(pvec_vector_t v) {
  int64_t n = -1;
  PVEC_REQUIRE_OK(pvec_vector_get_size(v, &n));
  return n;
}

int64_t capacity_of(pvec_vector_t v) {
  int64_t c = -1;
  PVEC_REQUIRE_OK(pvec_vector_get_capacity(v, &c));
  return c;
}

uint64_t generation_of(pvec_vector_t v) {
  uint64_t g = 0;
  PVEC_REQUIRE_OK(pvec_vector_get_generation(v, &g));
  return g;
}

double get_elem(const void* base, pvec_dtype dtype, int64_t idx) {
  switch (dtype) {
    case PVEC_FLOAT32:
      return static_cast<const float*>(base)[idx];
    case PVEC_FLOAT64:
      return static_cast<const double*>(base)[idx];
    case PVEC_INT32:
      return static_cast<const int32_t*>(base)[idx];
    case PVEC_INT64:
      return static_cast<double>(static_cast<const int64_t*>(base)[idx]);
    case PVEC_UINT32:
      return static_cast<const uint32_t*>(base)[idx];
    case PVEC_UINT64:
      return static_cast<double>(static_cast<const uint64_t*>(base)[idx]);
  }
  FAIL("unknown dtype " << static_cast<int>(dtype));
  return 0;
}

void set_elem(void* base, pvec_dtype dtype, int64_t idx, double value) {
  switch (dtype) {
    case PVEC_FLOAT32:
      static_cast<float*>(base)[idx] = static_cast<float>(value);
      return;
    case PVEC_FLOAT64:
      static_cast<double*>(base)[idx] = value;
      return;
    case PVEC_INT32:
      static_cast<int32_t*>(base)[idx] = static_cast<int32_t>(value);
      return;
    case PVEC_INT64:
      static_cast<int64_t*>(base)[idx] = static_cast<int64_t>(value);
      return;
    case PVEC_UINT32:
      static_cast<uint32_t*>(base)[idx] = static_cast<uint32_t>(value);
      return;
    case PVEC_UINT64:
      static_cast<uint64_t*>(base)[idx] = static_cast<uint64_t>(value);
      return;
  }
  FAIL("unknown dtype " << static_cast<int>(dtype));
}

double pattern(int field, int64_t c, int64_t i, int salt) {
  const int64_t mod = int64_t{1} << 23;
  const int64_t off = int64_t{salt} * 977 + int64_t{field + 2} * 131;
  return static_cast<double>(1 + (off + c * (int64_t{1} << 20) + i) % mod);
}

void fill_host(pvec_vector_t v, int field, int salt, int64_t i0, int64_t i1) {
  const pvec_layout l = layout_of(v, field);
  REQUIRE(l.host_ptr != nullptr);
  for (int64_t c = 0; c < l.ncomp; ++c)
    for (int64_t i = i0; i < i1; ++i)
      set_elem(l.host_ptr, l.dtype, c * l.capacity + i, pattern(field, c, i, salt));
}

void fill_host_all(pvec_vector_t v, int salt, int64_t i0, int64_t i1) {
  for (int f : all_fields(v)) fill_host(v, f, salt, i0, i1);
}

void set_host_all(pvec_vector_t v, double value, int64_t i0, int64_t i1) {
  for (int f : all_fields(v)) {
    const pvec_layout l = layout_of(v, f);
    for (int64_t c = 0; c < l.ncomp; ++c)
      for (int64_t i = i0; i < i1; ++i) set_elem(l.host_ptr, l.dtype, c * l.capacity + i, value);
  }
}

Mismatch count_mismatch(const pvec_layout& l, bool device_mirror, int salt, int64_t i0,
                        int64_t i1) {
  const void* base = device_mirror ? l.device_ptr : l.host_ptr;
  REQUIRE(base != nullptr);
  Mismatch m;
  for (int64_t c = 0; c < l.ncomp; ++c) {
    for (int64_t i = i0; i < i1; ++i) {
      const double want = salt < 0 ? 0.0 : pattern(l.prop, c, i, salt);
      const double got = get_elem(base, l.dtype, c * l.capacity + i);
      if (got != want) {
        if (m.count == 0) {
          std::ostringstream os;
          os << (device_mirror ? "device" : "host") << " field " << l.prop << " ('"
             << (l.name ? l.name : "?") << "') component " << c << " particle " << i << ": got "
             << got << ", want " << want;
          m.first = os.str();
        }
        ++m.count;
      }
    }
  }
  return m;
}

Mismatch host_mismatch_all(pvec_vector_t v, int salt, int64_t i0, int64_t i1) {
  Mismatch m;
  for (int f : all_fields(v)) m.add(count_mismatch(layout_of(v, f), false, salt, i0, i1));
  return m;
}

Mismatch device_mismatch_all_via_copy(pvec_vector_t v, int salt, int64_t i0, int64_t i1) {
  // A value no pattern produces, so a missing copy cannot pass for a correct one.
  set_host_all(v, static_cast<double>((int64_t{1} << 23) + 5), 0, size_of(v));
  PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
  return host_mismatch_all(v, salt, i0, i1);
}

}  // namespace capi
