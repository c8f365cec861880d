// checkpoint_info.hpp: reading and validating what a checkpoint holds, and
// checkpoint_describe (checkpoint.hpp).
#include "io/checkpoint_info.hpp"

#include "common/dtype.hpp"
#include "common/error.hpp"
#include "io/checkpoint_format.hpp"
#include "io/staging.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace pvec::impl::io {

namespace {

// A dataset of rows x ncomp elements of elem bytes must hold them all: pvec writes every
// element, so a dataset whose storage is smaller (never written, or rewritten by another
// program with a shape its bytes do not fill) is damaged. A filtered (compressed) dataset,
// as h5repack -f makes it, legitimately stores fewer bytes and is not checked.
void check_storage(hid_t dset, int64_t rows, int64_t ncomp, size_t elem, const std::string& name,
                   const std::string& path) {
  int64_t bytes = 0;
  if (__builtin_mul_overflow(rows, ncomp, &bytes) ||
      __builtin_mul_overflow(bytes, static_cast<int64_t>(elem), &bytes))
    fail(PVEC_ERROR_IO, "'", path, "': dataset ", name, " is too large to be pvec's");
  H5 dcpl(H5Dget_create_plist(dset), H5Pclose);
  if (!dcpl.ok() || H5Pget_nfilters(dcpl) != 0) return;
  const hsize_t stored = H5Dget_storage_size(dset);
  if (stored < static_cast<hsize_t>(bytes))
    fail(PVEC_ERROR_IO, "'", path, "': dataset ", name, " stores ", stored, " bytes, its ", rows,
         " rows need ", bytes, " (never written, or damaged)");
}

// Opens and validates the root attributes and schema; file is the open file.
// Every dataset carries the checksums of its writer blocks (io/row_checksum.hpp): one per
// writing rank, as uint64.
void check_sums(hid_t dset, int64_t n_ranks, const std::string& name, const std::string& path) {
  if (H5Aexists(dset, "checksums") <= 0)
    fail(PVEC_ERROR_IO, "'", path, "': dataset ", name, " has no attribute 'checksums'");
  H5 a(H5Aopen(dset, "checksums", H5P_DEFAULT), H5Aclose);
  H5 space(a.ok() ? H5Aget_space(a) : -1, H5Sclose);
  H5 type(a.ok() ? H5Aget_type(a) : -1, H5Tclose);
  if (!space.ok() || !type.ok() || H5Sget_simple_extent_npoints(space) != n_ranks ||
      H5Tget_class(type) != H5T_INTEGER || H5Tget_size(type) != 8)
    fail(PVEC_ERROR_IO, "'", path, "': attribute 'checksums' of dataset ", name, " is not ",
         n_ranks, " 64-bit integers (one per writing rank)");
}

// The caller's attributes of /metadata, in name order: scalar strings, scalar float64 numbers
// and 1-D float64 arrays (1 to PVEC_METADATA_MAX_VALUES), as pvec_checkpoint_write stores
// them; anything else is damage.
std::vector<UserAttr> read_metadata(hid_t file, const std::string& path) {
  if (H5Lexists(file, "metadata", H5P_DEFAULT) <= 0)
    fail(PVEC_ERROR_IO, "'", path, "': group /metadata is missing");
  H5 g(H5Gopen2(file, "metadata", H5P_DEFAULT), H5Gclose);
  std::vector<std::string> names;
  if (!g.ok() || H5Aiterate2(
                     g, H5_INDEX_NAME, H5_ITER_INC, nullptr,
                     [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
                       static_cast<std::vector<std::string>*>(data)->emplace_back(name);
                       return 0;
                     },
                     &names) < 0)
    fail_h5(path, "cannot list the attributes of /metadata");
  std::vector<UserAttr> out;
  for (const std::string& key : names) {
    H5 a(H5Aopen(g, key.c_str(), H5P_DEFAULT), H5Aclose);
    if (!a.ok()) fail_h5(path, "cannot open attribute /metadata/", key);
    UserAttr u;
    u.key = key;
    H5 t(H5Aget_type(a), H5Tclose);
    H5 sp(H5Aget_space(a), H5Sclose);
    const hssize_t count = sp.ok() ? H5Sget_simple_extent_npoints(sp) : -1;
    const bool scalar = count == 1 && H5Sget_simple_extent_type(sp) == H5S_SCALAR;
    const bool array = count >= 1 && count <= PVEC_METADATA_MAX_VALUES &&
                       H5Sget_simple_extent_type(sp) == H5S_SIMPLE &&
                       H5Sget_simple_extent_ndims(sp) == 1;
    if (count == 1 && t.ok() && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
      u.kind = PVEC_METADATA_STRING;
      u.text = get_strings(g, u.key.c_str(), 1, path)[0];
    } else if ((scalar || array) && t.ok() && H5Tget_class(t) == H5T_FLOAT) {
      u.kind = scalar ? PVEC_METADATA_NUMBER : PVEC_METADATA_ARRAY;
      u.numbers.resize(static_cast<size_t>(count));
      get_attr(g, u.key.c_str(), H5T_NATIVE_DOUBLE, u.numbers.data(), count, path);
    } else {
      fail(PVEC_ERROR_IO, "'", path, "': attribute /metadata/", u.key,
           " is neither a string, a number nor a 1-D array of 1 to ", PVEC_METADATA_MAX_VALUES,
           " numbers");
    }
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace

CheckpointInfo read_checkpoint_info(hid_t file, const std::string& path) {
  CheckpointInfo info;
  const auto format = H5Aexists(file, "format") > 0 ? get_strings(file, "format", 1, path)
                                                    : std::vector<std::string>{""};
  if (format[0] != kFormat)
    fail(PVEC_ERROR_IO, "'", path, "' is not a pvec checkpoint (no attribute format = \"", kFormat,
         "\")");
  if (H5Aexists(file, "complete") <= 0 || get_i64(file, "complete", path) != 1)
    fail(PVEC_ERROR_IO, "'", path,
         "' is an incomplete checkpoint (attribute 'complete' missing: the run writing it "
         "stopped before the end)");
  const int64_t fv = get_i64(file, "format_version", path);
  if (fv != kFormatVersion)
    fail(PVEC_ERROR_IO, "'", path, "' has checkpoint format version ", fv, "; this pvec reads ",
         kFormatVersion);
  const int64_t dim = get_i64(file, "dim", path);
  if (dim < 1 || dim > PVEC_MAX_DIM)
    fail(PVEC_ERROR_IO, "'", path, "': attribute 'dim' is ", dim, ", outside 1..", PVEC_MAX_DIM);
  info.dim = static_cast<int>(dim);
  const std::string pd = get_strings(file, "pos_dtype", 1, path)[0];
  if (pd == "float32")
    info.pos_dtype = PVEC_FLOAT32;
  else if (pd == "float64")
    info.pos_dtype = PVEC_FLOAT64;
  else
    fail(PVEC_ERROR_IO, "'", path, "': attribute 'pos_dtype' is '", pd, "'");
  // The values a writer can have written, or the file is damaged (a vector could not be made
  // from them, and describe must not hand them out).
  get_attr(file, "domain_lo", H5T_NATIVE_DOUBLE, info.lo, dim, path);
  get_attr(file, "domain_hi", H5T_NATIVE_DOUBLE, info.hi, dim, path);
  for (int k = 0; k < dim; ++k)
    if (!(std::isfinite(info.lo[k]) && std::isfinite(info.hi[k]) && info.lo[k] < info.hi[k]))
      fail(PVEC_ERROR_IO, "'", path, "': the domain along dimension ", k, " is [", info.lo[k], ", ",
           info.hi[k], "], not a finite interval (damaged file?)");
  int64_t bc[PVEC_MAX_DIM];
  get_attr(file, "boundary", H5T_NATIVE_INT64, bc, dim, path);
  for (int k = 0; k < dim; ++k) {
    if (bc[k] != PVEC_NON_PERIODIC && bc[k] != PVEC_PERIODIC)
      fail(PVEC_ERROR_IO, "'", path, "': attribute 'boundary' of dimension ", k, " is ", bc[k],
           ", neither 0 (non-periodic) nor 1 (periodic)");
    info.boundary[k] = static_cast<int>(bc[k]);
  }
  get_attr(file, "ghost_width", H5T_NATIVE_DOUBLE, &info.ghost_width, 1, path);
  if (!(std::isfinite(info.ghost_width) && info.ghost_width >= 0))
    fail(PVEC_ERROR_IO, "'", path, "': attribute 'ghost_width' is ", info.ghost_width);
  info.step = get_i64(file, "step", path);
  get_attr(file, "time", H5T_NATIVE_DOUBLE, &info.time, 1, path);
  if (!std::isfinite(info.time))
    fail(PVEC_ERROR_IO, "'", path, "': attribute 'time' is ", info.time, ", not finite");
  info.n_global = get_i64(file, "n_global", path);
  const int64_t n_ranks = get_i64(file, "n_ranks", path);
  if (info.n_global < 0 || n_ranks < 1 || n_ranks > std::numeric_limits<int>::max())
    fail(PVEC_ERROR_IO, "'", path, "': n_global ", info.n_global, " or n_ranks ", n_ranks,
         " is invalid");
  info.n_ranks = static_cast<int>(n_ranks);
  // The writer's decomposition (optional: files of equal boxes before it was recorded lack
  // it): a rank grid of n_ranks boxes and, per dimension, its interior cuts.
  if (H5Aexists(file, "decomposition_cuts") > 0) {
    int64_t rg[PVEC_MAX_DIM] = {1, 1, 1, 1};
    get_attr(file, "rank_grid", H5T_NATIVE_INT64, rg, dim, path);
    int64_t boxes = 1, interior = 0;
    for (int k = 0; k < dim; ++k) {
      if (rg[k] < 1 || rg[k] > info.n_ranks)
        fail(PVEC_ERROR_IO, "'", path, "': attribute 'rank_grid' holds ", rg[k]);
      boxes *= rg[k];
      interior += rg[k] - 1;
      info.rank_grid[k] = static_cast<int>(rg[k]);
    }
    if (boxes != info.n_ranks)
      fail(PVEC_ERROR_IO, "'", path, "': attribute 'rank_grid' makes ", boxes, " boxes for ",
           info.n_ranks, " ranks");
    info.cuts.assign(static_cast<size_t>(std::max<int64_t>(interior, 1)), 0.0);
    get_attr(file, "decomposition_cuts", H5T_NATIVE_DOUBLE, info.cuts.data(),
             std::max<int64_t>(interior, 1), path);
    CartGrid g;
    g.dim = dim;
    size_t at = 0;
    for (int k = 0; k < dim; ++k) {
      g.dims[k] = info.rank_grid[k];
      g.lo[k] = info.lo[k];
      g.hi[k] = info.hi[k];
      const char* why = nullptr;
      if (!valid_cuts(g, k, info.cuts.data() + at, &why))
        fail(PVEC_ERROR_IO, "'", path, "': attribute 'decomposition_cuts' along dimension ", k,
             ": ", why);
      at += static_cast<size_t>(g.dims[k] - 1);
    }
    info.cuts.resize(static_cast<size_t>(interior));
    info.has_cuts = true;
  }
  const hssize_t np = attr_count(file, "property_names", path);
  const std::vector<std::string> names = get_strings(file, "property_names", np, path);
  std::set<std::string> seen;
  for (const std::string& name : names) {
    // Names a schema can hold (Schema::add's rules), each once.
    if (name.empty() || name.size() > PVEC_MAX_NAME || name == "pos" || !seen.insert(name).second)
      fail(PVEC_ERROR_IO, "'", path, "': attribute 'property_names' holds '", name,
           "', which is empty, too long, reserved or repeated (damaged file?)");
    const std::string ds = "/properties/" + name;
    if (H5Lexists(file, "properties", H5P_DEFAULT) <= 0 ||
        H5Lexists(file, ds.c_str(), H5P_DEFAULT) <= 0)
      fail(PVEC_ERROR_IO, "'", path, "': dataset ", ds, " is missing");
    H5 d(H5Dopen2(file, ds.c_str(), H5P_DEFAULT), H5Dclose);
    H5 t(d.ok() ? H5Dget_type(d) : -1, H5Tclose);
    H5 s(d.ok() ? H5Dget_space(d) : -1, H5Sclose);
    if (!t.ok() || !s.ok()) fail_h5(path, "cannot open dataset ", ds);
    PropertySpec p;
    p.name = name;
    const int dt = dtype_of(t);
    if (dt == 0) fail(PVEC_ERROR_IO, "'", path, "': dataset ", ds, " has a type pvec cannot hold");
    p.dtype = static_cast<pvec_dtype>(dt);
    p.elem_size = dtype_size(dt);
    const int nd = H5Sget_simple_extent_ndims(s);
    if (nd < 1 || nd > 1 + PVEC_MAX_RANK)
      fail(PVEC_ERROR_IO, "'", path, "': dataset ", ds, " has ", nd, " dimensions");
    hsize_t dims[1 + PVEC_MAX_RANK];
    H5Sget_simple_extent_dims(s, dims, nullptr);
    if (static_cast<int64_t>(dims[0]) != info.n_global)
      fail(PVEC_ERROR_IO, "'", path, "': dataset ", ds, " has ", dims[0], " rows, n_global is ",
           info.n_global);
    p.rank = nd - 1;
    p.ncomp = 1;
    for (int k = 0; k < p.rank; ++k) {
      // Extents a schema can hold: >= 1, and a row of 64 particles addressable in bytes.
      const hsize_t e = dims[k + 1];
      int64_t next = 0;
      if (e < 1 || e > static_cast<hsize_t>(std::numeric_limits<int64_t>::max()) ||
          __builtin_mul_overflow(p.ncomp, static_cast<int64_t>(e), &next) ||
          next > std::numeric_limits<int64_t>::max() / 64 / static_cast<int64_t>(p.elem_size))
        fail(PVEC_ERROR_IO, "'", path, "': dataset ", ds, " has a component extent of ", e,
             ", which no property can have");
      p.extents[k] = static_cast<int64_t>(e);
      p.ncomp = next;
    }
    check_storage(d, info.n_global, p.ncomp, p.elem_size, ds, path);
    check_sums(d, info.n_ranks, ds, path);
    info.props.push_back(p);
  }
  // Positions.
  H5 d(
      H5Lexists(file, "positions", H5P_DEFAULT) > 0 ? H5Dopen2(file, "positions", H5P_DEFAULT) : -1,
      H5Dclose);
  if (!d.ok()) fail(PVEC_ERROR_IO, "'", path, "': dataset /positions is missing");
  H5 t(H5Dget_type(d), H5Tclose);
  H5 s(H5Dget_space(d), H5Sclose);
  hsize_t pdims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(s) != 2 || (H5Sget_simple_extent_dims(s, pdims, nullptr), false) ||
      static_cast<int64_t>(pdims[0]) != info.n_global || static_cast<int64_t>(pdims[1]) != dim ||
      dtype_of(t) != info.pos_dtype)
    fail(PVEC_ERROR_IO, "'", path, "': dataset /positions is not ", info.n_global, " x ", dim, " ",
         pd);
  check_storage(d, info.n_global, dim, info.pos_dtype == PVEC_FLOAT32 ? 4 : 8, "/positions", path);
  check_sums(d, info.n_ranks, "/positions", path);
  // Per-rank counts, which must add up.
  H5 rc(H5Lexists(file, "rank_counts", H5P_DEFAULT) > 0 ? H5Dopen2(file, "rank_counts", H5P_DEFAULT)
                                                        : -1,
        H5Dclose);
  if (!rc.ok()) fail(PVEC_ERROR_IO, "'", path, "': dataset /rank_counts is missing");
  H5 rs(H5Dget_space(rc), H5Sclose);
  if (H5Sget_simple_extent_npoints(rs) != info.n_ranks)
    fail(PVEC_ERROR_IO, "'", path, "': /rank_counts has ", H5Sget_simple_extent_npoints(rs),
         " entries for ", info.n_ranks, " ranks");
  std::vector<int64_t> counts(info.n_ranks);
  if (H5Dread(rc, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts.data()) < 0)
    fail_h5(path, "cannot read /rank_counts");
  int64_t sum = 0;
  for (int64_t c : counts)
    if (c < 0 || __builtin_add_overflow(sum, c, &sum))
      fail(PVEC_ERROR_IO, "'", path, "': /rank_counts holds ", c,
           ", which no rank can have written (or the counts overflow)");
  if (sum != info.n_global)
    fail(PVEC_ERROR_IO, "'", path, "': /rank_counts adds up to ", sum, ", n_global is ",
         info.n_global);
  info.rank_counts = std::move(counts);
  info.attrs = read_metadata(file, path);
  return info;
}

H5 open_checkpoint(const std::string& path, hid_t fapl) {
  errno = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb"))
    std::fclose(f);
  else
    fail_io("cannot open checkpoint", path);
#if H5_VERSION_GE(1, 12, 0)
  const htri_t is_hdf5 = H5Fis_accessible(path.c_str(), fapl);
#else
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
#endif
  if (is_hdf5 <= 0) {
    H5Eclear2(H5E_DEFAULT);
    fail(PVEC_ERROR_IO, "'", path, "' is not an HDF5 file, or is truncated or corrupted");
  }
  H5 file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl), H5Fclose);
  if (!file.ok()) fail_h5(path, "cannot open the checkpoint (truncated or corrupted?)");
  return file;
}

CheckpointInfo checkpoint_describe(const std::string& path) {
  quiet();
  H5 file = open_checkpoint(path, H5P_DEFAULT);
  return read_checkpoint_info(file, path);
}

}  // namespace pvec::impl::io
