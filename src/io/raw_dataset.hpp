// RawFile: the rows of HDF5 datasets that the file holds exactly as memory holds them (a
// contiguous layout, no external storage, the memory type itself), read without HDF5: pread
// on the open file at the offset HDF5 reports for the data (H5Dget_offset). pread may run on
// several threads at once, which HDF5 may not (it is built without thread safety), so a
// restart reads its blocks on every host thread (BlockPipeline::read_parallel). Anything
// else (a chunked or filtered dataset written by another program, another byte order, rows
// the file is too short for) is read through HDF5 as before, which also reports what is
// wrong with it. PVEC_IO_PREAD=0 turns raw reads off (for comparisons).
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pvec::impl::io {

class RawFile {
 public:
  // Opens path for reading; when that fails (or PVEC_IO_PREAD=0) nothing is raw.
  explicit RawFile(const std::string& path);
  ~RawFile();
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;

  // The file offset of row 0 of dset (of dimensions dims) when its rows [0, rows) of
  // row_bytes each can be read raw as memory type mtype; -1 otherwise.
  int64_t rows_at(hid_t dset, const std::vector<hsize_t>& dims, hid_t mtype, int64_t rows,
                  size_t row_bytes) const;

  // Reads bytes at offset into buf, from any thread: 0, or an errno value (EIO when the file
  // ends first).
  int read(unsigned char* buf, size_t bytes, int64_t offset) const;

 private:
  int fd_ = -1;
  int64_t size_ = 0;
};

}  // namespace pvec::impl::io
