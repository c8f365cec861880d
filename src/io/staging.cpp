#include "io/staging.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pvec::impl::io {

namespace {
template <class T>
void transpose_out(const unsigned char* src, size_t pitch, int64_t n, int64_t nc, int64_t width,
                   unsigned char* out) {
  T* o = reinterpret_cast<T*>(out);
  for (int64_t c = 0; c < nc; ++c) {
    const T* row = reinterpret_cast<const T*>(src + c * pitch);
    for (int64_t i = 0; i < n; ++i) o[i * width + c] = row[i];
  }
}
template <class T>
void transpose_in(const unsigned char* in, int64_t n, int64_t nc, unsigned char* dst,
                  size_t pitch) {
  const T* src = reinterpret_cast<const T*>(in);
  for (int64_t c = 0; c < nc; ++c) {
    T* row = reinterpret_cast<T*>(dst + c * pitch);
    for (int64_t i = 0; i < n; ++i) row[i] = src[i * nc + c];
  }
}
}  // namespace

void prepare_read(DistVector& v, bool device) {
  ParticleSet& ps = v.mirrors();
  if (device) ps.flush_device();
  ps.sync_stream();
}

void read_rows(const ParticleSet& ps, int col, bool device, int pad_to,
               std::vector<unsigned char>& out, std::vector<unsigned char>& scratch) {
  const PropertyBuffer& c = ps.column(col);
  const int64_t n = ps.n_local();
  const int64_t nc = c.spec.ncomp;
  const int64_t width = nc > pad_to ? nc : pad_to;
  const size_t es = c.spec.elem_size;
  out.assign(static_cast<size_t>(n * width) * es, 0);
  if (n == 0) return;
  const unsigned char* src = static_cast<const unsigned char*>(device ? c.dev : c.host);
  size_t pitch = c.row_bytes(ps.capacity());
  if (device && ps.cuda()) {
    scratch.resize(static_cast<size_t>(n * nc) * es);
    copy_2d(scratch.data(), n * es, c.dev, pitch, n * es, nc, true, ps.stream());
    stream_synchronize(ps.stream());
    src = scratch.data();
    pitch = n * es;
  }
  if (es == 4)
    transpose_out<uint32_t>(src, pitch, n, nc, width, out.data());
  else
    transpose_out<uint64_t>(src, pitch, n, nc, width, out.data());
}

void write_rows_host(ParticleSet& ps, int col, int64_t n, const unsigned char* in) {
  PropertyBuffer& c = ps.column(col);
  if (n == 0) return;
  unsigned char* dst = static_cast<unsigned char*>(c.host);
  const size_t pitch = c.row_bytes(ps.capacity());
  if (c.spec.elem_size == 4)
    transpose_in<uint32_t>(in, n, c.spec.ncomp, dst, pitch);
  else
    transpose_in<uint64_t>(in, n, c.spec.ncomp, dst, pitch);
}

void fail_io(const std::string& what, const std::string& path) {
  const int e = errno;
  fail(PVEC_ERROR_IO, what, " '", path, "': ", e ? std::strerror(e) : "failed");
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  errno = 0;
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) fail_io("cannot create", tmp);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::remove(tmp.c_str());
    fail_io("cannot write", tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    fail_io("cannot rename to", path);
  }
}

}  // namespace pvec::impl::io
