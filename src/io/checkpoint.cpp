// HDF5 checkpoint and restart (checkpoint.hpp). Long because writing, validating and reading
// one file format belong together: the reader checks exactly what the writer wrote.
#include "io/checkpoint.hpp"

#include "backend/host_parallel.hpp"
#include "common/dtype.hpp"
#include "common/error.hpp"
#include "io/block_pipeline.hpp"
#include "io/raw_dataset.hpp"
#include "io/staging.hpp"
#include "io/xml_escape.hpp"
#include "particles/staged_transfer.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

namespace pvec::impl::io {

namespace {

constexpr int kFormatVersion = 1;
constexpr const char* kFormat = "pvec-checkpoint";

// An HDF5 identifier closed on scope exit.
class H5 {
 public:
  H5(hid_t id = -1, herr_t (*close)(hid_t) = nullptr) : id_(id), close_(close) {}
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
  H5(H5&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  H5& operator=(H5&& o) noexcept {
    if (this != &o) {
      reset(o.id_, o.close_);
      o.id_ = -1;
    }
    return *this;
  }
  ~H5() { reset(); }
  void reset(hid_t id = -1, herr_t (*close)(hid_t) = nullptr) {
    if (id_ >= 0 && close_) close_(id_);
    id_ = id;
    close_ = close;
  }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 prints its error stack by default: keep quiet, pvec reports the innermost message.
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

template <class... Parts>
[[noreturn]] void fail_h5(const std::string& path, Parts&&... what) {
  const std::string detail = h5_message();
  std::ostringstream os;
  (os << ... << what);
  fail(PVEC_ERROR_IO, os.str(), " (", path, ")", detail.empty() ? "" : ": HDF5: ", detail);
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

// pvec dtype of an HDF5 type, 0 when it is none of them.
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

// ---- attributes --------------------------------------------------------------------------

void put_attr(hid_t loc, const char* name, hid_t ftype, hid_t mtype, const void* data, hsize_t n,
              bool scalar, const std::string& path) {
  H5 space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5 a(H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!space.ok() || !a.ok() || H5Awrite(a, mtype, data) < 0)
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

// Reads attribute name of loc as n values of mtype; IO error naming it when absent or of
// another count.
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

std::string shape_text(const PropertySpec& s) {
  std::ostringstream os;
  if (s.rank == 0) os << "scalar";
  if (s.rank == 1) os << "vector[" << s.extents[0] << "]";
  if (s.rank == 2) os << "tensor[" << s.extents[0] << "][" << s.extents[1] << "]";
  return os.str();
}

// Dataset dims of a column: [N] + extents.
std::vector<hsize_t> dims_of(const PropertySpec& s, int64_t n) {
  std::vector<hsize_t> d{static_cast<hsize_t>(n)};
  for (int k = 0; k < s.rank; ++k) d.push_back(static_cast<hsize_t>(s.extents[k]));
  return d;
}

std::string sidecar_path(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
    return path.substr(0, dot) + ".xmf";
  return path + ".xmf";
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string xdmf_item(const PropertySpec& s, int64_t n, const std::string& file,
                      const std::string& dataset) {
  std::ostringstream os;
  const bool f = s.dtype == PVEC_FLOAT32 || s.dtype == PVEC_FLOAT64;
  const bool u = s.dtype == PVEC_UINT32 || s.dtype == PVEC_UINT64;
  os << "<DataItem Dimensions=\"" << n;
  for (int k = 0; k < s.rank; ++k) os << " " << s.extents[k];
  os << "\" NumberType=\""
     << (f   ? "Float"
         : u ? "UInt"
             : "Int")
     << "\" Precision=\"" << s.elem_size << "\" Format=\"HDF\">" << xml_escape(file) << ":"
     << xml_escape(dataset) << "</DataItem>";
  return os.str();
}

std::string xdmf_text(const DistVector& v, int64_t n, double time, const std::string& file) {
  const ParticleSet& ps = v.particles();
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"3.0\">\n  <Domain>\n    <Grid Name=\"particles\" GridType=\"Uniform\">\n"
    << "      <Time Value=\"" << time << "\"/>\n"
    << "      <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
    << "\" NodesPerElement=\"1\"/>\n"
    << "      <Geometry GeometryType=\"" << (v.dim() == 2 ? "XY" : "XYZ") << "\">\n"
    << "        " << xdmf_item(ps.column(0).spec, n, file, "/positions") << "\n"
    << "      </Geometry>\n";
  for (int c = 1; c < ps.column_count(); ++c) {
    const PropertySpec& s = ps.column(c).spec;
    const char* type = s.ncomp == 1                       ? "Scalar"
                       : s.rank == 1 && s.extents[0] == 3 ? "Vector"
                       : s.rank == 2 && s.ncomp == 9      ? "Tensor"
                                                          : "Matrix";
    x << "      <Attribute Name=\"" << xml_escape(s.name) << "\" AttributeType=\"" << type
      << "\" Center=\"Node\">\n        " << xdmf_item(s, n, file, "/properties/" + s.name)
      << "\n      </Attribute>\n";
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x.str();
}

MPI_Comm io_comm(const DistVector& v) {
  if (v.io_comm_f() == -1) fail(PVEC_ERROR_MPI, "the vector has no MPI communicator for file I/O");
  return MPI_Comm_f2c(static_cast<MPI_Fint>(v.io_comm_f()));
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

// The rows [0, n) of one column move between memory and rows [first, first + n) of a dataset
// a staged block at a time (io/staging.hpp) through pipe (io/block_pipeline.hpp: the next
// block is staged while HDF5 writes this one, with two host threads), each block one
// independent H5Dwrite/H5Dread: every rank's rows are one contiguous range of the file, so
// collective buffering would only add a copy through the aggregators, and independent calls
// let ranks with different counts make different numbers of them. HDF5 is called from the
// calling thread only. block(b0, count, buf) stages (before a write) or unstages (after a
// read) rows [b0, b0 + count) of row_bytes each (device: it reads the device mirror); direct:
// the column's own memory when it already is the file's rows (then one call moves all n).
template <class Block>
bool move_rows(hid_t dset, bool write, hid_t mtype, hid_t dxpl, const std::vector<hsize_t>& d,
               int64_t first, int64_t n, int64_t block_rows, size_t row_bytes, bool device,
               unsigned char* direct, BlockPipeline& pipe, Block&& block) {
  if (n == 0) return true;
  H5 fspace(H5Dget_space(dset), H5Sclose);
  if (!fspace.ok()) return false;
  auto file_call = [&](int64_t b0, int64_t count, unsigned char* buf) {
    H5 mspace = block_spaces(fspace, d, first + b0, count);
    return (write ? H5Dwrite(dset, mtype, mspace, fspace, dxpl, buf)
                  : H5Dread(dset, mtype, mspace, fspace, dxpl, buf)) >= 0;
  };
  if (direct) return file_call(0, n, direct);
  return write ? pipe.write(n, block_rows, row_bytes, device, block, file_call)
               : pipe.read(n, block_rows, row_bytes, file_call, block);
}

void check_names(const DistVector& v) {
  for (const auto& p : v.schema().props())
    if (p.name.find('/') != std::string::npos || p.name == ".")
      fail(PVEC_ERROR_INVALID_ARGUMENT, "property name '", p.name,
           "' cannot name an HDF5 dataset (it contains '/' or is '.')");
}

}  // namespace

void checkpoint_write(DistVector& v, const std::string& path, int64_t step, double time,
                      const std::vector<UserAttr>& attrs, unsigned flags) {
  quiet();
  check_names(v);
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const Communicator& comm = v.comm();
  const ParticleSet& ps = v.particles();
  MPI_Comm mpi = io_comm(v);
  const int64_t n = ps.n_local();
  const int64_t first = comm.exclusive_scan_sum(n);
  const int64_t total = comm.allreduce_sum(n);
  std::vector<int64_t> counts(comm.size());
  comm.allgather_bytes(&n, sizeof n, counts.data());
  const std::string tmp = path + ".tmp";

  {
    H5 file;
    comm.agree("pvec_checkpoint_write: creating the file", [&] {
      prepare_read(v, device);
      H5 fapl = mpio_fapl(mpi);
      file.reset(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), H5Fclose);
      if (!file.ok()) fail_h5(tmp, "cannot create the checkpoint file");
    });
    H5 dxpl = transfer_dxpl(H5FD_MPIO_INDEPENDENT);
    BlockPipeline pipe;
    // One staging thread at a time: read_rows copies a device block into scratch and
    // transposes it into the stage slot within one call, so one scratch serves both slots.
    ScratchBuffer& scratch = v.io_staging();
    // Positions, then each property: the dataset created collectively, then each rank's rows.
    H5 props_group;
    comm.agree("pvec_checkpoint_write: creating /properties", [&] {
      props_group.reset(H5Gcreate2(file, "properties", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        H5Gclose);
      if (!props_group.ok()) fail_h5(tmp, "cannot create group /properties");
    });
    for (int c = 0; c < ps.column_count(); ++c) {
      const PropertySpec& s = ps.column(c).spec;
      const std::string name = c == 0 ? "/positions" : "/properties/" + s.name;
      std::vector<hsize_t> d =
          c == 0 ? std::vector<hsize_t>{static_cast<hsize_t>(total), static_cast<hsize_t>(v.dim())}
                 : dims_of(s, total);
      H5 dset;
      comm.agree("pvec_checkpoint_write: creating a dataset", [&] {
        H5 fspace(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose);
        dset.reset(H5Dcreate2(file, name.c_str(), file_type(s.dtype), fspace, H5P_DEFAULT,
                              H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose);
        if (!dset.ok()) fail_h5(tmp, "cannot create dataset ", name);
      });
      comm.agree("pvec_checkpoint_write: writing a dataset", [&] {
        const int64_t block = stage_rows(s, 0);
        auto* direct = const_cast<unsigned char*>(direct_rows(ps, c, device, 0));
        const bool ok = move_rows(dset, true, mem_type(s.dtype), dxpl, d, first, n, block,
                                  row_bytes(s, 0), device && ps.cuda(), direct, pipe,
                                  [&](int64_t b0, int64_t count, unsigned char* buf) {
                                    read_rows(ps, c, device, 0, b0, count, buf, scratch);
                                  });
        if (!ok) fail_h5(tmp, "cannot write dataset ", name);
      });
    }
    comm.agree("pvec_checkpoint_write: writing the attributes", [&] {
      // rank_counts: small, every rank writes the whole of it (identical data).
      hsize_t nr = static_cast<hsize_t>(comm.size());
      H5 fspace(H5Screate_simple(1, &nr, nullptr), H5Sclose);
      H5 dset(H5Dcreate2(file, "rank_counts", H5T_STD_I64LE, fspace, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
      H5 coll = transfer_dxpl(H5FD_MPIO_COLLECTIVE);
      if (!dset.ok() || H5Dwrite(dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, coll, counts.data()) < 0)
        fail_h5(tmp, "cannot write dataset /rank_counts");

      const CartGrid& g = v.grid();
      const hsize_t dim = static_cast<hsize_t>(v.dim());
      int64_t bc[PVEC_MAX_DIM], rg[PVEC_MAX_DIM];
      for (int k = 0; k < v.dim(); ++k) {
        bc[k] = g.periodic[k] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
        rg[k] = g.dims[k];
      }
      const int64_t fv = kFormatVersion, idim = v.dim(), ranks = comm.size();
      put_strings(file, "format", {kFormat}, true, tmp);
      put_i64(file, "format_version", &fv, 1, true, tmp);
      put_strings(file, "pvec_version", {pvec_version_string()}, true, tmp);
      put_i64(file, "dim", &idim, 1, true, tmp);
      put_strings(file, "pos_dtype", {dtype_name(v.pos_dtype())}, true, tmp);
      put_f64(file, "domain_lo", g.lo, dim, false, tmp);
      put_f64(file, "domain_hi", g.hi, dim, false, tmp);
      put_i64(file, "boundary", bc, dim, false, tmp);
      const double gw = v.ghost_width();
      put_f64(file, "ghost_width", &gw, 1, true, tmp);
      put_i64(file, "rank_grid", rg, dim, false, tmp);
      put_i64(file, "n_ranks", &ranks, 1, true, tmp);
      put_i64(file, "n_global", &total, 1, true, tmp);
      put_i64(file, "step", &step, 1, true, tmp);
      put_f64(file, "time", &time, 1, true, tmp);
      std::vector<std::string> names;
      for (const auto& p : v.schema().props()) names.push_back(p.name);
      put_strings(file, "property_names", names, false, tmp);
      H5 meta(H5Gcreate2(file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      if (!meta.ok()) fail_h5(tmp, "cannot create group /metadata");
      for (const UserAttr& a : attrs) {
        if (a.is_string)
          put_strings(meta, a.key.c_str(), {a.text}, true, tmp);
        else
          put_f64(meta, a.key.c_str(), &a.number, 1, true, tmp);
      }
      // Written last: a file without it was not completed.
      const int64_t complete = 1;
      put_i64(file, "complete", &complete, 1, true, tmp);
    });
    comm.agree("pvec_checkpoint_write: closing the file", [&] {
      props_group.reset();
      const hid_t id = file.get();
      file.reset();  // closes
      (void)id;
    });
  }
  comm.agree("pvec_checkpoint_write: renaming the file", [&] {
    if (comm.rank() != 0) return;
    errno = 0;
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      fail_io("cannot rename the finished checkpoint to", path);
    }
    if (v.dim() >= 2 && v.dim() <= 3)
      write_file_atomic(sidecar_path(path), xdmf_text(v, total, time, base_name(path)));
  });
}

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
CheckpointInfo read_info(hid_t file, const std::string& path) {
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
  return info;
}

H5 open_file(const std::string& path, hid_t fapl) {
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

void compare(const CheckpointInfo& info, const pvec_vector_desc& d, const Schema& schema,
             const std::string& path) {
  const char* where = "restart: ";
  if (d.dim != info.dim)
    fail(PVEC_ERROR_INVALID_ARGUMENT, where, "dimension ", d.dim, " requested, the file '", path,
         "' has ", info.dim);
  if (d.pos_dtype != info.pos_dtype)
    fail(PVEC_ERROR_DTYPE_MISMATCH, where, "positions are ", dtype_name(info.pos_dtype),
         " in the file, ", dtype_name(d.pos_dtype), " requested");
  for (int k = 0; k < info.dim; ++k) {
    if (d.domain_lo[k] != info.lo[k] || d.domain_hi[k] != info.hi[k])
      fail(PVEC_ERROR_INVALID_ARGUMENT, where, "domain along dimension ", k, " is [", info.lo[k],
           ", ", info.hi[k], "] in the file, [", d.domain_lo[k], ", ", d.domain_hi[k],
           "] requested");
    if (d.boundary[k] != info.boundary[k])
      fail(PVEC_ERROR_INVALID_ARGUMENT, where, "boundary of dimension ", k, " is ",
           info.boundary[k] ? "periodic" : "non-periodic", " in the file, ",
           d.boundary[k] ? "periodic" : "non-periodic", " requested");
  }
  std::set<std::string> in_file;
  for (const PropertySpec& f : info.props) in_file.insert(f.name);
  for (const PropertySpec& p : schema.props()) {
    if (!in_file.count(p.name))
      fail(PVEC_ERROR_INVALID_ARGUMENT, where, "property '", p.name,
           "' is requested but not in the file '", path, "'");
    for (const PropertySpec& f : info.props) {
      if (f.name != p.name) continue;
      if (f.dtype != p.dtype)
        fail(PVEC_ERROR_DTYPE_MISMATCH, where, "property '", p.name, "' is ", dtype_name(f.dtype),
             " in the file, ", dtype_name(p.dtype), " requested");
      if (f.rank != p.rank || f.extents[0] != p.extents[0] || f.extents[1] != p.extents[1])
        fail(PVEC_ERROR_INVALID_ARGUMENT, where, "property '", p.name, "' is ", shape_text(f),
             " in the file, ", shape_text(p), " requested");
    }
  }
  for (const PropertySpec& f : info.props)
    if (schema.find(f.name) == -2)
      fail(PVEC_ERROR_INVALID_ARGUMENT, where, "the file has property '", f.name,
           "', which was not requested");
}

}  // namespace

CheckpointInfo checkpoint_describe(const std::string& path) {
  quiet();
  H5 file = open_file(path, H5P_DEFAULT);
  return read_info(file, path);
}

std::unique_ptr<DistVector> restart(const std::string& path, const pvec_vector_desc& desc,
                                    const Schema& schema) {
  quiet();
  auto v = std::make_unique<DistVector>(desc, schema);  // collective; validates desc
  const Communicator& comm = v->comm();
  MPI_Comm mpi = io_comm(*v);
  H5 file;
  CheckpointInfo info;
  // Every rank opens and validates (the same file gives every rank the same verdict; agree
  // anyway, so that a rank that cannot see the file does not leave the others waiting).
  comm.agree("restart: opening the checkpoint", [&] {
    H5 fapl = mpio_fapl(mpi);
    H5 f = open_file(path, fapl);
    info = read_info(f, path);
    compare(info, desc, schema, path);
    file = std::move(f);
  });
  // Rank r reads rows [first, first + n). On the rank count that wrote the file, the rows rank
  // r wrote (read_info checked that the counts add up): the writer's map had put them on r,
  // so with the same decomposition the map below moves nothing, however uneven the counts.
  // On another rank count, an even split of the global rows.
  const int64_t p = comm.size(), r = comm.rank();
  int64_t n = info.n_global / p + (r < info.n_global % p ? 1 : 0);
  int64_t first = r * (info.n_global / p) + std::min<int64_t>(r, info.n_global % p);
  if (info.n_ranks == p) {
    first = 0;
    for (int64_t k = 0; k < r; ++k) first += info.rank_counts[k];
    n = info.rank_counts[r];
  }
  // Capacity for the rows without resize's zero fill: every row is read before it counts.
  comm.agree("restart: allocating", [&] { v->reserve(n); });
  ParticleSet& ps = v->mirrors();
  H5 dxpl = transfer_dxpl(H5FD_MPIO_INDEPENDENT);
  BlockPipeline pipe;
  const RawFile raw(path);  // pvec's own datasets are read with pread, on every host thread
  // Host backend: the "device" mirror is host memory too, and a column read with pread fills
  // it block by block while each block is still in cache (one pass over the new memory
  // instead of a second that reads the whole host mirror back). Such columns need no copy
  // after the map when the map changed no row here.
  std::vector<char> dev_filled(static_cast<size_t>(ps.column_count()), 0);
  // CUDA backend, on the writer's rank count (where the map moves nothing with the same
  // decomposition): the thread that read a block with pread hands it on to the device mirror
  // at once (particles/staged_transfer.hpp, LaneUpload), so the copies overlap the reads and
  // the host mirror is not read back afterwards. Pageable host mirrors need the page-locked
  // lanes (not with PVEC_STAGED_TRANSFER=0). Without lanes the copy after the map serves
  // (docs/results/h100/restart_cuda.txt measured the two).
  std::unique_ptr<LaneUpload> upload;
  if (ps.cuda() && info.n_ranks == p && n > 0 &&
      (ps.host_kind() == MemKind::pinned || staged_transfer_allowed())) {
    try {
      upload = std::make_unique<LaneUpload>(ps.staging_lanes(), host_threads(), ps.device(),
                                            ps.host_kind() == MemKind::pinned, ps.stream());
    } catch (const Error&) {
      upload.reset();
    }
  }
  for (int c = 0; c < ps.column_count(); ++c) {
    const PropertySpec& s = ps.column(c).spec;
    const std::string name = c == 0 ? "/positions" : "/properties/" + s.name;
    comm.agree("restart: reading a dataset", [&] {
      H5 dset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
      H5 fspace(dset.ok() ? H5Dget_space(dset) : -1, H5Sclose);
      if (!fspace.ok()) fail_h5(path, "cannot open dataset ", name);
      std::vector<hsize_t> d(H5Sget_simple_extent_ndims(fspace));
      H5Sget_simple_extent_dims(fspace, d.data(), nullptr);
      const int64_t block = stage_rows(s, 0);
      const size_t rb = row_bytes(s, 0);
      unsigned char* direct = direct_rows_host(ps, c);
      auto unstage = [&](int64_t b0, int64_t count, unsigned char* buf) {
        write_rows_host(ps, c, b0, count, buf);
      };
      // read_parallel: the rows land in the host mirror (directly, or unstaged from buf),
      // then go on from there while in cache: to the second mirror on the host backend, to
      // the device through the reading thread's lane on the CUDA backend (when fused).
      const PropertyBuffer& col = ps.column(c);
      const size_t pitch = col.row_bytes(ps.capacity());
      const bool fused =
          upload && static_cast<size_t>(std::min(block, n)) * rb <= upload->max_bytes();
      auto unstage_both = [&](int64_t b0, int64_t count, unsigned char* buf, int thread) {
        if (!direct) write_rows_host(ps, c, b0, count, buf);
        if (!ps.cuda()) {
          copy_rows_to_device_mirror(ps, c, b0, count);
        } else if (fused) {
          const size_t at_row = static_cast<size_t>(b0) * s.elem_size;
          upload->upload(thread, static_cast<const char*>(col.host) + at_row, pitch,
                         static_cast<char*>(col.dev) + at_row, pitch,
                         static_cast<size_t>(count) * s.elem_size, static_cast<size_t>(s.ncomp));
        }
      };
      const int64_t at = raw.rows_at(dset, d, mem_type(s.dtype), first + n, rb);
      if (at >= 0) {
        std::atomic<int> err{0};
        const bool ok = pipe.read_parallel(
            n, block, rb, direct,
            [&](int64_t b0, int64_t count, unsigned char* buf) {
              const int e = raw.read(buf, static_cast<size_t>(count) * rb,
                                     at + (first + b0) * static_cast<int64_t>(rb));
              if (e != 0) err.store(e);
              return e == 0;
            },
            unstage_both);
        if (!ok)
          fail(PVEC_ERROR_IO, "'", path, "': cannot read dataset ", name, ": ",
               err.load() != 0 ? std::strerror(err.load()) : "failed");
        dev_filled[c] = !ps.cuda() || fused;
        return;
      }
      const bool ok = move_rows(dset, false, mem_type(s.dtype), dxpl, d, first, n, block, rb, false,
                                direct, pipe, unstage);
      if (!ok) fail_h5(path, "cannot read dataset ", name, " (truncated or corrupted file?)");
    });
  }
  // The map below changes host rows: every copy from them must have arrived first.
  if (upload) comm.agree("restart: finishing the copies to the device", [&] { upload->finish(); });
  ps.set_sizes(n, 0);  // every row [0, n) of every host column holds the file's values
  file.reset();
  v->map(0);  // host mirrors: particles to their owners
  const bool rows_kept = !v->last_stats().rows_changed;
  std::vector<int> copy;
  for (int c = 0; c < ps.column_count(); ++c)
    if (!(rows_kept && dev_filled[c])) copy.push_back(c);
  comm.agree("restart: copying to the device mirror", [&] {
    if (!copy.empty()) ps.transfer(true, copy, ps.stream(), true);
  });
  return v;
}

}  // namespace pvec::impl::io
