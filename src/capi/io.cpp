// Section 9 of pvec.h: output (VTK XML for ParaView) and HDF5 checkpoints / restart.
#include "capi/guard.hpp"
#include "capi/versioned.hpp"
#include "io/vtk_writer.hpp"
#ifdef PVEC_HAVE_HDF5
#include "io/checkpoint.hpp"
#endif

#include <algorithm>
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

// The columns of a (props, nprops) list to write, positions (column 0) first, then the
// listed properties in declaration order; PVEC_POS may be listed.
std::vector<int> write_columns(const DistVector& v, const int* props, int nprops) {
  std::vector<int> cols = v.columns_of(props, nprops, false);
  cols.push_back(0);
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  return cols;
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
                                      double time, const int* props, int nprops, unsigned flags) {
  return op_guard("pvec_vtk_write", [&] {
    auto& v = vec_of(vec);
    const std::string p = path_arg(prefix, "prefix");
    if (step < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "step ", step, " is negative");
    if (!std::isfinite(time)) fail(PVEC_ERROR_INVALID_ARGUMENT, "time ", time, " is not finite");
    check_flags(flags, PVEC_ON_DEVICE | PVEC_VTK_RANK_ARRAY);
    std::vector<int> cols = write_columns(v, props, nprops);
    v.check_current_together((flags & PVEC_ON_DEVICE) != 0, cols, kRowsLocal, "pvec_vtk_write");
    cols.erase(cols.begin());  // the positions are the points
    if (flags & PVEC_VTK_RANK_ARRAY)
      for (int c : cols)
        if (v.particles().column(c).spec.name == "rank")
          fail(PVEC_ERROR_INVALID_ARGUMENT,
               "PVEC_VTK_RANK_ARRAY: property \"rank\" is listed too (leave it out of props)");
    io::write_vtk(v, p, step, time, cols, flags);
  });
}

extern "C" pvec_status pvec_checkpoint_write(pvec_vector_t vec, const char* path, int64_t step,
                                             double time, const int* props, int nprops, int n_attrs,
                                             const char* const* keys, const char* const* strings,
                                             const double* numbers, const int* counts,
                                             unsigned flags) {
  return op_guard("pvec_checkpoint_write", [&] {
    auto& v = vec_of(vec);
    const std::string p = path_arg(path, "path");
    if (step < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "step ", step, " is negative");
    if (!std::isfinite(time)) fail(PVEC_ERROR_INVALID_ARGUMENT, "time ", time, " is not finite");
    if (n_attrs < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "n_attrs is negative (", n_attrs, ")");
    if (n_attrs > 0 && keys == nullptr)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "keys is NULL with n_attrs ", n_attrs);
    check_flags(flags, PVEC_ON_DEVICE);
    const std::vector<int> cols = write_columns(v, props, nprops);
    v.check_current_together((flags & PVEC_ON_DEVICE) != 0, cols, kRowsLocal,
                             "pvec_checkpoint_write");
    std::set<std::string> seen;
#ifdef PVEC_HAVE_HDF5
    std::vector<io::UserAttr> attrs;
#endif
    size_t next = 0;  // the next value of numbers
    for (int k = 0; k < n_attrs; ++k) {
      if (keys[k] == nullptr || *keys[k] == '\0')
        fail(PVEC_ERROR_INVALID_ARGUMENT, "key ", k, " is NULL or empty");
      if (!seen.insert(keys[k]).second)
        fail(PVEC_ERROR_INVALID_ARGUMENT, "key \"", keys[k], "\" is repeated");
      const bool is_string = strings != nullptr && strings[k] != nullptr;
      if (!is_string && numbers == nullptr)
        fail(PVEC_ERROR_INVALID_ARGUMENT, "attribute \"", keys[k],
             "\" is a number but numbers is NULL");
      // counts[k]: the array's length, 0 for a scalar number (counts NULL: every number).
      const int shape = is_string || counts == nullptr ? 0 : counts[k];
      if (shape < 0 || shape > PVEC_METADATA_MAX_VALUES)
        fail(PVEC_ERROR_INVALID_ARGUMENT, "counts[", k, "] = ", shape, " (attribute \"", keys[k],
             "\") is outside [0, ", PVEC_METADATA_MAX_VALUES, "]");
      const int count = shape == 0 ? 1 : shape;
#ifdef PVEC_HAVE_HDF5
      io::UserAttr a;
      a.key = keys[k];
      a.kind = is_string    ? PVEC_METADATA_STRING
               : shape == 0 ? PVEC_METADATA_NUMBER
                            : PVEC_METADATA_ARRAY;
      if (is_string)
        a.text = strings[k];
      else
        a.numbers.assign(numbers + next, numbers + next + count);
      attrs.push_back(std::move(a));
#endif
      if (!is_string) next += static_cast<size_t>(count);
    }
    no_hdf5();
#ifdef PVEC_HAVE_HDF5
    io::checkpoint_write(v, p, step, time, cols, attrs, flags);
#else
    (void)v, (void)cols;
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
                                                    size_t key_size, pvec_metadata_kind* kind,
                                                    size_t* length, double* numbers,
                                                    size_t numbers_size, char* text,
                                                    size_t text_size) {
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
    const bool is_string = a.kind == PVEC_METADATA_STRING;
    if (text && is_string && text_size < a.text.size() + 1)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "text_size ", text_size, " cannot hold the text of '",
           a.key, "' and its NUL (", a.text.size() + 1, " bytes)");
    if (numbers && !is_string && numbers_size < a.numbers.size())
      fail(PVEC_ERROR_INVALID_ARGUMENT, "numbers_size ", numbers_size,
           " cannot hold the values of '", a.key, "' (", a.numbers.size(), ")");
    if (key) std::memcpy(key, a.key.c_str(), a.key.size() + 1);
    if (kind) *kind = a.kind;
    if (length) *length = is_string ? a.text.size() : a.numbers.size();
    if (numbers && !is_string) std::copy(a.numbers.begin(), a.numbers.end(), numbers);
    if (text && is_string) std::memcpy(text, a.text.c_str(), a.text.size() + 1);
#else
    (void)index, (void)key, (void)key_size, (void)kind, (void)length, (void)numbers,
        (void)numbers_size, (void)text, (void)text_size;
#endif
  });
}

extern "C" pvec_status pvec_checkpoint_restart(const char* path, const pvec_vector_desc* desc,
                                               pvec_schema_t schema, unsigned flags,
                                               pvec_vector_t* out) {
  return op_guard("pvec_checkpoint_restart", [&] {
    const std::string p = path_arg(path, "path");
    const pvec_vector_desc d = read_versioned(desc, pvec_vector_desc PVEC_VECTOR_DESC_INIT,
                                              PVEC_VECTOR_DESC_SIZE_V1, "desc", "pvec_vector_desc");
    out_arg(out, "out");
    const Schema& s = schemas().get(schema);
    check_flags(flags, PVEC_RESTART_ZERO_MISSING | PVEC_RESTART_SKIP_EXTRA);
    require_init();
    no_hdf5();
#ifdef PVEC_HAVE_HDF5
    pvec_vector_desc local = d;
    local.n_particles = 0;
    local.placement = PVEC_PLACE_LOCAL;
    auto v = io::restart(p, local, s, flags);
    *out = to_handle<pvec_vector_t>(vectors().insert(std::move(v)));
#else
    (void)d, (void)s;
#endif
  });
}
