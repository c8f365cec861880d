// HDF5 helpers of the checkpoint writer and reader (h5_helpers.hpp).
#include "io/h5_helpers.hpp"

#include <string>
#include <vector>

namespace pvec::impl::io {

namespace {
int g_fault_at = -1;
bool g_fault_local_only = false;
int g_fault_calls = 0;
bool g_fault_fired = false;
}  // namespace

void inject_h5_fault_for_tests(int k, bool local_only) {
  g_fault_at = k;
  g_fault_local_only = local_only;
  g_fault_calls = 0;
  g_fault_fired = false;
}
bool h5_fault_fired_for_tests() { return g_fault_fired; }
int h5_fault_points_for_tests() { return g_fault_calls; }
bool h5_fault(bool collective) {
  if (g_fault_at < 0 || g_fault_calls++ != g_fault_at) return false;
  if (collective && g_fault_local_only) return false;
  g_fault_fired = true;
  return true;
}

void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string h5_message() {
  std::string msg;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        auto* m = static_cast<std::string*>(data);
        if (n == 0 && e->desc) *m = e->desc;
        return 0;
      },
      &msg);
  H5Eclear2(H5E_DEFAULT);
  return msg;
}

hid_t file_type(pvec_dtype d) {
  switch (d) {
    case PVEC_FLOAT32:
      return H5T_IEEE_F32LE;
    case PVEC_FLOAT64:
      return H5T_IEEE_F64LE;
    case PVEC_INT32:
      return H5T_STD_I32LE;
    case PVEC_INT64:
      return H5T_STD_I64LE;
    case PVEC_UINT32:
      return H5T_STD_U32LE;
    case PVEC_UINT64:
      return H5T_STD_U64LE;
  }
  return H5T_IEEE_F64LE;
}

hid_t mem_type(pvec_dtype d) {
  switch (d) {
    case PVEC_FLOAT32:
      return H5T_NATIVE_FLOAT;
    case PVEC_FLOAT64:
      return H5T_NATIVE_DOUBLE;
    case PVEC_INT32:
      return H5T_NATIVE_INT32;
    case PVEC_INT64:
      return H5T_NATIVE_INT64;
    case PVEC_UINT32:
      return H5T_NATIVE_UINT32;
    case PVEC_UINT64:
      return H5T_NATIVE_UINT64;
  }
  return H5T_NATIVE_DOUBLE;
}

int dtype_of(hid_t t) {
  const H5T_class_t cls = H5Tget_class(t);
  const size_t size = H5Tget_size(t);
  if (cls == H5T_FLOAT) return size == 4 ? PVEC_FLOAT32 : size == 8 ? PVEC_FLOAT64 : 0;
  if (cls == H5T_INTEGER) {
    const bool sign = H5Tget_sign(t) == H5T_SGN_2;
    if (size == 4) return sign ? PVEC_INT32 : PVEC_UINT32;
    if (size == 8) return sign ? PVEC_INT64 : PVEC_UINT64;
  }
  return 0;
}

void put_attr(hid_t loc, const char* name, hid_t ftype, hid_t mtype, const void* data, hsize_t n,
              bool scalar, const std::string& path) {
  H5 space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5 a(h5_fault() ? -1 : H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!space.ok() || !a.ok() || h5_fault() || H5Awrite(a, mtype, data) < 0)
    fail_h5(path, "cannot write attribute ", name);
}
void put_i64(hid_t loc, const char* name, const int64_t* v, hsize_t n, bool scalar,
             const std::string& path) {
  put_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v, n, scalar, path);
}
void put_f64(hid_t loc, const char* name, const double* v, hsize_t n, bool scalar,
             const std::string& path) {
  put_attr(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, n, scalar, path);
}
H5 vl_string() {
  H5 t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}
void put_strings(hid_t loc, const char* name, const std::vector<std::string>& v, bool scalar,
                 const std::string& path) {
  H5 t = vl_string();
  std::vector<const char*> p;
  for (const auto& s : v) p.push_back(s.c_str());
  if (p.empty()) p.push_back("");  // an empty list is an array of 0 strings
  put_attr(loc, name, t, t, p.data(), v.size(), scalar, path);
}

void get_attr(hid_t loc, const char* name, hid_t mtype, void* out, hssize_t n,
              const std::string& path) {
  if (H5Aexists(loc, name) <= 0)
    fail(PVEC_ERROR_IO, "'", path, "' is not a pvec checkpoint or is damaged: attribute '", name,
         "' is missing");
  H5 a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  H5 space(a.ok() ? H5Aget_space(a) : -1, H5Sclose);
  if (!a.ok() || !space.ok()) fail_h5(path, "cannot open attribute ", name);
  const hssize_t have = H5Sget_simple_extent_npoints(space);
  if (have != n)
    fail(PVEC_ERROR_IO, "'", path, "': attribute '", name, "' has ", have, " values, expected ", n);
  if (H5Aread(a, mtype, out) < 0) fail_h5(path, "cannot read attribute ", name);
}
int64_t get_i64(hid_t loc, const char* name, const std::string& path) {
  int64_t v = 0;
  get_attr(loc, name, H5T_NATIVE_INT64, &v, 1, path);
  return v;
}
std::vector<std::string> get_strings(hid_t loc, const char* name, hssize_t n,
                                     const std::string& path) {
  H5 t = vl_string();
  std::vector<char*> p(n > 0 ? n : 1, nullptr);
  get_attr(loc, name, t, p.data(), n, path);
  std::vector<std::string> out;
  for (hssize_t k = 0; k < n; ++k) out.emplace_back(p[k] ? p[k] : "");
  if (n > 0) {
    H5 space(H5Screate_simple(1, reinterpret_cast<hsize_t*>(&n), nullptr), H5Sclose);
    H5Dvlen_reclaim(t, space, H5P_DEFAULT, p.data());
  }
  return out;
}
hssize_t attr_count(hid_t loc, const char* name, const std::string& path) {
  if (H5Aexists(loc, name) <= 0)
    fail(PVEC_ERROR_IO, "'", path, "' is not a pvec checkpoint or is damaged: attribute '", name,
         "' is missing");
  H5 a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  H5 space(a.ok() ? H5Aget_space(a) : -1, H5Sclose);
  if (!space.ok()) fail_h5(path, "cannot open attribute ", name);
  return H5Sget_simple_extent_npoints(space);
}

H5 mpio_fapl(MPI_Comm comm) {
  H5 fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!fapl.ok() || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0)
    fail(PVEC_ERROR_IO, "cannot set up the MPI-IO file driver of HDF5");
  return fapl;
}

H5 transfer_dxpl(H5FD_mpio_xfer_t mode) {
  H5 dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(dxpl, mode);
  return dxpl;
}

// Rows [first, first + count) of a dataset of dims d: selects them in fspace (a copy of the
// dataset's space) and returns the memory space of count rows.
H5 block_spaces(hid_t fspace, const std::vector<hsize_t>& d, int64_t first, int64_t count) {
  std::vector<hsize_t> start(d.size(), 0), cnt = d;
  start[0] = static_cast<hsize_t>(first);
  cnt[0] = static_cast<hsize_t>(count);
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start.data(), nullptr, cnt.data(), nullptr);
  return H5(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr), H5Sclose);
}

}  // namespace pvec::impl::io
