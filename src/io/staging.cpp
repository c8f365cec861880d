#include "io/staging.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pvec::impl::io {

namespace {

// About this many bytes of interleaved rows per block: well inside L2, so the block written by
// the transpose is still in cache when the file call copies it.
constexpr size_t kStageBytes = size_t{1} << 20;
size_t g_stage_bytes = kStageBytes;
// Components per pass of the transposes. Each pass walks the rows once, particle by particle:
// the interleaved side is one sequential stream and each component row another, so every
// stream advances a cache line at a time and the prefetchers keep up. (Component by component
// over tiles of rows measured 4-6x slower when the component rows are written: docs/io.md.)
constexpr int64_t kGroup = 16;

template <class T>
void interleave(const unsigned char* src, size_t pitch, int64_t n, int64_t nc, int64_t width,
                unsigned char* out) {
  T* o = reinterpret_cast<T*>(out);
  for (int64_t c0 = 0; c0 < nc; c0 += kGroup) {
    const int64_t g = std::min(kGroup, nc - c0);
    const T* row[kGroup];
    for (int64_t k = 0; k < g; ++k) row[k] = reinterpret_cast<const T*>(src + (c0 + k) * pitch);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < g; ++k) o[i * width + c0 + k] = row[k][i];
  }
  if (width > nc)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = nc; c < width; ++c) o[i * width + c] = T(0);
}

template <class T>
void deinterleave(const unsigned char* in, int64_t n, int64_t nc, unsigned char* dst,
                  size_t pitch) {
  const T* src = reinterpret_cast<const T*>(in);
  for (int64_t c0 = 0; c0 < nc; c0 += kGroup) {
    const int64_t g = std::min(kGroup, nc - c0);
    T* row[kGroup];
    for (int64_t k = 0; k < g; ++k) row[k] = reinterpret_cast<T*>(dst + (c0 + k) * pitch);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < g; ++k) row[k][i] = src[i * nc + c0 + k];
  }
}

}  // namespace

size_t row_bytes(const PropertySpec& s, int pad_to) {
  const int64_t width = s.ncomp > pad_to ? s.ncomp : pad_to;
  return static_cast<size_t>(width) * s.elem_size;
}

int64_t stage_rows(const PropertySpec& s, int pad_to) {
  return std::max<int64_t>(1, static_cast<int64_t>(g_stage_bytes / row_bytes(s, pad_to)));
}

void force_stage_bytes_for_tests(size_t bytes) { g_stage_bytes = bytes > 0 ? bytes : kStageBytes; }

void prepare_read(DistVector& v, bool device) {
  ParticleSet& ps = v.mirrors();
  if (device) ps.flush_device();
  ps.sync_stream();
}

void read_rows(const ParticleSet& ps, int col, bool device, int pad_to, int64_t first,
               int64_t count, unsigned char* out, ScratchBuffer& scratch) {
  if (count <= 0) return;
  const PropertyBuffer& c = ps.column(col);
  const int64_t nc = c.spec.ncomp;
  const int64_t width = nc > pad_to ? nc : pad_to;
  const size_t es = c.spec.elem_size;
  const unsigned char* src =
      static_cast<const unsigned char*>(device ? c.dev : c.host) + first * es;
  size_t pitch = c.row_bytes(ps.capacity());
  if (device && ps.cuda()) {
    unsigned char* s =
        static_cast<unsigned char*>(scratch.ensure(static_cast<size_t>(count * nc) * es));
    copy_2d(s, count * es, src, pitch, count * es, nc, true, ps.stream());
    stream_synchronize(ps.stream());
    src = s;
    pitch = count * es;
  }
  if (es == 4)
    interleave<uint32_t>(src, pitch, count, nc, width, out);
  else
    interleave<uint64_t>(src, pitch, count, nc, width, out);
}

const unsigned char* direct_rows(const ParticleSet& ps, int col, bool device, int pad_to) {
  const PropertyBuffer& c = ps.column(col);
  if (c.spec.ncomp != 1 || pad_to > 1 || (device && ps.cuda())) return nullptr;
  return static_cast<const unsigned char*>(device ? c.dev : c.host);
}

void write_rows_host(ParticleSet& ps, int col, int64_t first, int64_t count,
                     const unsigned char* in) {
  if (count <= 0) return;
  PropertyBuffer& c = ps.column(col);
  const size_t es = c.spec.elem_size;
  unsigned char* dst = static_cast<unsigned char*>(c.host) + first * es;
  const size_t pitch = c.row_bytes(ps.capacity());
  if (es == 4)
    deinterleave<uint32_t>(in, count, c.spec.ncomp, dst, pitch);
  else
    deinterleave<uint64_t>(in, count, c.spec.ncomp, dst, pitch);
}

void copy_rows_to_device_mirror(ParticleSet& ps, int col, int64_t first, int64_t count) {
  if (count <= 0) return;
  PropertyBuffer& c = ps.column(col);
  const size_t es = c.spec.elem_size, pitch = c.row_bytes(ps.capacity());
  for (int64_t k = 0; k < c.spec.ncomp; ++k)
    std::memcpy(static_cast<unsigned char*>(c.dev) + k * pitch + first * es,
                static_cast<const unsigned char*>(c.host) + k * pitch + first * es,
                static_cast<size_t>(count) * es);
}

unsigned char* direct_rows_host(ParticleSet& ps, int col) {
  PropertyBuffer& c = ps.column(col);
  return c.spec.ncomp == 1 ? static_cast<unsigned char*>(c.host) : nullptr;
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
