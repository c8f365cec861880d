// Raw reads of contiguous HDF5 datasets (raw_dataset.hpp).
#include "io/raw_dataset.hpp"

#include "runtime/options.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pvec::impl::io {

RawFile::RawFile(const std::string& path) {
  if (!option_on(Option::io_pread)) return;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd_ >= 0 && ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    size_ = static_cast<int64_t>(st.st_size);
  } else if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

RawFile::~RawFile() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t RawFile::rows_at(hid_t dset, const std::vector<hsize_t>& dims, hid_t mtype, int64_t rows,
                         size_t row_bytes) const {
  if (fd_ < 0 || rows < 0 || dims.empty() || dims[0] < static_cast<hsize_t>(rows)) return -1;
  bool ok = false;
  const hid_t dcpl = H5Dget_create_plist(dset);
  if (dcpl >= 0) {
    ok = H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) == 0;
    H5Pclose(dcpl);
  }
  const hid_t ftype = ok ? H5Dget_type(dset) : -1;
  if (ftype >= 0) {
    ok = H5Tequal(ftype, mtype) > 0;
    H5Tclose(ftype);
  } else {
    ok = false;
  }
  // Rows of exactly row_bytes.
  hsize_t elems = 1;
  for (size_t k = 1; ok && k < dims.size(); ++k)
    ok = !__builtin_mul_overflow(elems, dims[k], &elems);
  if (!ok || elems * H5Tget_size(mtype) != row_bytes) return -1;
  const haddr_t at = H5Dget_offset(dset);
  H5Eclear2(H5E_DEFAULT);
  int64_t bytes = 0;
  if (at == HADDR_UNDEF || at > static_cast<haddr_t>(size_) ||
      __builtin_mul_overflow(rows, static_cast<int64_t>(row_bytes), &bytes) ||
      bytes > size_ - static_cast<int64_t>(at))
    return -1;
  return static_cast<int64_t>(at);
}

int RawFile::read(unsigned char* buf, size_t bytes, int64_t offset) const {
  while (bytes > 0) {
    const size_t chunk = std::min(bytes, size_t{1} << 30);
    const ssize_t got = ::pread(fd_, buf, chunk, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno != 0 ? errno : EIO;
    }
    if (got == 0) return EIO;
    buf += got;
    offset += got;
    bytes -= static_cast<size_t>(got);
  }
  return 0;
}

}  // namespace pvec::impl::io
