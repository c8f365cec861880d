// HDF5 helpers of the checkpoint writer and readers (io/checkpoint_write.cpp,
// checkpoint_info.cpp, checkpoint_read.cpp): an identifier closed on scope exit, HDF5's
// innermost error message in pvec's errors, the file and memory types of pvec's dtypes,
// attributes written and read with the checks a damaged file needs, the MPI-IO property lists,
// and the block-wise transfer of a column's rows through a BlockPipeline. Compiled only with a
// parallel HDF5.
#pragma once

#include "common/error.hpp"
#include "io/block_pipeline.hpp"

#include <hdf5.h>
#include <mpi.h>
#include <pvec.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace pvec::impl::io {

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
  // Gives up ownership without closing: the caller closes the returned identifier.
  hid_t release() {
    const hid_t id = id_;
    id_ = -1;
    return id;
  }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// Fault injection for tests (tests/io/test_io_write_failures.cpp). The checkpoint writer calls
// h5_fault(collective) before each step that may fail, the same sequence on every rank; after
// inject_h5_fault_for_tests(k, local_only), the k-th call (from 0) returns true and the writer
// treats the step as failed. With local_only, a collective step (an HDF5 call every rank makes
// together, which in practice fails on all ranks or none) does not fire: a rank failing alone
// at one would leave the others waiting inside HDF5. k < 0 turns it off.
// h5_fault_fired_for_tests says whether it fired, h5_fault_points_for_tests how many calls
// were made since the injection. Calls come from one thread (HDF5 is called from the calling
// thread only).
void inject_h5_fault_for_tests(int k, bool local_only = false);
bool h5_fault_fired_for_tests();
int h5_fault_points_for_tests();
bool h5_fault(bool collective = true);

// HDF5 prints its error stack by default: keep quiet, pvec reports the innermost message.
void quiet();

// The innermost message of HDF5's error stack (empty when there is none); clears the stack.
std::string h5_message();

// Throws PVEC_ERROR_IO: the parts, the path, and HDF5's innermost message.
template <class... Parts>
[[noreturn]] void fail_h5(const std::string& path, Parts&&... what) {
  const std::string detail = h5_message();
  std::ostringstream os;
  (os << ... << what);
  fail(PVEC_ERROR_IO, os.str(), " (", path, ")", detail.empty() ? "" : ": HDF5: ", detail);
}

// HDF5 file type (little-endian) and native memory type of a pvec dtype.
hid_t file_type(pvec_dtype d);
hid_t mem_type(pvec_dtype d);

// pvec dtype of an HDF5 type, 0 when it is none of them.
int dtype_of(hid_t t);

// ---- attributes --------------------------------------------------------------------------

// Writes attribute name of loc: n values (or one, scalar) of data in mtype, stored as ftype.
void put_attr(hid_t loc, const char* name, hid_t ftype, hid_t mtype, const void* data, hsize_t n,
              bool scalar, const std::string& path);
void put_i64(hid_t loc, const char* name, const int64_t* v, hsize_t n, bool scalar,
             const std::string& path);
void put_f64(hid_t loc, const char* name, const double* v, hsize_t n, bool scalar,
             const std::string& path);
// The variable-length UTF-8 string type.
H5 vl_string();
void put_strings(hid_t loc, const char* name, const std::vector<std::string>& v, bool scalar,
                 const std::string& path);

// Reads attribute name of loc as n values of mtype; IO error naming it when absent or of
// another count.
void get_attr(hid_t loc, const char* name, hid_t mtype, void* out, hssize_t n,
              const std::string& path);
int64_t get_i64(hid_t loc, const char* name, const std::string& path);
std::vector<std::string> get_strings(hid_t loc, const char* name, hssize_t n,
                                     const std::string& path);
// The number of values of attribute name of loc; IO error naming it when absent.
hssize_t attr_count(hid_t loc, const char* name, const std::string& path);

// ---- files and datasets ------------------------------------------------------------------

// File access through MPI-IO on comm.
H5 mpio_fapl(MPI_Comm comm);
// Dataset transfer list of the given MPI-IO mode (independent or collective).
H5 transfer_dxpl(H5FD_mpio_xfer_t mode);

// Rows [first, first + count) of a dataset of dims d: selects them in fspace (a copy of the
// dataset's space) and returns the memory space of count rows.
H5 block_spaces(hid_t fspace, const std::vector<hsize_t>& d, int64_t first, int64_t count);

// The rows [0, n) of one column move between memory and rows [first, first + n) of a dataset
// a staged block at a time (io/staging.hpp) through pipe (io/block_pipeline.hpp: the next
// block is staged while HDF5 writes this one, with two host threads), each block one
// independent H5Dwrite/H5Dread: every rank's rows are one contiguous range of the file, so
// collective buffering would only add a copy through the aggregators, and independent calls
// let ranks with different counts make different numbers of them. HDF5 is called from the
// calling thread only. block(b0, count, buf) stages (before a write) or unstages (after a
// read) rows [b0, b0 + count) of row_bytes each (device: it reads the device mirror); direct:
// the column's own memory when it already is the file's rows (then one call moves all n).
// after(b0, count, buf) runs on the calling thread after each successful file call, with the
// rows in file layout (the restart's checksums of what HDF5 read; the writer sums its rows as
// it stages them, in block).
template <class Block, class After>
bool move_rows(hid_t dset, bool write, hid_t mtype, hid_t dxpl, const std::vector<hsize_t>& d,
               int64_t first, int64_t n, int64_t block_rows, size_t row_bytes, bool device,
               unsigned char* direct, BlockPipeline& pipe, Block&& block, After&& after) {
  if (write && h5_fault(false)) return false;  // one step per column, on every rank
  if (n == 0) return true;
  H5 fspace(H5Dget_space(dset), H5Sclose);
  if (!fspace.ok()) return false;
  auto file_call = [&](int64_t b0, int64_t count, unsigned char* buf) {
    H5 mspace = block_spaces(fspace, d, first + b0, count);
    const bool ok = (write ? H5Dwrite(dset, mtype, mspace, fspace, dxpl, buf)
                           : H5Dread(dset, mtype, mspace, fspace, dxpl, buf)) >= 0;
    if (ok) after(b0, count, static_cast<const unsigned char*>(buf));
    return ok;
  };
  if (direct) return file_call(0, n, direct);
  return write ? pipe.write(n, block_rows, row_bytes, device, block, file_call)
               : pipe.read(n, block_rows, row_bytes, file_call, block);
}

}  // namespace pvec::impl::io
