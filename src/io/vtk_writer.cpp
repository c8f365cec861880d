#include "io/vtk_writer.hpp"

#include "common/error.hpp"
#include "io/block_pipeline.hpp"
#include "io/folders.hpp"
#include "io/staging.hpp"
#include "io/xml_escape.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <sys/stat.h>

namespace pvec::impl::io {

namespace {

bool little_endian() {
  const uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

const char* byte_order() { return little_endian() ? "LittleEndian" : "BigEndian"; }

std::string xml_unescape(const std::string& s) {
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      o += s[i];
      continue;
    }
    static const char* names[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    static const char chars[] = {'&', '<', '>', '"', '\''};
    bool done = false;
    for (int k = 0; k < 5 && !done; ++k)
      if (s.compare(i, std::strlen(names[k]), names[k]) == 0) {
        o += chars[k];
        i += std::strlen(names[k]) - 1;
        done = true;
      }
    if (!done) o += s[i];
  }
  return o;
}

std::string step_name(const std::string& base, int64_t step) {
  std::ostringstream os;
  os << base << '_' << std::setw(6) << std::setfill('0') << step;
  return os.str();
}

std::string rank_name(int rank) {
  std::ostringstream os;
  os << std::setw(4) << std::setfill('0') << rank;
  return os.str();
}

// "dir/run" -> ("dir/", "run")
void split_path(const std::string& p, std::string& dir, std::string& base) {
  const size_t slash = p.find_last_of('/');
  if (slash == std::string::npos) {
    dir.clear();
    base = p;
  } else {
    dir = p.substr(0, slash + 1);
    base = p.substr(slash + 1);
  }
}

// One data array of a piece: its header line and where its bytes come from.
struct Array {
  enum class Source { column, rank, connectivity, offsets };
  std::string name;
  const char* type;
  int64_t ncomp;
  Source source = Source::column;
  int col = -1;  // Source::column: the column, padded to ncomp components
  uint64_t bytes = 0;
};

std::string array_tag(const Array& a, uint64_t offset) {
  std::ostringstream os;
  os << "<DataArray type=\"" << a.type << "\" Name=\"" << xml_escape(a.name)
     << "\" NumberOfComponents=\"" << a.ncomp << "\" format=\"appended\" offset=\"" << offset
     << "\"/>";
  return os.str();
}

// Writes array a's bytes for the n local particles to f, a staged block at a time through
// pipe (io/block_pipeline.hpp: the next block staged during this one's fwrite, with two host
// threads). false on a short write.
bool write_array(std::FILE* f, const Array& a, const ParticleSet& ps, bool device, int rank,
                 int64_t n, BlockPipeline& pipe, ScratchBuffer& scratch) {
  auto put = [&](size_t rb) {
    return [f, rb](int64_t, int64_t count, unsigned char* buf) {
      return std::fwrite(buf, rb, count, f) == static_cast<size_t>(count);
    };
  };
  if (a.source == Array::Source::column) {
    const int pad = static_cast<int>(a.ncomp);
    if (const unsigned char* direct = direct_rows(ps, a.col, device, pad))
      return std::fwrite(direct, 1, a.bytes, f) == a.bytes;
    const PropertySpec& s = ps.column(a.col).spec;
    const size_t rb = row_bytes(s, pad);
    // One staging thread at a time: read_rows copies a device block into scratch and
    // transposes it into the stage slot within one call, so one scratch serves both slots.
    return pipe.write(
        n, stage_rows(s, pad), rb, device && ps.cuda(),
        [&](int64_t b0, int64_t count, unsigned char* buf) {
          read_rows(ps, a.col, device, pad, b0, count, buf, scratch);
        },
        put(rb));
  }
  // The rank (Int32) or the vertex cells (Int64): connectivity 0..n-1, offsets 1..n (VTK XML
  // 1.0 convention).
  const size_t es = a.source == Array::Source::rank ? 4 : 8;
  const int64_t block = static_cast<int64_t>((size_t{1} << 20) / es);
  return pipe.write(
      n, block, es, false,
      [&](int64_t b0, int64_t count, unsigned char* buf) {
        if (a.source == Array::Source::rank) {
          auto* o = reinterpret_cast<int32_t*>(buf);
          for (int64_t i = 0; i < count; ++i) o[i] = rank;
        } else {
          auto* o = reinterpret_cast<int64_t*>(buf);
          const int64_t base = b0 + (a.source == Array::Source::offsets ? 1 : 0);
          for (int64_t i = 0; i < count; ++i) o[i] = base + i;
        }
      },
      put(es));
}

void write_piece(const std::string& path, int64_t n, const std::vector<Array>& point_data,
                 const Array& points, const ParticleSet& ps, bool device, int rank,
                 ScratchBuffer& scratch) {
  const Array conn{
      "connectivity", "Int64", 1, Array::Source::connectivity, -1, static_cast<uint64_t>(n) * 8};
  const Array offs{"offsets", "Int64", 1, Array::Source::offsets, -1, static_cast<uint64_t>(n) * 8};
  std::vector<const Array*> order;
  for (const Array& a : point_data) order.push_back(&a);
  order.push_back(&points);
  order.push_back(&conn);
  order.push_back(&offs);
  std::vector<uint64_t> offsets;
  uint64_t at = 0;
  for (const Array* a : order) {
    offsets.push_back(at);
    at += 8 + a->bytes;
  }
  std::ostringstream h;
  h << "<?xml version=\"1.0\"?>\n"
    << "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"" << byte_order()
    << "\" header_type=\"UInt64\">\n"
    << "  <PolyData>\n"
    << "    <Piece NumberOfPoints=\"" << n << "\" NumberOfVerts=\"" << n
    << "\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
    << "      <PointData>\n";
  size_t k = 0;
  for (; k < point_data.size(); ++k) h << "        " << array_tag(*order[k], offsets[k]) << "\n";
  h << "      </PointData>\n      <Points>\n        " << array_tag(points, offsets[k]) << "\n"
    << "      </Points>\n      <Verts>\n"
    << "        " << array_tag(conn, offsets[k + 1]) << "\n"
    << "        " << array_tag(offs, offsets[k + 2]) << "\n"
    << "      </Verts>\n    </Piece>\n  </PolyData>\n"
    << "  <AppendedData encoding=\"raw\">\n   _";
  const std::string tmp = path + ".tmp";
  errno = 0;
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) fail_io("cannot create", tmp);
  const std::string head = h.str();
  bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
  BlockPipeline pipe;
  try {
    for (const Array* a : order) {
      const uint64_t bytes = a->bytes;
      ok = ok && std::fwrite(&bytes, 8, 1, f) == 1;
      ok = ok && write_array(f, *a, ps, device, rank, n, pipe, scratch);
    }
  } catch (...) {  // staging failed (from the device): no half-written file stays behind
    std::fclose(f);
    std::remove(tmp.c_str());
    throw;
  }
  const char tail[] = "\n  </AppendedData>\n</VTKFile>\n";
  ok = ok && std::fwrite(tail, 1, sizeof tail - 1, f) == sizeof tail - 1;
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

// Entries (file -> timestep text) of an existing .pvd written by pvec; none when absent.
std::map<std::string, std::string> read_pvd(const std::string& path) {
  std::map<std::string, std::string> entries;
  std::ifstream in(path);
  if (!in) return entries;
  std::string line;
  auto attr = [](const std::string& l, const char* name, std::string& v) {
    const std::string key = std::string(" ") + name + "=\"";
    const size_t a = l.find(key);
    if (a == std::string::npos) return false;
    const size_t b = l.find('"', a + key.size());
    if (b == std::string::npos) return false;
    v = l.substr(a + key.size(), b - a - key.size());
    return true;
  };
  while (std::getline(in, line)) {
    if (line.find("<DataSet") == std::string::npos) continue;
    std::string t, file;
    if (attr(line, "timestep", t) && attr(line, "file", file)) entries[xml_unescape(file)] = t;
  }
  return entries;
}

std::string number_text(double x) {
  std::ostringstream os;
  os << std::setprecision(17) << x;
  return os.str();
}

}  // namespace

const char* vtk_type(pvec_dtype d) {
  switch (d) {
    case PVEC_FLOAT32:
      return "Float32";
    case PVEC_FLOAT64:
      return "Float64";
    case PVEC_INT32:
      return "Int32";
    case PVEC_INT64:
      return "Int64";
    case PVEC_UINT32:
      return "UInt32";
    case PVEC_UINT64:
      return "UInt64";
  }
  return "Float64";
}

void write_vtk(DistVector& v, const std::string& prefix, int64_t step, double time,
               const std::vector<int>& cols, unsigned flags) {
  const bool device = (flags & PVEC_ON_DEVICE) != 0;
  const bool rank_array = (flags & PVEC_VTK_RANK_ARRAY) != 0;
  const Communicator& comm = v.comm();
  std::string dir, base;
  split_path(prefix, dir, base);
  const std::string stem = step_name(base, step);  // run_000042
  const std::string piece_rel = stem + "/" + base + "_" + rank_name(comm.rank()) + ".vtp";

  // Each listed property's VTK type and component count, in declaration order (for the .pvtp).
  const ParticleSet& ps = v.particles();
  const int64_t n = ps.n_local();
  std::vector<Array> headers;
  for (int c : cols) {
    const PropertySpec& s = ps.column(c).spec;
    headers.push_back(Array{s.name, vtk_type(s.dtype), s.ncomp, Array::Source::column, c,
                            static_cast<uint64_t>(n) * row_bytes(s, 0)});
  }
  if (rank_array)
    headers.push_back(
        Array{"rank", "Int32", 1, Array::Source::rank, -1, static_cast<uint64_t>(n) * 4});
  const char* points_type = vtk_type(v.pos_dtype());

  comm.agree("pvec_vtk_write: writing a piece", [&] {
    make_folders(dir + stem);  // the prefix's missing folders too, as mkdir -p
    prepare_read(v, device);
    const Array points{"Points", points_type,
                       3,        Array::Source::column,
                       0,        static_cast<uint64_t>(n) * row_bytes(ps.column(0).spec, 3)};
    write_piece(dir + piece_rel, n, headers, points, ps, device, comm.rank(), v.io_staging());
  });

  comm.agree("pvec_vtk_write: writing the .pvtp and .pvd", [&] {
    if (comm.rank() != 0) return;
    std::ostringstream p;
    p << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"PPolyData\" version=\"1.0\" byte_order=\"" << byte_order()
      << "\" header_type=\"UInt64\">\n  <PPolyData GhostLevel=\"0\">\n    <PPointData>\n";
    for (const Array& a : headers)
      p << "      <PDataArray type=\"" << a.type << "\" Name=\"" << xml_escape(a.name)
        << "\" NumberOfComponents=\"" << a.ncomp << "\"/>\n";
    p << "    </PPointData>\n    <PPoints>\n      <PDataArray type=\"" << points_type
      << "\" Name=\"Points\" NumberOfComponents=\"3\"/>\n    </PPoints>\n";
    for (int r = 0; r < comm.size(); ++r)
      p << "    <Piece Source=\"" << xml_escape(stem + "/" + base + "_" + rank_name(r) + ".vtp")
        << "\"/>\n";
    p << "  </PPolyData>\n</VTKFile>\n";
    write_file_atomic(dir + stem + ".pvtp", p.str());

    const std::string pvd = dir + base + ".pvd";
    std::map<std::string, std::string> entries = read_pvd(pvd);
    entries[stem + ".pvtp"] = number_text(time);
    // Sorted by time, then by file name (the step), as ParaView lists them.
    std::vector<std::pair<double, std::string>> sorted;
    for (const auto& e : entries)
      sorted.emplace_back(std::strtod(e.second.c_str(), nullptr), e.first);
    std::sort(sorted.begin(), sorted.end());
    std::ostringstream d;
    d << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\""
      << byte_order() << "\">\n  <Collection>\n";
    for (const auto& e : sorted)
      d << "    <DataSet timestep=\"" << entries[e.second] << "\" group=\"\" part=\"0\" file=\""
        << xml_escape(e.second) << "\"/>\n";
    d << "  </Collection>\n</VTKFile>\n";
    write_file_atomic(pvd, d.str());
  });
}

}  // namespace pvec::impl::io
