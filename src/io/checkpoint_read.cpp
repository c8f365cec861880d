// HDF5 checkpoint restart (checkpoint.hpp): the file read and validated (checkpoint_info.hpp)
// and compared with the request, then each rank's block of rows read (pread where the file
// allows, else HDF5), its checksums verified, and the rows distributed with map.
#include "io/checkpoint.hpp"
#include "io/checkpoint_info.hpp"

#include "backend/device.hpp"
#include "backend/host_parallel.hpp"
#include "common/dtype.hpp"
#include "common/error.hpp"
#include "io/block_pipeline.hpp"
#include "io/checkpoint_format.hpp"
#include "io/h5_helpers.hpp"
#include "io/raw_dataset.hpp"
#include "io/row_checksum.hpp"
#include "io/staging.hpp"
#include "particles/staged_transfer.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace pvec::impl::io {

namespace {

std::string shape_text(const PropertySpec& s) {
  std::ostringstream os;
  if (s.rank == 0) os << "scalar";
  if (s.rank == 1) os << "vector[" << s.extents[0] << "]";
  if (s.rank == 2) os << "tensor[" << s.extents[0] << "][" << s.extents[1] << "]";
  return os.str();
}

void compare(const CheckpointInfo& info, const pvec_vector_desc& d, const Schema& schema,
             unsigned flags, const std::string& path) {
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
    if (!in_file.count(p.name)) {
      if (flags & PVEC_RESTART_ZERO_MISSING) continue;
      fail(PVEC_ERROR_INVALID_ARGUMENT, where, "property '", p.name,
           "' is requested but not in the file '", path,
           "' (PVEC_RESTART_ZERO_MISSING would create it with zeros)");
    }
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
    if (schema.find(f.name) == -2 && !(flags & PVEC_RESTART_SKIP_EXTRA))
      fail(PVEC_ERROR_INVALID_ARGUMENT, where, "the file has property '", f.name,
           "', which was not requested (PVEC_RESTART_SKIP_EXTRA would leave it unread)");
}

}  // namespace

std::unique_ptr<DistVector> restart(const std::string& path, const pvec_vector_desc& desc,
                                    const Schema& schema, unsigned flags) {
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
    H5 f = open_checkpoint(path, fapl);
    info = read_checkpoint_info(f, path);
    compare(info, desc, schema, flags, path);
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
  // On the writer's rank count, the writer's boxes (a rebalanced grid too), so that the map
  // below moves nothing.
  if (info.has_cuts && info.n_ranks == p) {
    CartGrid g = v->grid();
    const double* interior[PVEC_MAX_DIM] = {nullptr, nullptr, nullptr, nullptr};
    size_t at = 0;
    for (int k = 0; k < g.dim; ++k) {
      g.dims[k] = info.rank_grid[k];
      interior[k] = info.cuts.data() + at;
      at += static_cast<size_t>(g.dims[k] - 1);
    }
    g.set_cuts(interior);
    v->set_grid(g);
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
  // Each dataset's checksums per writer block (io/row_checksum.hpp): stored, and this rank's
  // part of what was read, added over the ranks after the last dataset.
  // A column the file lacks (PVEC_RESTART_ZERO_MISSING) is zero-filled instead, and its
  // checksums are 0 on both sides.
  const int nc = ps.column_count();
  std::vector<uint64_t> stored(static_cast<size_t>(nc) * info.n_ranks), read_parts;
  std::set<std::string> in_file;
  for (const PropertySpec& f : info.props) in_file.insert(f.name);
  for (int c = 0; c < nc; ++c) {
    const PropertySpec& s = ps.column(c).spec;
    const std::string name = c == 0 ? "/positions" : "/properties/" + s.name;
    if (c > 0 && !in_file.count(s.name)) {
      const PropertyBuffer& col = ps.column(c);
      zero_2d(col.host, col.row_bytes(ps.capacity()), static_cast<size_t>(n) * s.elem_size,
              static_cast<size_t>(s.ncomp), false, nullptr);
      read_parts.insert(read_parts.end(), static_cast<size_t>(info.n_ranks), 0);
      continue;
    }
    comm.agree("restart: reading a dataset", [&] {
      H5 dset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
      H5 fspace(dset.ok() ? H5Dget_space(dset) : -1, H5Sclose);
      if (!fspace.ok()) fail_h5(path, "cannot open dataset ", name);
      std::vector<hsize_t> d(H5Sget_simple_extent_ndims(fspace));
      H5Sget_simple_extent_dims(fspace, d.data(), nullptr);
      get_attr(dset, "checksums", H5T_NATIVE_UINT64,
               stored.data() + static_cast<size_t>(c) * info.n_ranks, info.n_ranks, path);
      const int64_t block = stage_rows(s, 0);
      const size_t rb = row_bytes(s, 0);
      BlockSums sums(info.rank_counts, rb);
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
              if (e == 0) sums.add(first + b0, count, buf);
              return e == 0;
            },
            unstage_both);
        if (!ok)
          fail(PVEC_ERROR_IO, "'", path, "': cannot read dataset ", name, ": ",
               err.load() != 0 ? std::strerror(err.load()) : "failed");
        dev_filled[c] = !ps.cuda() || fused;
        const std::vector<uint64_t> part = sums.parts();
        read_parts.insert(read_parts.end(), part.begin(), part.end());
        return;
      }
      const bool ok =
          move_rows(dset, false, mem_type(s.dtype), dxpl, d, first, n, block, rb, false, direct,
                    pipe, unstage, [&](int64_t b0, int64_t count, const unsigned char* buf) {
                      sums.add(first + b0, count, buf);
                    });
      if (!ok) fail_h5(path, "cannot read dataset ", name, " (truncated or corrupted file?)");
      const std::vector<uint64_t> part = sums.parts();
      read_parts.insert(read_parts.end(), part.begin(), part.end());
    });
  }
  // Every block of every dataset was read by some ranks: their parts add up to its checksum.
  comm.allreduce(read_parts.data(), static_cast<int64_t>(read_parts.size()), PVEC_UINT64,
                 AllreduceOp::sum);
  for (int c = 0; c < nc; ++c)
    for (int b = 0; b < info.n_ranks; ++b) {
      const size_t at = static_cast<size_t>(c) * info.n_ranks + b;
      if (read_parts[at] != stored[at]) {
        int64_t row0 = 0;
        for (int k = 0; k < b; ++k) row0 += info.rank_counts[k];
        const PropertySpec& s = ps.column(c).spec;
        fail(PVEC_ERROR_IO, "'", path, "': dataset ",
             c == 0 ? "/positions" : "/properties/" + s.name, ", rows [", row0, ", ",
             row0 + info.rank_counts[b], ") written by rank ", b,
             ": the data do not match their checksum (the file is damaged)");
      }
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
  v->note_copied(true, v->all_columns(), kRowsLocal);  // both mirrors hold the file's values
  return v;
}

}  // namespace pvec::impl::io
