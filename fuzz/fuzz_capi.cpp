// Longer than 500 lines because its shadow model predicts every call it makes, in one place.
// libFuzzer target for the C ABI. Each input is decoded into a sequence of calls on up to
// three vectors (schema building, create/destroy, append/remove/resize/reserve/shrink,
// transfers, direct writes to both mirrors, layout queries, single-rank map and ghost_get /
// ghost_put, and calls with bad arguments). A shadow model predicts every result: sizes,
// the capacity rules (multiple of 64, >= 64, geometric on append, exact on reserve/resize,
// never shrinking except in shrink_to_fit), the generation, and the value of every element
// of both mirrors, traced through a per-particle source id, and which mirror pvec holds for
// current (every PVEC_ERROR_STALE_MIRROR predicted). After each step the vectors are
// compared with the model; at the end of each input every byte pvec allocated must be back.
// Any disagreement aborts with a message, which libFuzzer reports as a crash.
//
// Build: fuzz/build.sh (clang++ -fsanitize=fuzzer,address,undefined, library sources
// compiled in, CUDA off, MPI on; one rank without mpirun).
#include <pvec.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

// ---- Failure reporting --------------------------------------------------------------------

[[noreturn]] void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "fuzz_capi: invariant violated: ");
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, " (last error: \"%s\")\n", pvec_last_error());
  va_end(ap);
  // SIGILL, not abort(): Open MPI installs handlers for SIGABRT/SIGSEGV that would print
  // their own report instead of libFuzzer's (which saves the input).
  __builtin_trap();
}

// FUZZ_CAPI_TRACE=1 prints each step (to replay a crash file by eye).
const bool g_trace = std::getenv("FUZZ_CAPI_TRACE") != nullptr;
void trace(const char* fmt, ...) {
  if (!g_trace) return;
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
}

void expect(pvec_status got, pvec_status want, const char* what) {
  if (got != want)
    die("%s returned %d (%s), expected %d (%s)", what, got, pvec_status_string(got), want,
        pvec_status_string(want));
  if (got != PVEC_SUCCESS && pvec_last_error()[0] == '\0') die("%s failed without a message", what);
}

// ---- Input decoding -----------------------------------------------------------------------

struct Input {
  const uint8_t* p;
  size_t n;
  size_t at = 0;
  bool empty() const { return at >= n; }
  uint8_t u8() { return at < n ? p[at++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  // A count in [0, max], small values much more likely.
  int64_t count(int64_t max) {
    const uint8_t b = u8();
    int64_t v = (b & 0x80) ? u16() : (b & 0x7f);
    return v > max ? v % (max + 1) : v;
  }
  bool flag() { return (u8() & 1) != 0; }
  // The last byte read (its other bits choose variants without changing the decoding).
  uint8_t last() const { return at > 0 && at <= n ? p[at - 1] : 0; }
};

// ---- Model ----------------------------------------------------------------------------------

int64_t round64(int64_t n) { return std::max<int64_t>(64, (n + 63) / 64 * 64); }

struct Prop {
  pvec_dtype dtype;
  int64_t ncomp;
};

// Value of component c of column k (k >= 1; column 1 is the "id" property) for a particle
// whose values come from source id s; 0 is the zero-initialised particle. Values stay below
// 2^24, so they are exact in every dtype.
double value_of(int k, int64_t s, int64_t c) {
  if (s == 0) return 0;
  if (k == 1) return static_cast<double>(s);
  return static_cast<double>((s * 131 + k * 17 + c * 7) % 1000003 + 1);
}

double read_elem(const void* base, pvec_dtype t, int64_t idx) {
  switch (t) {
    case PVEC_FLOAT32:
      return static_cast<const float*>(base)[idx];
    case PVEC_FLOAT64:
      return static_cast<const double*>(base)[idx];
    case PVEC_INT32:
      return static_cast<const int32_t*>(base)[idx];
    case PVEC_INT64:
      return static_cast<double>(static_cast<const int64_t*>(base)[idx]);
    case PVEC_UINT32:
      return static_cast<const uint32_t*>(base)[idx];
    default:
      return static_cast<double>(static_cast<const uint64_t*>(base)[idx]);
  }
}

void write_elem(void* base, pvec_dtype t, int64_t idx, double v) {
  switch (t) {
    case PVEC_FLOAT32:
      static_cast<float*>(base)[idx] = static_cast<float>(v);
      break;
    case PVEC_FLOAT64:
      static_cast<double*>(base)[idx] = v;
      break;
    case PVEC_INT32:
      static_cast<int32_t*>(base)[idx] = static_cast<int32_t>(v);
      break;
    case PVEC_INT64:
      static_cast<int64_t*>(base)[idx] = static_cast<int64_t>(v);
      break;
    case PVEC_UINT32:
      static_cast<uint32_t*>(base)[idx] = static_cast<uint32_t>(v);
      break;
    default:
      static_cast<uint64_t*>(base)[idx] = static_cast<uint64_t>(v);
      break;
  }
}

// What one mirror holds for one particle: the source id of each property column (-1:
// unspecified), and the positions (known or not).
struct Rec {
  std::vector<int64_t> src;  // index k-1 for column k >= 1
  std::array<double, PVEC_MAX_DIM> pos{};
  bool pos_known = true;
};

struct Model {
  pvec_vector_t h = nullptr;
  int dim = 3;
  pvec_dtype pos_dtype = PVEC_FLOAT64;
  double lo[PVEC_MAX_DIM] = {0, 0, 0, 0};
  double hi[PVEC_MAX_DIM] = {1, 1, 1, 1};
  bool periodic[PVEC_MAX_DIM] = {false, false, false, false};
  double gw = 0;
  std::vector<Prop> props;  // props[0] is "id" (int64 scalar)
  int64_t n = 0, ng = 0, cap = 64;
  uint64_t gen = 0;
  std::vector<Rec> host, dev;      // n + ng records each
  int plan_side = -1;              // side (0 host, 1 device) of a valid ghost plan, -1 none
  std::vector<int64_t> ghost_src;  // local index each ghost of the plan copies
  bool positions_moved = false;    // positions written since the plan was made
  // Shadow of pvec's mirror coherence (docs/coherence.md): per column (0 positions, k property
  // k-1), per row set (0 local, 1 ghost), per mirror (0 host, 1 device) the version of the
  // last write pvec knows of (its own operations and declared writes). A mirror is older where
  // its version is below the other's; operations reading older rows are refused.
  std::vector<std::array<std::array<uint64_t, 2>, 2>> ver;
  uint64_t clock = 0;
  // Per mirror: the version of its local positions when its ghosts last received theirs
  // (PVEC_GHOST_SKIP_POSITIONS is refused once they differ).
  uint64_t pos_sent[2] = {0, 0};
  int64_t next_id = 1;

  int columns() const { return static_cast<int>(props.size()); }  // property columns
  Rec zero_rec() const {
    Rec r;
    r.src.assign(props.size(), 0);
    return r;
  }
  void forget_plan() { plan_side = -1; }
  void forget_ghost_versions() {
    for (auto& c : ver) c[1] = {};
  }
  void drop_ghosts() {
    ng = 0;
    host.resize(n);
    dev.resize(n);
    forget_ghost_versions();
  }
  // pvec wrote `sets` (bit 0 local, bit 1 ghost) of cols on one mirror.
  void wrote(int side, const std::vector<int>& cols, unsigned sets) {
    ++clock;
    for (int c : cols)
      for (int set = 0; set < 2; ++set)
        if (sets & (1u << set)) ver[c][set][side] = clock;
  }
  // Whether one of cols is older on `side` in `sets` (ghost rows only where there are ghosts).
  bool stale(int side, const std::vector<int>& cols, unsigned sets) const {
    if (ng == 0) sets &= 1u;
    for (int c : cols)
      for (int set = 0; set < 2; ++set)
        if ((sets & (1u << set)) && ver[c][set][side] < ver[c][set][1 - side]) return true;
    return false;
  }
  double L(int d) const { return hi[d] - lo[d]; }
  // Position of a fresh particle with id s: a point of a 2^16 grid of the box (exact also
  // in float32 for the boxes used here).
  double fresh_pos(int64_t s, int d) const {
    const uint64_t k =
        (static_cast<uint64_t>(s) * 2654435761u + static_cast<uint64_t>(d) * 40503u) & 0xffffu;
    return lo[d] + L(d) * static_cast<double>(k) / 65536.0;
  }
  // The position as stored in the vector's dtype.
  double stored(double x) const {
    return pos_dtype == PVEC_FLOAT32 ? static_cast<double>(static_cast<float>(x)) : x;
  }
  bool bad(const Rec& r) const {  // map would refuse it: outside non-periodic, or not finite
    for (int d = 0; d < dim; ++d) {
      const double x = r.pos[d];
      if (!std::isfinite(x)) return true;
      if (!periodic[d] && (x < lo[d] || x > hi[d])) return true;
    }
    return false;
  }
};

// ---- Reading a vector back and comparing with the model ----------------------------------

struct Columns {
  pvec_layout l[1 + 16];  // [0] positions, [k] property k-1
};

Columns layouts(const Model& m) {
  Columns c;
  for (int k = 0; k <= m.columns(); ++k) {
    c.l[k] = PVEC_LAYOUT_INIT;
    expect(pvec_vector_get_layout(m.h, k == 0 ? PVEC_POS : k - 1, &c.l[k]), PVEC_SUCCESS,
           "layout_get");
  }
  return c;
}

// Calls that may reallocate more than once (ghost_get, sort) bump the generation at least to
// the model's count: take the library's, which must not be below it.
void adopt_generation(Model& m, const char* what) {
  uint64_t gen = 0;
  expect(pvec_vector_get_generation(m.h, &gen), PVEC_SUCCESS, "generation");
  if (gen < m.gen)
    die("%s: generation %llu, expected at least %llu", what, (unsigned long long)gen,
        (unsigned long long)m.gen);
  m.gen = gen;
}

void verify(const Model& m, const char* after) {
  int64_t n = -1, ng = -1, cap = -1;
  uint64_t gen = 0;
  expect(pvec_vector_get_size(m.h, &n), PVEC_SUCCESS, "size");
  expect(pvec_vector_get_ghost_size(m.h, &ng), PVEC_SUCCESS, "ghost_size");
  expect(pvec_vector_get_capacity(m.h, &cap), PVEC_SUCCESS, "capacity");
  expect(pvec_vector_get_generation(m.h, &gen), PVEC_SUCCESS, "generation");
  if (n != m.n || ng != m.ng)
    die("after %s: sizes %lld+%lld, model %lld+%lld", after, (long long)n, (long long)ng,
        (long long)m.n, (long long)m.ng);
  if (cap != m.cap)
    die("after %s: capacity %lld, model %lld", after, (long long)cap, (long long)m.cap);
  if (cap < 64 || cap % 64 != 0 || cap < n + ng)
    die("after %s: bad capacity %lld", after, (long long)cap);
  if (gen != m.gen)
    die("after %s: generation %llu, model %llu", after, (unsigned long long)gen,
        (unsigned long long)m.gen);
  const Columns c = layouts(m);
  for (int k = 0; k <= m.columns(); ++k) {
    const pvec_layout& l = c.l[k];
    const int64_t ncomp = k == 0 ? m.dim : m.props[k - 1].ncomp;
    const pvec_dtype dt = k == 0 ? m.pos_dtype : m.props[k - 1].dtype;
    if (l.capacity != cap || l.stride_elems != cap || l.n_local != n || l.n_ghost != ng ||
        l.generation != gen || l.ncomp != ncomp || l.dtype != dt ||
        l.elem_size != pvec_dtype_size(dt) ||
        l.stride_bytes != cap * static_cast<int64_t>(l.elem_size))
      die("after %s: layout of column %d disagrees with the model", after, k);
    if (reinterpret_cast<uintptr_t>(l.host_ptr) % 256 != 0 ||
        reinterpret_cast<uintptr_t>(l.device_ptr) % 256 != 0 || l.host_ptr == l.device_ptr)
      die("after %s: mirrors of column %d not 256-byte aligned or not distinct", after, k);
    if (pvec_host_ptr(m.h, k == 0 ? PVEC_POS : k - 1) != l.host_ptr ||
        pvec_device_ptr(m.h, k == 0 ? PVEC_POS : k - 1) != l.device_ptr)
      die("after %s: pointer getters disagree with the layout", after);
  }
  for (int side = 0; side < 2; ++side) {
    const std::vector<Rec>& recs = side ? m.dev : m.host;
    for (int64_t i = 0; i < n + ng; ++i) {
      const Rec& r = recs[i];
      for (int k = 1; k <= m.columns(); ++k) {
        const int64_t s = r.src[k - 1];
        if (s < 0) continue;
        const pvec_layout& l = c.l[k];
        const void* base = side ? l.device_ptr : l.host_ptr;
        for (int64_t q = 0; q < l.ncomp; ++q) {
          const double got = read_elem(base, l.dtype, q * cap + i);
          if (got != value_of(k, s, q))
            die("after %s: %s mirror, particle %lld, column %d, component %lld: %g, model %g "
                "(source %lld)",
                after, side ? "device" : "host", (long long)i, k, (long long)q, got,
                value_of(k, s, q), (long long)s);
        }
      }
      if (r.pos_known) {
        const void* base = side ? c.l[0].device_ptr : c.l[0].host_ptr;
        for (int d = 0; d < m.dim; ++d) {
          const double got = read_elem(base, m.pos_dtype, d * cap + i);
          const double want = r.pos[d];
          if (!(got == want || (std::isnan(got) && std::isnan(want))))
            die("after %s: %s mirror, particle %lld, coordinate %d: %.17g, model %.17g", after,
                side ? "device" : "host", (long long)i, d, got, want);
        }
      }
    }
  }
}

// Writes the values of source s (all columns, and a fresh position) to particle i of one
// mirror.
void write_particle(Model& m, int side, int64_t i, int64_t s, bool with_pos) {
  const Columns c = layouts(m);
  Rec& r = side ? m.dev[i] : m.host[i];
  for (int k = 1; k <= m.columns(); ++k) {
    void* base = side ? c.l[k].device_ptr : c.l[k].host_ptr;
    for (int64_t q = 0; q < c.l[k].ncomp; ++q)
      write_elem(base, c.l[k].dtype, q * m.cap + i, value_of(k, s, q));
    r.src[k - 1] = s;
  }
  if (with_pos) {
    void* base = side ? c.l[0].device_ptr : c.l[0].host_ptr;
    for (int d = 0; d < m.dim; ++d) {
      const double x = m.stored(m.fresh_pos(s, d));
      write_elem(base, m.pos_dtype, d * m.cap + i, x);
      r.pos[d] = x;
    }
    r.pos_known = true;
    m.positions_moved = true;
  }
}

// Gives every local host particle a distinct id and an in-box position, then copies all to
// the device mirror: the starting point of map and ghost_get.
void label_all(Model& m) {
  std::vector<int64_t> seen;
  for (int64_t i = 0; i < m.n; ++i) {
    const Rec& r = m.host[i];
    const bool fine =
        r.src[0] > 0 && r.pos_known && !std::binary_search(seen.begin(), seen.end(), r.src[0]);
    if (!fine) write_particle(m, 0, i, m.next_id++, true);
    seen.insert(std::upper_bound(seen.begin(), seen.end(), m.host[i].src[0]), m.host[i].src[0]);
  }
}

std::vector<int> all_columns(const Model& m) {
  std::vector<int> cols;
  for (int k = 0; k <= m.columns(); ++k) cols.push_back(k);
  return cols;
}

// What a transfer of cols to one mirror returns: refused when it would copy older local rows
// over newer ones.
pvec_status transfer_status(const Model& m, bool to_device, const std::vector<int>& cols) {
  return m.stale(to_device ? 0 : 1, cols, 1u) ? PVEC_ERROR_STALE_MIRROR : PVEC_SUCCESS;
}

// A transfer pvec accepted: every row of cols, except the ghost rows of a column that are older
// on the source (the destination keeps its newer ghosts); the destination takes the source's
// versions of what was copied.
void copy_mirror(Model& m, bool to_device, const std::vector<int>& cols) {
  const int to = to_device ? 1 : 0, from = 1 - to;
  std::vector<Rec>& dst = to_device ? m.dev : m.host;
  const std::vector<Rec>& src = to_device ? m.host : m.dev;
  if (std::find(cols.begin(), cols.end(), 0) != cols.end()) m.positions_moved = true;
  for (int k : cols) {
    const bool ghosts = !(m.ng > 0 && m.ver[k][1][from] < m.ver[k][1][to]);
    for (int set = 0; set < (ghosts ? 2 : 1); ++set) m.ver[k][set][to] = m.ver[k][set][from];
    for (int64_t i = 0; i < (ghosts ? m.n + m.ng : m.n); ++i) {
      if (k == 0) {
        dst[i].pos = src[i].pos;
        dst[i].pos_known = src[i].pos_known;
      } else {
        dst[i].src[k - 1] = src[i].src[k - 1];
      }
    }
  }
}

// host_to_device of everything before a device-side operation; false when pvec refused it
// (the device mirror holds newer local rows), which the model checked.
bool all_to_device(Model& m) {
  const std::vector<int> cols = all_columns(m);
  const pvec_status want = transfer_status(m, true, cols);
  expect(pvec_host_to_device(m.h, nullptr, 0), want, "host_to_device");
  if (want != PVEC_SUCCESS) {
    verify(m, "refused host_to_device");
    return false;
  }
  copy_mirror(m, true, cols);
  return true;
}

// ---- The operations -----------------------------------------------------------------------

// The split-phase forms (pvec_ghost_get_begin / _end, pvec_ghost_put_begin / _end) return what
// the blocking calls return; while one is in flight a call that changes the particles and the
// other kind's end are refused with STATE and change nothing; the end completes it.
void in_flight_refusals(Model& m, bool get) {
  int64_t first = -1, n = -1;
  expect(pvec_vector_append(m.h, 1, &first), PVEC_ERROR_STATE, "append in flight");
  expect(pvec_map(m.h, 0, nullptr), PVEC_ERROR_STATE, "map in flight");
  expect(get ? pvec_ghost_put_end(m.h) : pvec_ghost_get_end(m.h), PVEC_ERROR_STATE,
         "the other end in flight");
  expect(pvec_vector_get_size(m.h, &n), PVEC_SUCCESS, "size in flight");
  if (n != m.n) die("size %lld in flight, model %lld", (long long)n, (long long)m.n);
}

// A begin's status (begin: its call), then the checks in flight and its end (get: a ghost_get).
template <class Begin>
pvec_status split_call(Model& m, bool get, Begin begin) {
  const pvec_status s = begin();
  const auto end = [&] { return get ? pvec_ghost_get_end(m.h) : pvec_ghost_put_end(m.h); };
  if (s != PVEC_SUCCESS) {  // nothing in flight
    expect(end(), PVEC_ERROR_STATE, "the end after a refused begin");
    return s;
  }
  in_flight_refusals(m, get);
  expect(end(), PVEC_SUCCESS, get ? "ghost_get_end" : "ghost_put_end");
  return s;
}

pvec_status ghost_get_call(Model& m, const int* list, int np, unsigned flags, bool split) {
  if (!split) return pvec_ghost_get(m.h, list, np, flags);
  return split_call(m, true, [&] { return pvec_ghost_get_begin(m.h, list, np, flags); });
}

pvec_status ghost_put_call(Model& m, const int* list, int np, pvec_reduce_op op, unsigned flags,
                           bool split) {
  if (!split) return pvec_ghost_put(m.h, list, np, op, flags);
  return split_call(m, false, [&] { return pvec_ghost_put_begin(m.h, list, np, op, flags); });
}

// Built with -DFUZZ_CAPI_SKIP_KNOWN=1, the fuzzer steps around the faults it found that are
// reported but not fixed yet (docs/reliability.md lists them), to look for others.
#ifdef FUZZ_CAPI_SKIP_KNOWN
constexpr bool kSkipKnown = true;
#else
constexpr bool kSkipKnown = false;
#endif

constexpr int kSlots = 3;
// Sizes stay small enough for thousands of executions per second, and large enough for
// several geometric growth steps (64 -> 128 -> 256 -> 512).
constexpr int64_t kMaxParticles = 600;

struct World {
  Model slot[kSlots];
  Input in;
};

void destroy(Model& m) {
  if (!m.h) return;
  expect(pvec_vector_destroy(m.h), PVEC_SUCCESS, "vector_destroy");
  expect(pvec_vector_destroy(m.h), PVEC_ERROR_INVALID_HANDLE, "vector_destroy twice");
  m = Model{};
}

void op_create(Model& m, Input& in) {
  destroy(m);
  pvec_schema_t s = nullptr;
  expect(pvec_schema_create(&s), PVEC_SUCCESS, "schema_create");
  expect(pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr), PVEC_SUCCESS, "add id");
  m.props.push_back({PVEC_INT64, 1});
  const int extra = in.u8() % 5;
  for (int p = 0; p < extra; ++p) {
    const pvec_dtype dt = static_cast<pvec_dtype>(1 + in.u8() % 6);
    const int rank = in.u8() % 3;
    const int64_t ext[2] = {1 + in.u8() % 3, 1 + in.u8() % 3};
    const std::string name = "p" + std::to_string(p);
    int index = -1;
    expect(pvec_schema_add(s, name.c_str(), dt, rank, ext, &index), PVEC_SUCCESS, "schema_add");
    if (index != p + 1) die("schema_add gave index %d, expected %d", index, p + 1);
    // Re-adding the same name must fail and leave the schema as it was.
    expect(pvec_schema_add(s, name.c_str(), dt, rank, ext, &index), PVEC_ERROR_INVALID_ARGUMENT,
           "schema_add duplicate");
    m.props.push_back({dt, rank == 0 ? 1 : rank == 1 ? ext[0] : ext[0] * ext[1]});
  }
  int count = -1;
  expect(pvec_schema_get_count(s, &count), PVEC_SUCCESS, "schema_count");
  if (count != m.columns()) die("schema_count %d, expected %d", count, m.columns());

  pvec_vector_desc d;
  expect(pvec_vector_desc_init(&d), PVEC_SUCCESS, "desc_init");
  const uint8_t shape = in.u8();
  m.dim = 1 + shape % 4;
  m.pos_dtype = (shape & 4) ? PVEC_FLOAT32 : PVEC_FLOAT64;
  static const double kLo[3] = {0, -1, 0.5}, kLen[3] = {1, 2, 0.25};
  static const double kWidth[4] = {0, 0.05, 0.125, 0.3};
  const uint8_t box = in.u8();
  for (int k = 0; k < m.dim; ++k) {
    m.lo[k] = kLo[(box + k) % 3];
    m.hi[k] = m.lo[k] + kLen[(box / 3 + k) % 3];
    m.periodic[k] = ((shape >> (3 + k)) & 1) != 0;
    d.domain_lo[k] = m.lo[k];
    d.domain_hi[k] = m.hi[k];
    d.boundary[k] = m.periodic[k] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  d.dim = m.dim;
  d.pos_dtype = m.pos_dtype;
  double minL = 1e9;
  for (int k = 0; k < m.dim; ++k) minL = std::min(minL, m.L(k));
  m.gw = kWidth[in.u8() % 4] * minL;
  d.ghost_width = m.gw;
  m.n = in.count(kMaxParticles / 2);
  d.n_particles = m.n;
  d.placement = in.flag() ? PVEC_PLACE_LOCAL : PVEC_PLACE_EVEN;
  d.backend = PVEC_BACKEND_HOST;
  d.host_memory = in.flag() ? PVEC_HOST_PAGEABLE : PVEC_HOST_PINNED;
  expect(pvec_vector_create(&d, s, &m.h), PVEC_SUCCESS, "vector_create");
  expect(pvec_schema_destroy(s), PVEC_SUCCESS, "schema_destroy");  // the vector keeps a copy
  m.cap = round64(m.n);
  m.gen = 0;
  m.ng = 0;
  Rec z = m.zero_rec();
  m.host.assign(m.n, z);
  m.dev.assign(m.n, z);
  m.ver.assign(static_cast<size_t>(m.columns() + 1), {});
  pvec_backend backend = PVEC_BACKEND_AUTO;
  expect(pvec_vector_get_backend(m.h, &backend), PVEC_SUCCESS, "vector_backend");
  if (backend != PVEC_BACKEND_HOST) die("backend %d, expected HOST", backend);
  verify(m, "create");
}

void op_append(Model& m, Input& in) {
  const int64_t k = in.count(std::max<int64_t>(0, kMaxParticles - m.n));
  int64_t first = -1;
  expect(pvec_vector_append(m.h, k, &first), PVEC_SUCCESS, "append");
  if (first != m.n) die("append: first %lld, expected %lld", (long long)first, (long long)m.n);
  m.drop_ghosts();
  m.forget_plan();
  if (m.n + k > m.cap) {
    m.cap = round64(std::max(2 * m.cap, m.n + k));
    ++m.gen;
  }
  m.n += k;
  m.host.resize(m.n, m.zero_rec());
  m.dev.resize(m.n, m.zero_rec());
  verify(m, "append");
  // Give some of the new particles values on the host.
  if (in.flag())
    for (int64_t i = first; i < m.n; ++i) write_particle(m, 0, i, m.next_id++, true);
}

void op_remove(Model& m, Input& in) {
  const int64_t want = m.n == 0 ? 0 : in.count(std::min<int64_t>(m.n, 60));
  std::vector<int64_t> idx;
  std::vector<char> taken(m.n, 0);
  for (int64_t j = 0; j < want; ++j) {
    int64_t i = static_cast<int64_t>(in.u16()) % m.n;
    while (taken[i]) i = (i + 1) % m.n;
    taken[i] = 1;
    idx.push_back(i);
  }
  expect(pvec_vector_remove(m.h, idx.data(), static_cast<int64_t>(idx.size())), PVEC_SUCCESS,
         "remove");
  m.drop_ghosts();
  m.forget_plan();
  if (!idx.empty()) ++m.gen;
  std::vector<Rec> h, d;
  for (int64_t i = 0; i < m.n; ++i)
    if (!taken[i]) {
      h.push_back(m.host[i]);
      d.push_back(m.dev[i]);
    }
  m.host = h;
  m.dev = d;
  m.n = static_cast<int64_t>(h.size());
  verify(m, "remove");
}

void op_resize(Model& m, Input& in) {
  const int64_t k = in.count(kMaxParticles);
  expect(pvec_vector_resize(m.h, k), PVEC_SUCCESS, "resize");
  m.drop_ghosts();
  m.forget_plan();
  if (round64(k) > m.cap) {
    m.cap = round64(k);
    ++m.gen;
  }
  m.n = k;
  m.host.resize(k, m.zero_rec());
  m.dev.resize(k, m.zero_rec());
  verify(m, "resize");
}

void op_reserve(Model& m, Input& in) {
  const int64_t k = in.count(2 * kMaxParticles);
  expect(pvec_vector_reserve(m.h, k), PVEC_SUCCESS, "reserve");
  m.drop_ghosts();
  m.forget_plan();
  if (round64(k) > m.cap) {
    m.cap = round64(k);
    ++m.gen;
  }
  verify(m, "reserve");
}

void op_shrink(Model& m) {
  expect(pvec_vector_shrink_to_fit(m.h), PVEC_SUCCESS, "shrink_to_fit");
  m.drop_ghosts();
  m.forget_plan();
  if (round64(m.n) < m.cap) {
    m.cap = round64(m.n);
    ++m.gen;
  }
  verify(m, "shrink_to_fit");
}

// A random valid column list for a transfer (PVEC_POS allowed), or NULL for all.
std::vector<int> pick_columns(const Model& m, Input& in, bool allow_pos, bool* all) {
  *all = in.flag();
  std::vector<int> cols;
  if (*all) {
    for (int k = allow_pos ? 0 : 1; k <= m.columns(); ++k) cols.push_back(k);
    return cols;
  }
  const uint8_t mask = in.u8();
  for (int k = allow_pos ? 0 : 1; k <= m.columns(); ++k)
    if ((mask >> k) & 1) cols.push_back(k);
  return cols;
}

std::vector<int> to_props(const std::vector<int>& cols) {
  std::vector<int> p;
  for (int k : cols) p.push_back(k == 0 ? PVEC_POS : k - 1);
  return p;
}

// The list argument for props: NULL means "all" to pvec, so an empty list must not be NULL
// (an empty std::vector's data() may be).
const int* list_arg(bool all, const std::vector<int>& props) {
  static const int kEmpty[1] = {0};
  if (all) return nullptr;
  return props.empty() ? kEmpty : props.data();
}

void op_transfer(Model& m, Input& in) {
  const bool to_device = in.flag();
  const bool async = in.flag();
  bool all = false;
  const std::vector<int> cols = pick_columns(m, in, true, &all);
  const std::vector<int> props = to_props(cols);
  const int* list = list_arg(all, props);
  const int np = all ? 0 : static_cast<int>(props.size());
  if (in.u8() % 4 == 0) {
    // pvec_vector_sync: copies, of each column and row set, only what is older on the
    // destination; never refused.
    expect(pvec_vector_sync(m.h, list, np, to_device ? PVEC_ON_DEVICE : 0u), PVEC_SUCCESS, "sync");
    const int to = to_device ? 1 : 0;
    std::vector<Rec>& dst = to_device ? m.dev : m.host;
    const std::vector<Rec>& src = to_device ? m.host : m.dev;
    for (int k : cols)
      for (int set = 0; set < 2; ++set) {
        if (m.ver[k][set][to] >= m.ver[k][set][1 - to]) continue;
        m.ver[k][set][to] = m.ver[k][set][1 - to];
        if (k == 0) m.positions_moved = true;
        for (int64_t i = set ? m.n : 0; i < (set ? m.n + m.ng : m.n); ++i) {
          if (k == 0) {
            dst[i].pos = src[i].pos;
            dst[i].pos_known = src[i].pos_known;
          } else {
            dst[i].src[k - 1] = src[i].src[k - 1];
          }
        }
      }
    verify(m, "sync");
    return;
  }
  const pvec_status want = transfer_status(m, to_device, cols);
  if (async) {
    const pvec_status s = to_device ? pvec_host_to_device_async(m.h, list, np, nullptr)
                                    : pvec_device_to_host_async(m.h, list, np, nullptr);
    expect(s, want, "transfer async");
    expect(pvec_vector_synchronize(m.h), PVEC_SUCCESS, "synchronize");
  } else {
    const pvec_status s =
        to_device ? pvec_host_to_device(m.h, list, np) : pvec_device_to_host(m.h, list, np);
    expect(s, want, "transfer");
  }
  if (want == PVEC_SUCCESS) copy_mirror(m, to_device, cols);
  verify(m, want == PVEC_SUCCESS ? "transfer" : "refused transfer");
}

// Writes one particle (a local or a ghost row) on one mirror, as a user kernel would; sometimes
// declared with pvec_vector_mark_modified (its row set, or both), sometimes not (pvec then
// knows nothing of it, as before declarations existed).
void op_write(Model& m, Input& in) {
  if (m.n + m.ng == 0) return;
  const int side = in.flag();
  const int64_t i = in.u16() % (m.n + m.ng);
  const bool with_pos = in.flag();
  write_particle(m, side, i, m.next_id++, with_pos);
  const uint8_t how = in.u8();
  if (how & 1) {
    std::vector<int> cols;
    for (int k = with_pos ? 0 : 1; k <= m.columns(); ++k) cols.push_back(k);
    const std::vector<int> props = to_props(cols);
    const unsigned set = (how & 2) ? (i < m.n ? 1u : 2u) : 3u;
    const unsigned rows = set == 1u ? PVEC_ROWS_LOCAL : set == 2u ? PVEC_ROWS_GHOST : 0u;
    const unsigned flags = (side ? PVEC_ON_DEVICE : 0u) | rows;
    expect(pvec_vector_mark_modified(m.h, props.data(), static_cast<int>(props.size()), flags),
           PVEC_SUCCESS, "mark_modified");
    m.wrote(side, cols, set);
  }
  verify(m, "write");
}

// Moves particle i out of the box: by a whole period along a periodic dimension, beyond
// the boundary along a non-periodic one, or to NaN.
void op_displace(Model& m, Input& in) {
  if (m.n == 0) return;
  const int64_t i = in.u16() % m.n;
  const int d = in.u8() % m.dim;
  const uint8_t how = in.u8();
  Rec& r = m.host[i];
  if (!r.pos_known) return;
  double x;
  if (how % 5 == 0)
    x = std::nan("");
  else if (m.periodic[d])
    x = r.pos[d] + ((how & 2) ? m.L(d) : -m.L(d));
  else
    x = (how & 2) ? m.hi[d] + 0.25 * m.L(d) : m.lo[d] - 0.25 * m.L(d);
  x = m.stored(x);
  const pvec_layout l = layouts(m).l[0];
  write_elem(l.host_ptr, m.pos_dtype, d * m.cap + i, x);
  r.pos[d] = x;
  m.positions_moved = true;
  verify(m, "displace");
}

// Periodic wrap as map does it (in double, then stored; a value that rounds up to hi
// becomes lo).
double wrapped(const Model& m, int d, double x) {
  if (!m.periodic[d]) return x;
  const double L = m.L(d);
  double w = x;
  double y = x - m.lo[d];
  if (!(y >= 0 && y < L)) {
    y = y - std::floor(y / L) * L;
    if (y >= L) y -= L;
    if (y < 0) y = 0;
    w = m.lo[d] + y;
  }
  double t = m.stored(w);
  if (t >= m.hi[d]) t = m.stored(m.lo[d]);
  return t;
}

void op_map(Model& m, Input& in) {
  const int side = in.flag();
  const bool remove_outside = in.flag();
  if (in.flag()) label_all(m);
  // The device mirror must hold what the host has (refused when the device's is newer).
  if (side == 1 && !all_to_device(m)) return;
  std::vector<Rec>& mine = side ? m.dev : m.host;
  // Every local particle needs a distinct id and a known position to be followed.
  std::map<int64_t, int64_t> by_id;
  for (int64_t i = 0; i < m.n; ++i) {
    if (mine[i].src[0] <= 0 || !mine[i].pos_known || by_id.count(mine[i].src[0])) return;
    by_id[mine[i].src[0]] = i;
  }
  int64_t n_bad = 0;
  for (int64_t i = 0; i < m.n; ++i) n_bad += m.bad(mine[i]);
  unsigned flags = (side ? PVEC_ON_DEVICE : 0u) | (remove_outside ? PVEC_MAP_REMOVE_OUTSIDE : 0u);
  int64_t removed = -1;
  const pvec_status s = pvec_map(m.h, flags, &removed);
  if (m.stale(side, all_columns(m), 1u)) {
    expect(s, PVEC_ERROR_STALE_MIRROR, "map of older rows");
    verify(m, "refused map");
    return;
  }
  if (n_bad > 0 && !remove_outside) {
    expect(s, PVEC_ERROR_PARTICLES_OUTSIDE, "map with particles outside");
    verify(m, "refused map");
    return;
  }
  expect(s, PVEC_SUCCESS, "map");
  if (removed != n_bad)
    die("map removed %lld, expected %lld", (long long)removed, (long long)n_bad);
  // Read the new order of the side's mirror; every survivor exactly once.
  uint64_t gen = 0;
  expect(pvec_vector_get_generation(m.h, &gen), PVEC_SUCCESS, "generation");
  if (gen < m.gen) die("map moved the generation backwards");
  m.gen = gen;
  m.drop_ghosts();
  m.forget_plan();
  m.wrote(side, all_columns(m), 1u);
  m.n -= n_bad;
  const pvec_layout lid = layouts(m).l[1];
  const void* ids = side ? lid.device_ptr : lid.host_ptr;
  std::vector<Rec> next;
  std::vector<char> seen(mine.size(), 0);
  for (int64_t i = 0; i < m.n; ++i) {
    const int64_t id = static_cast<int64_t>(read_elem(ids, PVEC_INT64, i));
    auto it = by_id.find(id);
    if (it == by_id.end() || seen[it->second] || m.bad(mine[it->second]))
      die("map: particle %lld has id %lld, not one survivor exactly once", (long long)i,
          (long long)id);
    seen[it->second] = 1;
    Rec r = mine[it->second];
    for (int d = 0; d < m.dim; ++d) r.pos[d] = wrapped(m, d, r.pos[d]);
    next.push_back(r);
  }
  mine = next;
  std::vector<Rec>& other = side ? m.host : m.dev;
  Rec unknown = m.zero_rec();
  std::fill(unknown.src.begin(), unknown.src.end(), -1);
  unknown.pos_known = false;
  other.assign(m.n, unknown);
  verify(m, "map");
}

// Ghost images of one particle as ghost_get makes them on one rank: every combination of
// periodic shifts, not all zero, whose shifted position lies within the ghost width of the
// box (half-open on the high side). Returns the shifts.
std::vector<std::array<int, PVEC_MAX_DIM>> images(const Model& m, const Rec& r) {
  std::vector<std::array<int, PVEC_MAX_DIM>> out;
  std::vector<int> choices[PVEC_MAX_DIM];
  for (int d = 0; d < m.dim; ++d) {
    const double x = r.pos[d];
    // Every shift that can land within the width of the box (pvec keeps |s| <= 127).
    int s_lo = 0, s_hi = 0;
    if (m.periodic[d]) {
      s_lo = static_cast<int>(std::max(-127.0, std::floor((m.lo[d] - m.gw - x) / m.L(d)) - 1));
      s_hi = static_cast<int>(std::min(127.0, std::ceil((m.hi[d] + m.gw - x) / m.L(d)) + 1));
    }
    for (int s = s_lo; s <= s_hi; ++s) {
      const double shift = m.pos_dtype == PVEC_FLOAT32
                               ? static_cast<double>(static_cast<float>(s * m.L(d)))
                               : static_cast<double>(s * m.L(d));
      const double xs = x + shift;
      if (xs >= m.lo[d] - m.gw && xs < m.hi[d] + m.gw) choices[d].push_back(s);
    }
    if (choices[d].empty()) return out;
  }
  std::array<int, PVEC_MAX_DIM> at{};
  std::array<size_t, PVEC_MAX_DIM> k{};
  while (true) {
    bool zero = true;
    for (int d = 0; d < m.dim; ++d) {
      at[d] = choices[d][k[d]];
      zero = zero && at[d] == 0;
    }
    if (!zero) out.push_back(at);
    int d = m.dim - 1;
    while (d >= 0 && k[d] + 1 == choices[d].size()) k[d--] = 0;
    if (d < 0) break;
    ++k[d];
  }
  return out;
}

double shifted(const Model& m, double x, int s, int d) {
  if (s == 0) return x;
  if (m.pos_dtype == PVEC_FLOAT32)
    return static_cast<float>(static_cast<float>(x) + static_cast<float>(s * m.L(d)));
  return x + static_cast<double>(s * m.L(d));
}

void op_ghost_get(Model& m, Input& in) {
  const int side = in.flag();
  const uint8_t mode = in.u8();
  const bool reuse = (mode & 1) != 0;
  const bool skip_pos = reuse && (mode & 2) != 0;
  const bool split = (mode & 4) != 0;  // begin + end instead of the blocking call
  bool all = false;
  std::vector<int> cols = pick_columns(m, in, false, &all);
  // The ids travel always: they are how the ghosts are matched with their sources.
  if (!all && std::find(cols.begin(), cols.end(), 1) == cols.end()) cols.insert(cols.begin(), 1);
  if (!reuse && in.flag()) label_all(m);
  if (!reuse && side == 1 && !all_to_device(m)) return;
  std::vector<Rec>& mine = side ? m.dev : m.host;
  std::map<int64_t, int64_t> by_id;
  for (int64_t i = 0; i < m.n; ++i) {
    if (mine[i].src[0] <= 0 || !mine[i].pos_known || by_id.count(mine[i].src[0])) return;
    // Known fault F6: ghost_get on a NaN coordinate is undefined behaviour in pvec.
    for (int d = 0; d < m.dim; ++d)
      if (kSkipKnown && !std::isfinite(mine[i].pos[d])) return;
    by_id[mine[i].src[0]] = i;
  }
  const std::vector<int> props = to_props(cols);
  const unsigned flags = (side ? PVEC_ON_DEVICE : 0u) | (reuse ? PVEC_GHOST_REUSE_PLAN : 0u) |
                         (skip_pos ? PVEC_GHOST_SKIP_POSITIONS : 0u);
  // What is read: the local rows of the listed columns, and of the positions unless left out.
  std::vector<int> sent = cols;
  if (!skip_pos) sent.push_back(0);
  if (m.stale(side, sent, 1u)) {
    expect(ghost_get_call(m, list_arg(all, props), static_cast<int>(props.size()), flags, split),
           PVEC_ERROR_STALE_MIRROR, "ghost_get of older rows");
    if (!reuse) {  // the previous plan is gone; no ghost row is newer on either mirror
      m.forget_plan();
      m.forget_ghost_versions();
    }
    verify(m, "refused ghost_get");
    return;
  }
  if (reuse && m.plan_side != side) {
    expect(ghost_get_call(m, list_arg(all, props), static_cast<int>(props.size()), flags, split),
           PVEC_ERROR_INVALID_ARGUMENT, "ghost_get reuse without a plan on this side");
    verify(m, "refused ghost_get");
    return;
  }
  // Leaving the positions out after the local positions of this mirror changed (a copy of
  // newer ones, a declared write) is refused on every rank.
  if (skip_pos && m.ver[0][0][side] != m.pos_sent[side]) {
    trace("  ghost_get side %d reuse 1 skip 1: refused, local positions changed\n", side);
    expect(ghost_get_call(m, list_arg(all, props), static_cast<int>(props.size()), flags, split),
           PVEC_ERROR_INVALID_ARGUMENT, "ghost_get skip positions after they changed");
    verify(m, "refused ghost_get");
    return;
  }
  // Replaying after positions moved is the caller's error; with the host backend both
  // sides are host memory and share one plan, whose replay on the other mirror's positions
  // the model does not predict.
  if (reuse && m.positions_moved) return;
  // Expected ghosts: (source, shift) pairs.
  std::multimap<int64_t, std::array<int, PVEC_MAX_DIM>> want;
  for (int64_t i = 0; i < m.n; ++i)
    for (const auto& s : images(m, mine[i])) want.emplace(mine[i].src[0], s);
  const int64_t ng = static_cast<int64_t>(want.size());
  trace("  ghost_get side %d reuse %d skip %d all %d: %lld ghosts expected, %lld before\n", side,
        reuse, skip_pos, all, (long long)ng, (long long)m.ng);
  if (g_trace) {
    trace("  dim %d gw %g periodic %d%d%d%d box", m.dim, m.gw, m.periodic[0], m.periodic[1],
          m.periodic[2], m.periodic[3]);
    for (int d = 0; d < m.dim; ++d) trace(" [%g,%g)", m.lo[d], m.hi[d]);
    trace("\n");
    for (const auto& w : want) {
      const Rec& r = mine[by_id[w.first]];
      trace("  want id %lld shift %d %d %d %d pos %.9g %.9g %.9g %.9g\n", (long long)w.first,
            w.second[0], w.second[1], w.second[2], w.second[3], r.pos[0], r.pos[1], r.pos[2],
            r.pos[3]);
    }
  }
  expect(ghost_get_call(m, list_arg(all, props), static_cast<int>(props.size()), flags, split),
         PVEC_SUCCESS, "ghost_get");
  if (reuse && ng != m.ng)
    die("ghost_get replay: %lld ghosts, before %lld", (long long)ng, (long long)m.ng);
  const int64_t old_ng = m.ng;
  std::vector<Rec> old_ghosts(mine.begin() + m.n, mine.end());
  if (m.n + ng > m.cap) {
    m.cap = round64(std::max(2 * m.cap, m.n + ng));
    ++m.gen;
  }
  adopt_generation(m, "ghost_get");
  m.ng = ng;
  m.plan_side = side;
  m.positions_moved = false;
  if (!reuse) m.forget_ghost_versions();
  m.wrote(side, sent, 2u);
  if (!skip_pos) m.pos_sent[side] = m.ver[0][0][side];
  // Read the ghosts back and match them with the expected images.
  const Columns c = layouts(m);
  const void* ids = side ? c.l[1].device_ptr : c.l[1].host_ptr;
  const void* pos = side ? c.l[0].device_ptr : c.l[0].host_ptr;
  Rec unknown = m.zero_rec();
  std::fill(unknown.src.begin(), unknown.src.end(), -1);
  unknown.pos_known = false;
  std::vector<Rec> ghosts;
  m.ghost_src.assign(ng, -1);
  for (int64_t g = 0; g < ng; ++g) {
    const int64_t i = m.n + g;
    const int64_t id = static_cast<int64_t>(read_elem(ids, PVEC_INT64, i));
    auto range = want.equal_range(id);
    if (range.first == range.second)
      die("ghost %lld has id %lld: no such image (%s)", (long long)g, (long long)id,
          by_id.count(id) ? "its source has no image left" : "no particle has that id");
    const Rec& src = mine[by_id[id]];
    m.ghost_src[g] = by_id[id];
    trace("  ghost %lld id %lld pos %.9g %.9g %.9g %.9g\n", (long long)g, (long long)id,
          read_elem(pos, m.pos_dtype, i), m.dim > 1 ? read_elem(pos, m.pos_dtype, m.cap + i) : 0.,
          m.dim > 2 ? read_elem(pos, m.pos_dtype, 2 * m.cap + i) : 0.,
          m.dim > 3 ? read_elem(pos, m.pos_dtype, 3 * m.cap + i) : 0.);
    std::array<int, PVEC_MAX_DIM> sh{};
    for (int d = 0; d < m.dim; ++d)
      sh[d] = static_cast<int>(
          std::lround((read_elem(pos, m.pos_dtype, d * m.cap + i) - src.pos[d]) / m.L(d)));
    auto hit = range.first;
    while (hit != range.second && hit->second != sh) ++hit;
    if (hit == range.second)
      die("ghost %lld (id %lld): unexpected periodic shift", (long long)g, (long long)id);
    want.erase(hit);
    Rec r = unknown;
    for (int k : cols) r.src[k - 1] = src.src[k - 1];
    if (skip_pos && g < old_ng) {
      r.pos = old_ghosts[g].pos;
      r.pos_known = old_ghosts[g].pos_known;
    } else {
      for (int d = 0; d < m.dim; ++d) r.pos[d] = shifted(m, src.pos[d], sh[d], d);
      r.pos_known = true;
    }
    ghosts.push_back(r);
  }
  mine.resize(m.n);
  mine.insert(mine.end(), ghosts.begin(), ghosts.end());
  std::vector<Rec>& other = side ? m.host : m.dev;
  other.resize(m.n);
  other.resize(m.n + ng, unknown);
  verify(m, "ghost_get");
}

// pvec_vector_sort with random flags and cell widths (bad ones included). The model cannot predict
// the permutation (that would be the sort itself), so a sort it expects to succeed is
// followed by reading the id column of the sorted mirror back: every local row must hold the
// id of one of the model's local rows on that side, each exactly once; the model then applies
// that permutation to that side (and to the other with PVEC_SORT_BOTH_MIRRORS) and verify()
// checks every column, position and ghost row against it. A second identical sort must move
// nothing.
void op_sort(Model& m, Input& in) {
  const int side = in.flag();
  const uint8_t f = in.u8();
  const unsigned flags = (side ? PVEC_ON_DEVICE : 0u) | ((f & 1) ? PVEC_SORT_MORTON : 0u) |
                         ((f & 2) ? PVEC_SORT_BOTH_MIRRORS : 0u) |
                         ((f & 4) ? PVEC_SORT_HALO_FIRST : 0u) | ((f & 8) ? (1u << 20) : 0u);
  double minL = m.L(0);
  for (int d = 1; d < m.dim; ++d) minL = std::min(minL, m.L(d));
  const double widths[] = {minL / 2, minL / 7,    m.gw > 0 ? m.gw : minL / 3, minL * 3, 0.0,
                           -1.0,     std::nan("")};
  const double w = widths[in.u8() % 7];
  int moved = -1;
  const pvec_status st = pvec_vector_sort(m.h, w, flags, &moved);
  trace("  sort side %d flags 0x%x width %g: status %d, moved %d\n", side, flags, w,
        static_cast<int>(st), moved);
  pvec_status want = PVEC_SUCCESS;
  if (flags & (1u << 20))
    want = PVEC_ERROR_INVALID_ARGUMENT;  // unknown flag
  else if (m.stale(side, all_columns(m), 1u))
    want = PVEC_ERROR_STALE_MIRROR;
  else if (m.dim > 3)
    want = PVEC_ERROR_NOT_SUPPORTED;
  else if (!(w > 0) || !std::isfinite(w))
    want = PVEC_ERROR_INVALID_ARGUMENT;
  else if ((flags & PVEC_SORT_MORTON) && (flags & PVEC_SORT_HALO_FIRST))
    want = PVEC_ERROR_INVALID_ARGUMENT;
  std::vector<Rec>& mine = side ? m.dev : m.host;
  bool finite = true, known = true;
  for (int64_t i = 0; i < m.n; ++i) {
    known = known && mine[i].pos_known;
    for (int d = 0; d < m.dim && known; ++d) finite = finite && std::isfinite(mine[i].pos[d]);
  }
  const int sides = (flags & PVEC_SORT_BOTH_MIRRORS) ? 2 : 1;
  auto permuted = [&](int k) -> std::vector<Rec>& {
    return (k == 0) == (side == 1) ? m.dev : m.host;
  };
  if (want == PVEC_SUCCESS && m.n >= 2 && known && !finite) want = PVEC_ERROR_INVALID_ARGUMENT;
  if (want == PVEC_SUCCESS && m.n >= 2 && !known) {
    // Whether a NaN stands in the way is unknown: either answer, nothing changed on refusal.
    if (st != PVEC_SUCCESS && st != PVEC_ERROR_INVALID_ARGUMENT)
      die("sort of unknown positions returned %d", static_cast<int>(st));
  } else {
    expect(st, want, "sort");
  }
  if (st != PVEC_SUCCESS) {
    verify(m, "refused sort");
    return;
  }
  if (moved != 0 && moved != 1) die("sort: moved = %d", moved);
  if (moved == 1) {
    // The permutation, from the ids: every local row on this side must have a distinct known
    // id for it to be recovered; else the model forgets what it knew
    // of the permuted rows.
    std::map<int64_t, int64_t> row_of;
    bool ids = true;
    for (int64_t i = 0; i < m.n; ++i) {
      const int64_t id = mine[i].src[0];
      if (id <= 0 || row_of.count(id)) ids = false;
      row_of[id] = i;
    }
    if (!ids) {
      for (int k = 0; k < sides; ++k)
        for (int64_t i = 0; i < m.n; ++i) {
          Rec& r = permuted(k)[i];
          std::fill(r.src.begin(), r.src.end(), -1);
          r.pos_known = false;
        }
    } else {
      const Columns c = layouts(m);
      const void* idcol = side ? c.l[1].device_ptr : c.l[1].host_ptr;
      std::vector<int64_t> from(m.n);
      std::vector<char> taken(m.n, 0);
      for (int64_t j = 0; j < m.n; ++j) {
        const int64_t id = static_cast<int64_t>(read_elem(idcol, PVEC_INT64, j));
        const auto it = row_of.find(id);
        if (it == row_of.end() || taken[it->second])
          die("sort: row %lld holds id %lld, not one of the local rows once", (long long)j,
              (long long)id);
        taken[it->second] = 1;
        from[j] = it->second;
      }
      for (int k = 0; k < sides; ++k) {
        std::vector<Rec>& recs = permuted(k);
        std::vector<Rec> old(recs.begin(), recs.begin() + m.n);
        for (int64_t j = 0; j < m.n; ++j) recs[j] = old[from[j]];
      }
    }
    ++m.gen;
    adopt_generation(m, "sort");
    m.forget_plan();
    // This mirror's local rows are the newest; with both mirrors, the columns the other held
    // as new stay equal.
    std::vector<int> equal;
    for (int k : all_columns(m))
      if (sides == 2 && m.ver[k][0][1 - side] >= m.ver[k][0][side]) equal.push_back(k);
    m.wrote(side, all_columns(m), 1u);
    for (int k : equal) m.ver[k][0][1 - side] = m.ver[k][0][side];
  }
  verify(m, "sort");
  if (want == PVEC_SUCCESS && (m.n < 2 || (known && finite))) {
    int again = -1;
    expect(pvec_vector_sort(m.h, w, flags, &again), PVEC_SUCCESS, "sort again");
    if (again != 0) die("sort: a second identical sort moved rows");
    verify(m, "second sort");
  }
}

void op_ghost_put(Model& m, Input& in) {
  const int side = in.flag();
  const bool split = (in.last() & 2) != 0;  // begin + end instead of the blocking call
  static const pvec_reduce_op kOps[3] = {PVEC_REDUCE_MIN, PVEC_REDUCE_MAX, PVEC_REDUCE_REPLACE};
  const pvec_reduce_op op = kOps[in.u8() % 3];
  bool all = false;
  const std::vector<int> cols = pick_columns(m, in, false, &all);
  const std::vector<int> props = to_props(cols);
  if (m.plan_side >= 0 && m.plan_side != side) return;  // one shared plan: see op_ghost_get
  const pvec_status s = ghost_put_call(m, list_arg(all, props), static_cast<int>(props.size()), op,
                                       side ? PVEC_ON_DEVICE : 0u, split);
  if (m.stale(side, cols, 3u)) {
    expect(s, PVEC_ERROR_STALE_MIRROR, "ghost_put of older rows");
    verify(m, "refused ghost_put");
    return;
  }
  if (m.plan_side < 0) {
    expect(s, PVEC_ERROR_INVALID_ARGUMENT, "ghost_put without a plan");
    verify(m, "refused ghost_put");
    return;
  }
  expect(s, PVEC_SUCCESS, "ghost_put");
  m.wrote(side, cols, 1u);
  // Ghost copies equal to their source, combined back with MIN, MAX or REPLACE, change
  // nothing; where a copy differs (the source was written since) or is unspecified, the
  // source's value is not predicted.
  std::vector<Rec>& mine = side ? m.dev : m.host;
  std::vector<std::pair<int64_t, int>> unsure;
  for (int k : cols)
    for (int64_t g = 0; g < m.ng; ++g) {
      const int64_t i = m.ghost_src[g];
      const int64_t gs = mine[m.n + g].src[k - 1];
      if (gs < 0 || gs != mine[i].src[k - 1]) unsure.emplace_back(i, k);
    }
  for (const auto& u : unsure) mine[u.first].src[u.second - 1] = -1;
  verify(m, "ghost_put");
}

// Calls with bad arguments on a live vector: each must fail as documented and change
// nothing.
void op_bad(Model& m, Input& in) {
  const uint8_t which = in.u8() % 12;
  int64_t i64 = 0;
  pvec_status s = PVEC_SUCCESS, want = PVEC_ERROR_INVALID_ARGUMENT;
  const int np = m.columns();
  switch (which) {
    case 0:
      s = pvec_vector_reserve(m.h, -1 - in.count(1000));
      break;
    case 1:
      s = pvec_vector_resize(m.h, INT64_MAX - in.u8());
      want = PVEC_ERROR_OVERFLOW;
      break;
    case 2:
      // Known fault: an append that fails in the reallocation drops the ghosts.
      if (kSkipKnown && m.ng > 0) return;
      s = pvec_vector_append(m.h, INT64_MAX - m.n - in.u8(), &i64);
      want = PVEC_ERROR_OVERFLOW;
      break;
    case 3: {
      if (m.n == 0) return;
      const int64_t idx[2] = {in.u16() % m.n, 0};
      const int64_t dup[3] = {idx[0], idx[1], idx[0]};
      s = pvec_vector_remove(m.h, dup, 3);
      break;
    }
    case 4: {
      const int64_t idx[2] = {0, m.n + in.u8()};
      s = pvec_vector_remove(m.h, idx, 2);
      want = PVEC_ERROR_OUT_OF_RANGE;
      break;
    }
    case 5: {
      pvec_layout l = PVEC_LAYOUT_INIT;
      s = pvec_vector_get_layout(m.h, np + in.u8(), &l);
      want = PVEC_ERROR_OUT_OF_RANGE;
      break;
    }
    case 6: {
      const int list[2] = {0, -2 - in.u8()};
      s = in.flag() ? pvec_host_to_device(m.h, list, 2) : pvec_device_to_host(m.h, list, 2);
      want = PVEC_ERROR_OUT_OF_RANGE;
      break;
    }
    case 7: {
      const int list[2] = {PVEC_POS, PVEC_POS};
      s = pvec_host_to_device(m.h, list, 2);
      break;
    }
    case 8:
      s = pvec_map(m.h, 1u << (4 + in.u8() % 20), nullptr);
      break;
    case 9:
      s = pvec_ghost_get(m.h, nullptr, 0, PVEC_GHOST_SKIP_POSITIONS);
      break;
    case 10:
      // Known fault: pvec reads an out-of-range pvec_reduce_op as the enum (UB in C++).
      if (kSkipKnown) return;
      s = pvec_ghost_put(m.h, nullptr, 0, static_cast<pvec_reduce_op>(4 + in.u8()), 0);
      break;
    default: {
      const int list[1] = {np + in.u8()};
      s = pvec_ghost_get(m.h, list, 1, 0);
      want = PVEC_ERROR_OUT_OF_RANGE;
      break;
    }
  }
  expect(s, want, "bad call");
  verify(m, "bad call");
}

void check_no_leak() {
  pvec_memory_stats st{};
  st.struct_size = sizeof st;
  expect(pvec_memory_get_stats(&st), PVEC_SUCCESS, "memory_stats_get");
  if (st.host_bytes != 0 || st.pinned_bytes != 0 || st.device_bytes != 0)
    die("memory not returned after destroying every vector: host %lld pinned %lld device %lld",
        (long long)st.host_bytes, (long long)st.pinned_bytes, (long long)st.device_bytes);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  if (pvec_init(argc, argv) != PVEC_SUCCESS) {
    std::fprintf(stderr, "pvec_init failed: %s\n", pvec_last_error());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  World w{{}, Input{data, size}};
  Input& in = w.in;
  int steps = 0;
  while (!in.empty() && steps++ < 64) {
    const uint8_t op = in.u8();
    Model& m = w.slot[(op >> 5) % kSlots];
    const int kind = op & 31;
    trace("step %d: slot %d kind %d (n %lld, ng %lld, cap %lld)\n", steps, (op >> 5) % kSlots, kind,
          (long long)m.n, (long long)m.ng, (long long)m.cap);
    if (!m.h && kind != 0) {
      op_create(m, in);
      continue;
    }
    if (kind == 18) {  // (18 % 16 is append's second code)
      op_sort(m, in);
      continue;
    }
    switch (kind % 16) {
      case 0:
        op_create(m, in);
        break;
      case 1:
      case 2:
        op_append(m, in);
        break;
      case 3:
        op_remove(m, in);
        break;
      case 4:
        op_resize(m, in);
        break;
      case 5:
        op_reserve(m, in);
        break;
      case 6:
        op_shrink(m);
        break;
      case 7:
      case 8:
        op_transfer(m, in);
        break;
      case 9:
        op_write(m, in);
        break;
      case 10:
        op_displace(m, in);
        break;
      case 11:
        op_map(m, in);
        break;
      case 12:
      case 13:
        op_ghost_get(m, in);
        break;
      case 14:
        op_ghost_put(m, in);
        break;
      default:
        if (kind == 15)
          op_bad(m, in);
        else
          destroy(m);
        break;
    }
  }
  for (Model& m : w.slot) destroy(m);
  check_no_leak();
  return 0;
}
