#include "snapshot.hpp"

#include "catch_compat.hpp"

#include <cstring>
#include <sstream>

namespace pvec_test {

namespace {

pvec_layout layout_of(pvec_vector_t v, int prop) {
  pvec_layout l = PVEC_LAYOUT_INIT;
  REQUIRE(pvec_vector_get_layout(v, prop, &l) == PVEC_SUCCESS);
  return l;
}

std::vector<unsigned char> live_rows(const void* base, const pvec_layout& l, int64_t rows) {
  const size_t row = static_cast<size_t>(rows) * l.elem_size;
  std::vector<unsigned char> bytes(row * static_cast<size_t>(l.ncomp));
  for (int64_t k = 0; k < l.ncomp; ++k)
    if (row > 0)
      std::memcpy(bytes.data() + k * row, static_cast<const char*>(base) + k * l.stride_bytes, row);
  return bytes;
}

uint64_t fnv1a(const std::vector<std::vector<unsigned char>>& cols) {
  uint64_t h = 14695981039346656037ull;
  for (const auto& c : cols)
    for (unsigned char b : c) {
      h ^= b;
      h *= 1099511628211ull;
    }
  return h;
}

}  // namespace

bool Snapshot::operator==(const Snapshot& o) const {
  return n_local == o.n_local && n_ghost == o.n_ghost && capacity == o.capacity &&
         generation == o.generation && nprops == o.nprops && cols == o.cols && dev == o.dev;
}

Snapshot snapshot(pvec_vector_t v) {
  Snapshot s;
  REQUIRE(pvec_vector_get_size(v, &s.n_local) == PVEC_SUCCESS);
  REQUIRE(pvec_vector_get_ghost_size(v, &s.n_ghost) == PVEC_SUCCESS);
  REQUIRE(pvec_vector_get_capacity(v, &s.capacity) == PVEC_SUCCESS);
  REQUIRE(pvec_vector_get_generation(v, &s.generation) == PVEC_SUCCESS);
  REQUIRE(pvec_vector_get_prop_count(v, &s.nprops) == PVEC_SUCCESS);
  pvec_backend b = PVEC_BACKEND_HOST;
  REQUIRE(pvec_vector_get_backend(v, &b) == PVEC_SUCCESS);
  for (int prop = PVEC_POS; prop < s.nprops; ++prop) {
    const pvec_layout l = layout_of(v, prop);
    s.cols.push_back(live_rows(l.host_ptr, l, s.rows()));
    if (b == PVEC_BACKEND_HOST) s.dev.push_back(live_rows(l.device_ptr, l, s.rows()));
    s.elem.push_back(l.elem_size);
    s.ncomp.push_back(l.ncomp);
  }
  return s;
}

void restore_host(pvec_vector_t v, const Snapshot& s) {
  int64_t n = 0, g = 0;
  REQUIRE(pvec_vector_get_size(v, &n) == PVEC_SUCCESS);
  REQUIRE(pvec_vector_get_ghost_size(v, &g) == PVEC_SUCCESS);
  REQUIRE(n == s.n_local);
  REQUIRE(g == s.n_ghost);
  for (size_t q = 0; q < s.cols.size(); ++q) {
    const pvec_layout l = layout_of(v, static_cast<int>(q) - 1);
    const size_t row = static_cast<size_t>(s.rows()) * l.elem_size;
    for (int64_t k = 0; k < l.ncomp; ++k)
      if (row > 0)
        std::memcpy(static_cast<char*>(l.host_ptr) + k * l.stride_bytes, s.cols[q].data() + k * row,
                    row);
  }
}

std::string compare_rows(const Snapshot& a, const Snapshot& b, int64_t rows) {
  if (rows > a.rows() || rows > b.rows()) return "compare_rows: too many rows asked";
  for (size_t q = 0; q < a.cols.size(); ++q) {
    const size_t e = a.elem[q];
    for (int64_t k = 0; k < a.ncomp[q]; ++k)
      for (int64_t i = 0; i < rows; ++i) {
        const unsigned char* x = a.cols[q].data() + (k * a.rows() + i) * e;
        const unsigned char* y = b.cols[q].data() + (k * b.rows() + i) * e;
        if (std::memcmp(x, y, e) != 0) {
          std::ostringstream s;
          s << "column " << static_cast<int>(q) - 1 << " (PVEC_POS = -1) component " << k
            << " particle " << i << " differs";
          return s.str();
        }
      }
  }
  return "";
}

std::string to_string(const Snapshot& s) {
  std::ostringstream os;
  os << "n_local=" << s.n_local << " n_ghost=" << s.n_ghost << " capacity=" << s.capacity
     << " generation=" << s.generation << " nprops=" << s.nprops << " host_sum=" << fnv1a(s.cols)
     << " device_sum=" << (s.dev.empty() ? 0 : fnv1a(s.dev));
  return os.str();
}

}  // namespace pvec_test
