// HDF5 checkpoint writer (checkpoint.hpp): the datasets of every column written collectively
// through MPI-IO, the attributes the reader (checkpoint_info.cpp) checks, and the XDMF sidecar.
#include "io/checkpoint.hpp"

#include "common/dtype.hpp"
#include "common/error.hpp"
#include "io/block_pipeline.hpp"
#include "io/column_checksum.hpp"
#include "io/checkpoint_format.hpp"
#include "io/folders.hpp"
#include "io/h5_helpers.hpp"
#include "io/row_checksum.hpp"
#include "io/staging.hpp"
#include "io/xml_escape.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/statvfs.h>

namespace pvec::impl::io {

namespace {

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

std::string xdmf_text(const DistVector& v, const std::vector<int>& cols, int64_t n, double time,
                      const std::string& file) {
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
  for (int c : cols) {
    if (c == 0) continue;
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

void check_names(const DistVector& v, const std::vector<int>& cols) {
  for (int c : cols) {
    if (c == 0) continue;
    const PropertySpec& p = v.particles().column(c).spec;
    if (p.name.find('/') != std::string::npos || p.name == ".")
      fail(PVEC_ERROR_INVALID_ARGUMENT, "property name '", p.name,
           "' cannot name an HDF5 dataset (it contains '/' or is '.')");
  }
}

// The folder part of path ("" for a bare file name).
std::string parent_folder(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// Bytes set aside at the start of the file for its metadata: object headers, attributes and
// the global heap of the strings, with room to spare.
hsize_t metadata_bytes(const DistVector& v, const std::vector<int>& cols,
                       const std::vector<UserAttr>& attrs) {
  const hsize_t nc = cols.size();
  hsize_t b = 16 * 1024 + 1024 * nc;
  for (int c : cols) b += 2 * v.particles().column(c).spec.name.size();
  // Each dataset's checksums attribute.
  b += (256 + 8 * static_cast<hsize_t>(v.comm().size())) * nc;
  for (const UserAttr& a : attrs)
    b += 512 + 2 * (a.key.size() + a.text.size()) + 8 * a.numbers.size();
  return (b + 4095) / 4096 * 4096;
}

// The file's size at most: its metadata block, every dataset's rows, and room for the small
// items HDF5 places after them (the strings' global heap, /rank_counts, the superblock).
uint64_t file_bytes(const DistVector& v, const std::vector<int>& cols,
                    const std::vector<UserAttr>& attrs, int64_t total) {
  const ParticleSet& ps = v.particles();
  uint64_t b =
      metadata_bytes(v, cols, attrs) + 64 * 1024 + 8 * static_cast<uint64_t>(v.comm().size());
  for (int c : cols) b += static_cast<uint64_t>(total) * row_bytes(ps.column(c).spec, 0);
  return b;
}

// Checks that a file of `bytes` can be written at path before HDF5 opens it: this process's
// file size limit (RLIMIT_FSIZE), and the free space of path's filesystem. A file that cannot
// be that large then fails here, where nothing of HDF5's is open: HDF5 extends the file to its
// full size at its first flush, and a flush that fails leaves the file open inside HDF5 for
// good (the process then dies in HDF5's cleanup at exit). Free space is a snapshot: another
// program may take it before the write.
void check_room(const std::string& path, uint64_t bytes, bool fault) {
  rlimit lim{};
  if (fault || (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
                bytes > static_cast<uint64_t>(lim.rlim_cur)))
    fail(PVEC_ERROR_IO, "the checkpoint '", path, "' needs about ", bytes,
         " bytes, beyond this process's file size limit (RLIMIT_FSIZE, ",
         fault ? 0 : static_cast<uint64_t>(lim.rlim_cur), " bytes)");
  const std::string dir = parent_folder(path);
  struct statvfs fs {};
  if (statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0) {
    const uint64_t avail = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (bytes > avail)
      fail(PVEC_ERROR_IO, "the checkpoint '", path, "' needs about ", bytes, " bytes, ", avail,
           " are free on its filesystem");
  }
}

// Writes the whole checkpoint to tmp, in an order that lets a failed write close the file
// cleanly: the room for the whole file is checked first (check_room); every group, attribute and
// dataset is created (complete = 0) inside a block of metadata at the start of the file, and
// flushed; then each rank writes its rows; then complete is set to 1, in place. A write that
// fails after the flush (a full disk, a file size limit, a rank failing alone) thus leaves only
// metadata already on disk to rewrite in place at close, and HDF5's close does not fail. Every HDF5
// object is owned by an H5 on this frame and released on every exit; the steps that may fail on one
// rank are agreed on, so all ranks leave together and close the file collectively. The file's own
// close is checked.
void write_file(DistVector& v, const std::string& tmp, int64_t step, double time,
                const std::vector<int>& cols, const std::vector<UserAttr>& attrs, bool device) {
  const Communicator& comm = v.comm();
  const ParticleSet& ps = v.particles();
  MPI_Comm mpi = io_comm(v);
  const int64_t n = ps.n_local();
  const int64_t first = comm.exclusive_scan_sum(n);
  const int64_t total = comm.allreduce_sum(n);
  std::vector<int64_t> counts(comm.size());
  comm.allgather_bytes(&n, sizeof n, counts.data());

  comm.agree("pvec_checkpoint_write: checking the room for the file", [&] {
    // Every rank: each has its own size limit, and writes up to the end of the file.
    check_room(tmp, file_bytes(v, cols, attrs, total), h5_fault(false));
    prepare_read(v, device);
  });
  H5 file;
  comm.agree("pvec_checkpoint_write: creating the file", [&] {
    H5 fapl = mpio_fapl(mpi);
    H5Pset_meta_block_size(fapl, metadata_bytes(v, cols, attrs));
    // The 1.8 file format: object headers and the superblock carry checksums.
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    file.reset(h5_fault() ? -1 : H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl),
               H5Fclose);
    if (!file.ok()) fail_h5(tmp, "cannot create the checkpoint file");
  });
  // From here on, a failure anywhere closes the file through on_error (below).
  // Dataset k holds column cols[k].
  const int nc = static_cast<int>(cols.size());
  H5 props_group, meta, complete_attr, counts_dset;
  std::vector<H5> dsets(nc), sum_attrs(nc);
  std::vector<std::vector<hsize_t>> dims(nc);
  auto body = [&] {
    comm.agree("pvec_checkpoint_write: creating /properties", [&] {
      props_group.reset(
          h5_fault() ? -1 : H5Gcreate2(file, "properties", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
          H5Gclose);
      if (!props_group.ok()) fail_h5(tmp, "cannot create group /properties");
    });
    // The attributes, each agreed on: attribute creation changes the file's metadata, which
    // every rank must change alike, so a rank that fails one stops with the others.
    const char* w = "pvec_checkpoint_write: writing an attribute";
    const CartGrid& g = v.grid();
    const hsize_t dim = static_cast<hsize_t>(v.dim());
    int64_t bc[PVEC_MAX_DIM], rg[PVEC_MAX_DIM];
    for (int k = 0; k < v.dim(); ++k) {
      bc[k] = g.periodic[k] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
      rg[k] = g.dims[k];
    }
    const int64_t fv = kFormatVersion, idim = v.dim(), ranks = comm.size();
    const double gw = v.ghost_width();
    std::vector<std::string> names;
    for (int c : cols)
      if (c > 0) names.push_back(ps.column(c).spec.name);
    comm.agree(w, [&] { put_strings(file, "format", {kFormat}, true, tmp); });
    comm.agree(w, [&] { put_i64(file, "format_version", &fv, 1, true, tmp); });
    comm.agree(w, [&] { put_strings(file, "pvec_version", {pvec_version_string()}, true, tmp); });
    comm.agree(w, [&] { put_i64(file, "dim", &idim, 1, true, tmp); });
    comm.agree(w, [&] { put_strings(file, "pos_dtype", {dtype_name(v.pos_dtype())}, true, tmp); });
    comm.agree(w, [&] { put_f64(file, "domain_lo", g.lo, dim, false, tmp); });
    comm.agree(w, [&] { put_f64(file, "domain_hi", g.hi, dim, false, tmp); });
    comm.agree(w, [&] { put_i64(file, "boundary", bc, dim, false, tmp); });
    comm.agree(w, [&] { put_f64(file, "ghost_width", &gw, 1, true, tmp); });
    comm.agree(w, [&] { put_i64(file, "rank_grid", rg, dim, false, tmp); });
    // The boxes themselves: every dimension's interior cuts (equal or rebalanced), so that a
    // restart on this rank count gets them back.
    std::vector<double> cuts;
    for (int k = 0; k < v.dim(); ++k)
      for (int c = 1; c < g.dims[k]; ++c) cuts.push_back(g.edge(k, c));
    if (!cuts.empty())
      comm.agree(
          w, [&] { put_f64(file, "decomposition_cuts", cuts.data(), cuts.size(), false, tmp); });
    comm.agree(w, [&] { put_i64(file, "n_ranks", &ranks, 1, true, tmp); });
    comm.agree(w, [&] { put_i64(file, "n_global", &total, 1, true, tmp); });
    comm.agree(w, [&] { put_i64(file, "step", &step, 1, true, tmp); });
    comm.agree(w, [&] { put_f64(file, "time", &time, 1, true, tmp); });
    comm.agree(w, [&] { put_strings(file, "property_names", names, false, tmp); });
    comm.agree("pvec_checkpoint_write: creating /metadata", [&] {
      meta.reset(
          h5_fault() ? -1 : H5Gcreate2(file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
          H5Gclose);
      if (!meta.ok()) fail_h5(tmp, "cannot create group /metadata");
    });
    for (const UserAttr& a : attrs)
      comm.agree(w, [&] {
        if (a.kind == PVEC_METADATA_STRING)
          put_strings(meta, a.key.c_str(), {a.text}, true, tmp);
        else
          put_f64(meta, a.key.c_str(), a.numbers.data(), a.numbers.size(),
                  a.kind == PVEC_METADATA_NUMBER, tmp);
      });
    // 0 until every row is written: a file that says 0 was not completed.
    const int64_t zero = 0;
    comm.agree(w, [&] {
      put_i64(file, "complete", &zero, 1, true, tmp);
      complete_attr.reset(h5_fault() ? -1 : H5Aopen(file, "complete", H5P_DEFAULT), H5Aclose);
      if (!complete_attr.ok()) fail_h5(tmp, "cannot open attribute complete");
    });
    // No fill values (every row is written) and no times in the headers (the same particles
    // give the same bytes).
    H5 dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_obj_track_times(dcpl, 0);
    for (int k = 0; k < nc; ++k) {
      const int c = cols[k];
      const PropertySpec& s = ps.column(c).spec;
      const std::string name = c == 0 ? "/positions" : "/properties/" + s.name;
      dims[k] =
          c == 0 ? std::vector<hsize_t>{static_cast<hsize_t>(total), static_cast<hsize_t>(v.dim())}
                 : dims_of(s, total);
      comm.agree("pvec_checkpoint_write: creating a dataset", [&] {
        H5 fspace(H5Screate_simple(static_cast<int>(dims[k].size()), dims[k].data(), nullptr),
                  H5Sclose);
        dsets[k].reset(h5_fault() ? -1
                                  : H5Dcreate2(file, name.c_str(), file_type(s.dtype), fspace,
                                               H5P_DEFAULT, dcpl, H5P_DEFAULT),
                       H5Dclose);
        if (!dsets[k].ok()) fail_h5(tmp, "cannot create dataset ", name);
      });
      // Its rank blocks' checksums (io/row_checksum.hpp), 0 until the rows are written.
      comm.agree("pvec_checkpoint_write: creating a dataset's checksums", [&] {
        hsize_t nr = static_cast<hsize_t>(comm.size());
        const std::vector<uint64_t> zeros(nr, 0);
        H5 space(H5Screate_simple(1, &nr, nullptr), H5Sclose);
        sum_attrs[k].reset(h5_fault() ? -1
                                      : H5Acreate2(dsets[k], "checksums", H5T_STD_U64LE, space,
                                                   H5P_DEFAULT, H5P_DEFAULT),
                           H5Aclose);
        if (!sum_attrs[k].ok() || H5Awrite(sum_attrs[k], H5T_NATIVE_UINT64, zeros.data()) < 0)
          fail_h5(tmp, "cannot write attribute checksums of ", name);
      });
    }
    comm.agree("pvec_checkpoint_write: creating /rank_counts", [&] {
      hsize_t nr = static_cast<hsize_t>(comm.size());
      H5 fspace(H5Screate_simple(1, &nr, nullptr), H5Sclose);
      counts_dset.reset(h5_fault() ? -1
                                   : H5Dcreate2(file, "rank_counts", H5T_STD_I64LE, fspace,
                                                H5P_DEFAULT, dcpl, H5P_DEFAULT),
                        H5Dclose);
      if (!counts_dset.ok()) fail_h5(tmp, "cannot create dataset /rank_counts");
    });
    comm.agree("pvec_checkpoint_write: writing the metadata", [&] {
      if (h5_fault() || H5Fflush(file, H5F_SCOPE_LOCAL) < 0)
        fail_h5(tmp, "cannot write the file's metadata");
    });

    // The rows: each rank its own, independently; /rank_counts collectively.
    H5 dxpl = transfer_dxpl(H5FD_MPIO_INDEPENDENT);
    BlockPipeline pipe;
    // One staging thread at a time: read_rows copies a device block into scratch and
    // transposes it into the stage slot within one call, so one scratch serves both slots.
    ScratchBuffer& scratch = v.io_staging();
    // This rank's block's checksum of each dataset (io/column_checksum.hpp).
    std::vector<uint64_t> sums(nc, 0);
    for (int k = 0; k < nc; ++k) {
      const int c = cols[k];
      const PropertySpec& s = ps.column(c).spec;
      comm.agree("pvec_checkpoint_write: writing a dataset", [&] {
        const int64_t block = stage_rows(s, 0);
        const size_t rb = row_bytes(s, 0);
        const uint64_t k0 = static_cast<uint64_t>(first) * rb / 4;
        auto* direct = const_cast<unsigned char*>(direct_rows(ps, c, device, 0));
        // The checksum, of the column where it is (io/column_checksum.hpp): on the GPU for a
        // device mirror, on every host thread otherwise; the file and staging threads then
        // only move the rows.
        sums[k] = column_checksum(ps, c, device, n, k0, v.mirrors().device_scratch(3));
        const bool ok = move_rows(
            dsets[k], true, mem_type(s.dtype), dxpl, dims[k], first, n, block, rb,
            device && ps.cuda(), direct, pipe,
            [&](int64_t b0, int64_t count, unsigned char* buf) {
              read_rows(ps, c, device, 0, b0, count, buf, scratch);
            },
            [](int64_t, int64_t, const unsigned char*) {});
        if (!ok)
          fail_h5(tmp, "cannot write dataset ", c == 0 ? "/positions" : "/properties/" + s.name);
      });
    }
    // Every rank's checksums, then each dataset's attribute (collective, the same values).
    std::vector<uint64_t> all(static_cast<size_t>(nc) * comm.size());
    comm.allgather_bytes(sums.data(), sizeof(uint64_t) * nc, all.data());
    for (int k = 0; k < nc; ++k)
      comm.agree("pvec_checkpoint_write: writing a dataset's checksums", [&] {
        std::vector<uint64_t> per_rank(comm.size());
        for (int r = 0; r < comm.size(); ++r) per_rank[r] = all[static_cast<size_t>(r) * nc + k];
        if (h5_fault() || H5Awrite(sum_attrs[k], H5T_NATIVE_UINT64, per_rank.data()) < 0)
          fail_h5(tmp, "cannot write the checksums of dataset ",
                  cols[k] == 0 ? "/positions" : "/properties/" + ps.column(cols[k]).spec.name);
      });
    comm.agree("pvec_checkpoint_write: writing /rank_counts", [&] {
      H5 coll = transfer_dxpl(H5FD_MPIO_COLLECTIVE);
      if (h5_fault() ||
          H5Dwrite(counts_dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, coll, counts.data()) < 0)
        fail_h5(tmp, "cannot write dataset /rank_counts");
    });
    const int64_t one = 1;
    comm.agree(w, [&] {
      if (h5_fault() || H5Awrite(complete_attr, H5T_NATIVE_INT64, &one) < 0)
        fail_h5(tmp, "cannot write attribute complete");
    });
  };
  // Releases every object but the file, then closes the file; a failing close is an error.
  auto close_all = [&] {
    complete_attr.reset();
    meta.reset();
    counts_dset.reset();
    for (H5& a : sum_attrs) a.reset();
    for (H5& d : dsets) d.reset();
    props_group.reset();
    const herr_t rc = H5Fclose(file.release());
    return rc >= 0;
  };
  try {
    body();
  } catch (...) {
    close_all();  // the first error is the one reported
    throw;
  }
  comm.agree("pvec_checkpoint_write: closing the file", [&] {
    const bool closed = close_all();
    if (h5_fault() || !closed) fail_h5(tmp, "cannot finish the checkpoint file (flush and close)");
  });
}

}  // namespace

void checkpoint_write(DistVector& v, const std::string& path, int64_t step, double time,
                      const std::vector<int>& cols, const std::vector<UserAttr>& attrs,
                      unsigned flags) {
  quiet();
  check_names(v, cols);
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const Communicator& comm = v.comm();
  const std::string tmp = path + ".tmp";
  const int64_t total = comm.allreduce_sum(v.particles().n_local());
  comm.agree("pvec_checkpoint_write: creating the folders", [&] {
    if (comm.rank() == 0) make_folders(parent_folder(path));  // as mkdir -p
  });
  try {
    write_file(v, tmp, step, time, cols, attrs, device);
  } catch (...) {
    // Every rank is here (each step was agreed on) and the file is closed: drop it.
    if (comm.rank() == 0) std::remove(tmp.c_str());
    comm.allreduce_max(0);  // the file is gone on return, on every rank
    throw;
  }
  comm.agree("pvec_checkpoint_write: renaming the file", [&] {
    if (comm.rank() != 0) return;
    errno = 0;
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      fail_io("cannot rename the finished checkpoint to", path);
    }
    if (v.dim() >= 2 && v.dim() <= 3)
      write_file_atomic(sidecar_path(path), xdmf_text(v, cols, total, time, base_name(path)));
  });
}

}  // namespace pvec::impl::io
