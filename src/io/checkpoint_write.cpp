// HDF5 checkpoint writer (checkpoint.hpp): the datasets of every column written collectively
// through MPI-IO, the attributes the reader (checkpoint_read.cpp) checks, and the XDMF sidecar.
#include "io/checkpoint.hpp"

#include "common/dtype.hpp"
#include "common/error.hpp"
#include "io/block_pipeline.hpp"
#include "io/checkpoint_format.hpp"
#include "io/h5_helpers.hpp"
#include "io/staging.hpp"
#include "io/xml_escape.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace pvec::impl::io
