// Section 9 of pvec.h: output (VTK XML for ParaView) and HDF5 checkpoints / restart.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"
#include "io/vtk_writer.hpp"
#ifdef PVEC_HAVE_HDF5
#include "io/checkpoint.hpp"
#endif

#include <cmath>
#include <cstring>
#include <set>

using namespace pvec::impl;
using namespace pvec::impl::capi;

/* ---- 9. Output and restart ----------------------------------------------------------- */

namespace {

std::string path_arg(const char* p, const char* name) {
  if (p == nullptr) fail(PVEC_ERROR_INVALID_ARGUMENT, name, " is NULL");
  if (*p == '\0') fail(PVEC_ERROR_INVALID_ARGUMENT, name, " is empty");
  return p;
}

[[maybe_unused]] void no_hdf5() {
#ifndef PVEC_HAVE_HDF5
  fail(PVEC_ERROR_NOT_SUPPORTED,
       "this pvec was built without parallel HDF5 (an MPI build of HDF5, e.g. Debian's "
       "libhdf5-openmpi-dev): checkpoints are not available; pvec_has_hdf5 tells");
#endif
}

}  // namespace

extern "C" pvec_status pvec_has_hdf5(int* flag) {
  return guard("pvec_has_hdf5", [&] {
#ifdef PVEC_HAVE_HDF5
    out_arg(flag, "flag") = 1;
#else
    out_arg(flag, "flag") = 0;
#endif
  });
}

extern "C" pvec_status pvec_vtk_write(pvec_vector_t vec, const char* prefix, int64_t step,
                                      double time, unsigned flags) {
  return guard("pvec_vtk_write", [&] {
    auto& v = vec_of(vec);
    const std::string p = path_arg(prefix, "prefix");
    if (step < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "step ", step, " is negative");
    if (!std::isfinite(time)) fail(PVEC_ERROR_INVALID_ARGUMENT, "time ", time, " is not finite");
    check_flags(flags, PVEC_ON_DEVICE | PVEC_VTK_RANK_ARRAY);
    if ((flags & PVEC_VTK_RANK_ARRAY) && v.schema().find("rank") != -2)
      fail(PVEC_ERROR_INVALID_ARGUMENT,
           "PVEC_VTK_RANK_ARRAY: the vector already has a property called \"rank\"");
    io::write_vtk(v, p, step, time, flags);
  });
}

extern "C" pvec_status pvec_checkpoint_write(pvec_vector_t vec, const char* path, int64_t step,
                                             double time, int n_attrs, const char* const* keys,
                                             const char* const* strings, const double* numbers,
                                             unsigned flags) {
  return guard("pvec_checkpoint_write", [&] {
    auto& v = vec_of(vec);
    const std::string p = path_arg(path, "path");
    if (!std::isfinite(time)) fail(PVEC_ERROR_INVALID_ARGUMENT, "time ", time, " is not finite");
    if (n_attrs < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "n_attrs is negative (", n_attrs, ")");
    if (n_attrs > 0 && keys == nullptr)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "keys is NULL with n_attrs ", n_attrs);
    check_flags(flags, PVEC_ON_DEVICE);
    std::set<std::string> seen;
#ifdef PVEC_HAVE_HDF5
    std::vector<io::UserAttr> attrs;
#endif
    for (int k = 0; k < n_attrs; ++k) {
      if (keys[k] == nullptr || *keys[k] == '\0')
        fail(PVEC_ERROR_INVALID_ARGUMENT, "key ", k, " is NULL or empty");
      if (!seen.insert(keys[k]).second)
        fail(PVEC_ERROR_INVALID_ARGUMENT, "key \"", keys[k], "\" is repeated");
      const bool is_string = strings != nullptr && strings[k] != nullptr;
      if (!is_string && numbers == nullptr)
        fail(PVEC_ERROR_INVALID_ARGUMENT, "attribute \"", keys[k],
             "\" is a number but numbers is NULL");
#ifdef PVEC_HAVE_HDF5
      io::UserAttr a;
      a.key = keys[k];
      a.is_string = is_string;
      if (is_string)
        a.text = strings[k];
      else
        a.number = numbers[k];
      attrs.push_back(std::move(a));
#endif
    }
    no_hdf5();
#ifdef PVEC_HAVE_HDF5
    io::checkpoint_write(v, p, step, time, attrs, flags);
#else
    (void)v;
#endif
  });
}

extern "C" pvec_status pvec_checkpoint_describe(const char* path, pvec_vector_desc* desc,
                                                pvec_schema_t* schema, int64_t* step,
                                                double* time) {
  return guard("pvec_checkpoint_describe", [&] {
    const std::string p = path_arg(path, "path");
    if (desc) versioned_size(desc, PVEC_VECTOR_DESC_SIZE_V1, "desc", "pvec_vector_desc");
    no_hdf5();
#ifdef PVEC_HAVE_HDF5
    const io::CheckpointInfo info = io::checkpoint_describe(p);
    std::unique_ptr<Schema> s;
    if (schema) {
      s = std::make_unique<Schema>();
      for (const PropertySpec& f : info.props) s->add(f.name.c_str(), f.dtype, f.rank, f.extents);
    }
    if (desc) {
      pvec_vector_desc d = read_versioned(desc, pvec_vector_desc PVEC_VECTOR_DESC_INIT,
                                          PVEC_VECTOR_DESC_SIZE_V1, "desc", "pvec_vector_desc");
      d.dim = info.dim;
      d.pos_dtype = info.pos_dtype;
      for (int k = 0; k < PVEC_MAX_DIM; ++k) {
        d.domain_lo[k] = k < info.dim ? info.lo[k] : 0;
        d.domain_hi[k] = k < info.dim ? info.hi[k] : 1;
        d.boundary[k] = k < info.dim ? info.boundary[k] : PVEC_NON_PERIODIC;
      }
      d.ghost_width = info.ghost_width;
      write_versioned(desc, d, PVEC_VECTOR_DESC_SIZE_V1, "desc", "pvec_vector_desc");
    }
    if (schema) *schema = to_handle<pvec_schema_t>(schemas().insert(std::move(s)));
    if (step) *step = info.step;
    if (time) *time = info.time;
#else
    (void)desc, (void)schema, (void)step, (void)time;
#endif
  });
}

extern "C" pvec_status pvec_checkpoint_get_metadata_count(const char* path, int* count) {
  return guard("pvec_checkpoint_get_metadata_count", [&] {
    const std::string p = path_arg(path, "path");
    int& out = out_arg(count, "count");
    no_hdf5();
#ifdef PVEC_HAVE_HDF5
    out = static_cast<int>(io::checkpoint_describe(p).attrs.size());
#else
    (void)out;
#endif
  });
}

extern "C" pvec_status pvec_checkpoint_get_metadata(const char* path, int index, char* key,
                                                    size_t key_size, int* is_string, double* number,
                                                    char* text, size_t text_size,
                                                    size_t* text_len) {
  return guard("pvec_checkpoint_get_metadata", [&] {
    const std::string p = path_arg(path, "path");
    no_hdf5();
#ifdef PVEC_HAVE_HDF5
    const io::CheckpointInfo info = io::checkpoint_describe(p);
    const int n = static_cast<int>(info.attrs.size());
    if (index < 0 || index >= n)
      fail(PVEC_ERROR_OUT_OF_RANGE, "metadata index ", index, " is outside [0, ", n, ")");
    const io::UserAttr& a = info.attrs[static_cast<size_t>(index)];
    if (key && key_size < a.key.size() + 1)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "key_size ", key_size, " cannot hold the key '", a.key,
           "' and its NUL (", a.key.size() + 1, " bytes)");
    const std::string& t = a.is_string ? a.text : std::string();
    if (text && a.is_string && text_size < t.size() + 1)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "text_size ", text_size, " cannot hold the text of '",
           a.key, "' and its NUL (", t.size() + 1, " bytes)");
    if (key) std::memcpy(key, a.key.c_str(), a.key.size() + 1);
    if (is_string) *is_string = a.is_string ? 1 : 0;
    if (number) *number = a.is_string ? 0.0 : a.number;
    if (text && text_size > 0) std::memcpy(text, t.c_str(), t.size() + 1);
    if (text_len) *text_len = t.size();
#else
    (void)index, (void)key, (void)key_size, (void)is_string, (void)number, (void)text,
        (void)text_size, (void)text_len;
#endif
  });
}

extern "C" pvec_status pvec_checkpoint_restart(const char* path, const pvec_vector_desc* desc,
                                               pvec_schema_t schema, unsigned flags,
                                               pvec_vector_t* out) {
  return guard("pvec_checkpoint_restart", [&] {
    const std::string p = path_arg(path, "path");
    const pvec_vector_desc d = read_versioned(desc, pvec_vector_desc PVEC_VECTOR_DESC_INIT,
                                              PVEC_VECTOR_DESC_SIZE_V1, "desc", "pvec_vector_desc");
    out_arg(out, "out");
    const Schema& s = schemas().get(schema);
    check_flags(flags, 0);
    require_init();
    no_hdf5();
#ifdef PVEC_HAVE_HDF5
    pvec_vector_desc local = d;
    local.n_particles = 0;
    local.placement = PVEC_PLACE_LOCAL;
    auto v = io::restart(p, local, s);
    *out = to_handle<pvec_vector_t>(vectors().insert(std::move(v)));
#else
    (void)d, (void)s;
#endif
  });
}
