// Helpers of the distribution tests (dist_util.hpp): MPI, failures, randomness, the full
// schema, vector access, a populated vector. The brute-force references of map and ghost_get
// are in dist_reference.cpp.
#include "dist_util.hpp"

#include "test_support.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>

namespace dist {

// ---- MPI ---------------------------------------------------------------------------------

int rank() { return pvec_test::world_rank(); }

int size() { return pvec_test::world_size(); }

bool all_true(bool v) {
#ifdef PVEC_TEST_HAVE_MPI
  int in = v ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out == 1;
#else
  return v;
#endif
}

int64_t sum(int64_t v) {
#ifdef PVEC_TEST_HAVE_MPI
  int64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
#else
  return v;
#endif
}

int64_t exscan(int64_t v) {
#ifdef PVEC_TEST_HAVE_MPI
  int64_t out = 0;
  MPI_Exscan(&v, &out, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return rank() == 0 ? 0 : out;
#else
  (void)v;
  return 0;
#endif
}

void barrier() {
#ifdef PVEC_TEST_HAVE_MPI
  MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::vector<unsigned char> allgather_bytes(const void* data, int64_t bytes,
                                           std::vector<int64_t>* counts) {
#ifdef PVEC_TEST_HAVE_MPI
  const int P = size();
  int mine = static_cast<int>(bytes);
  std::vector<int> n(P), displ(P);
  MPI_Allgather(&mine, 1, MPI_INT, n.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < P; ++r) {
    displ[r] = total;
    total += n[r];
  }
  std::vector<unsigned char> out(static_cast<size_t>(total));
  MPI_Allgatherv(data, mine, MPI_BYTE, out.data(), n.data(), displ.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  if (counts) counts->assign(n.begin(), n.end());
  return out;
#else
  const auto* p = static_cast<const unsigned char*>(data);
  if (counts) counts->assign(1, bytes);
  return std::vector<unsigned char>(p, p + bytes);
#endif
}

// ---- Failures ----------------------------------------------------------------------------

void Failures::add(const std::string& what) {
  if (first_.size() < 8) first_.push_back(what);
  ++count_;
}

void Failures::require(const char* context) {
  if (count_ > 0) {
    std::ostringstream s;
    s << "rank " << rank() << ", " << context << ": " << count_ << " failure(s), first:";
    for (const auto& w : first_) s << "\n  " << w;
    FAIL_CHECK(s.str());
  }
  const bool ok = all_true(count_ == 0);
  count_ = 0;
  first_.clear();
  INFO(context);
  REQUIRE(ok);
}

// ---- Randomness --------------------------------------------------------------------------

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t Rng::next() {
  s_ += 0x9e3779b97f4a7c15ull;
  return mix(s_);
}

// ---- Schema ------------------------------------------------------------------------------

pvec_schema_t make_full_schema(Props* p) {
  pvec_schema_t s = nullptr;
  REQUIRE(pvec_schema_create(&s) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "id", PVEC_INT64, &p->id) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "f32", PVEC_FLOAT32, &p->f32) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "f64", PVEC_FLOAT64, &p->f64) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "i32", PVEC_INT32, &p->i32) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "u32", PVEC_UINT32, &p->u32) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_scalar(s, "u64", PVEC_UINT64, &p->u64) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_vector(s, "v3", PVEC_FLOAT64, 3, &p->v3) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_vector(s, "vi3", PVEC_INT32, 3, &p->vi3) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_tensor(s, "t23", PVEC_FLOAT32, 2, 3, &p->t23) == PVEC_SUCCESS);
  REQUIRE(pvec_schema_add_tensor(s, "tu23", PVEC_UINT64, 2, 3, &p->tu23) == PVEC_SUCCESS);
  // 35 components: with the other 4-byte ones more than one launch of the row kernels holds
  // (kRowComps).
  REQUIRE(pvec_schema_add_tensor(s, "t57", PVEC_FLOAT32, 5, 7, &p->t57) == PVEC_SUCCESS);
  p->all = {p->id, p->f32, p->f64, p->i32, p->u32, p->u64, p->v3, p->vi3, p->t23, p->tu23, p->t57};
  p->values.assign(p->all.begin() + 1, p->all.end());
  return s;
}

uint64_t value_bits(int64_t id, int prop, int64_t comp, uint64_t salt) {
  // Arbitrary bit patterns: floats include NaN payloads, infinities and denormals, which
  // must travel bit for bit.
  return mix(static_cast<uint64_t>(id) * 0x100000001b3ull ^ mix(salt + 1000003ull * prop + comp));
}

// ---- Vector access -----------------------------------------------------------------------

uint64_t Column::bits(int64_t i, int64_t c) const {
  uint64_t v = 0;
  std::memcpy(&v, at(i, c), elem);
  return v;
}

void Column::set_bits(int64_t i, int64_t c, uint64_t v) const { std::memcpy(at(i, c), &v, elem); }

Column column(pvec_vector_t v, int prop) {
  pvec_layout l = PVEC_LAYOUT_INIT;
  REQUIRE(pvec_vector_get_layout(v, prop, &l) == PVEC_SUCCESS);
  Column c;
  c.base = static_cast<unsigned char*>(l.host_ptr);
  c.elem = l.elem_size;
  c.ncomp = l.ncomp;
  c.cap = l.capacity;
  c.dtype = l.dtype;
  return c;
}

int64_t n_local(pvec_vector_t v) {
  int64_t n = -1;
  REQUIRE(pvec_vector_get_size(v, &n) == PVEC_SUCCESS);
  return n;
}
int64_t n_ghost(pvec_vector_t v) {
  int64_t n = -1;
  REQUIRE(pvec_vector_get_ghost_size(v, &n) == PVEC_SUCCESS);
  return n;
}
pvec_op_stats op_stats(pvec_vector_t v) {
  pvec_op_stats ops;
  std::memset(&ops, 0, sizeof ops);
  ops.struct_size = sizeof ops;
  REQUIRE(pvec_vector_get_op_stats(v, &ops) == PVEC_SUCCESS);
  return ops;
}
void check_exchange_figures(const pvec_op_stats& ops, int64_t own_images, const char* op,
                            Failures& f) {
  if (ops.particles_self != own_images)
    f.addf(op, " particles_self ", ops.particles_self, ", own periodic images ", own_images);
  if (ops.particles_sent < ops.particles_self) f.addf(op, " particles_sent < particles_self");
  if ((ops.bytes_sent == 0) != (ops.particles_sent == ops.particles_self))
    f.addf(op, " bytes_sent ", ops.bytes_sent, " for ", ops.particles_sent - ops.particles_self,
           " entries to other ranks");
  if (sum(ops.particles_sent) != sum(ops.particles_received))
    f.addf(op, ": entries sent and received differ over the ranks");
}
int64_t capacity(pvec_vector_t v) {
  int64_t n = -1;
  REQUIRE(pvec_vector_get_capacity(v, &n) == PVEC_SUCCESS);
  return n;
}
uint64_t generation(pvec_vector_t v) {
  uint64_t g = 0;
  REQUIRE(pvec_vector_get_generation(v, &g) == PVEC_SUCCESS);
  return g;
}
int dim_of(pvec_vector_t v) {
  int d = 0;
  REQUIRE(pvec_vector_get_dim(v, &d) == PVEC_SUCCESS);
  return d;
}
pvec_dtype pos_dtype(pvec_vector_t v) {
  pvec_dtype t = PVEC_FLOAT64;
  REQUIRE(pvec_vector_get_pos_dtype(v, &t) == PVEC_SUCCESS);
  return t;
}

int64_t id_of(pvec_vector_t v, const Props& p, int64_t i) {
  return static_cast<int64_t>(column(v, p.id).bits(i, 0));
}

double get_pos(const Column& pos, int64_t i, int d) {
  if (pos.dtype == PVEC_FLOAT32) {
    float x;
    std::memcpy(&x, pos.at(i, d), sizeof x);
    return x;
  }
  double x;
  std::memcpy(&x, pos.at(i, d), sizeof x);
  return x;
}

void set_pos(const Column& pos, int64_t i, int d, double x) {
  if (pos.dtype == PVEC_FLOAT32) {
    float y = static_cast<float>(x);
    std::memcpy(pos.at(i, d), &y, sizeof y);
  } else {
    std::memcpy(pos.at(i, d), &x, sizeof x);
  }
}

void fill_values(pvec_vector_t v, const Props& p, int64_t from, int64_t to, uint64_t salt) {
  Column idc = column(v, p.id);
  for (int prop : p.values) {
    Column c = column(v, prop);
    for (int64_t i = from; i < to; ++i) {
      const int64_t id = static_cast<int64_t>(idc.bits(i, 0));
      for (int64_t k = 0; k < c.ncomp; ++k) c.set_bits(i, k, value_bits(id, prop, k, salt));
    }
  }
}

void check_values(pvec_vector_t v, const Props& p, int64_t from, int64_t to, uint64_t salt,
                  Failures& f, const std::vector<int>* props) {
  const std::vector<int>& list = props ? *props : p.values;
  Column idc = column(v, p.id);
  for (int prop : list) {
    if (prop == p.id || prop == PVEC_POS) continue;
    Column c = column(v, prop);
    const uint64_t mask = c.elem == 8 ? ~0ull : 0xffffffffull;
    for (int64_t i = from; i < to; ++i) {
      const int64_t id = static_cast<int64_t>(idc.bits(i, 0));
      for (int64_t k = 0; k < c.ncomp; ++k) {
        const uint64_t want = value_bits(id, prop, k, salt) & mask;
        if (c.bits(i, k) != want)
          f.addf("particle ", i, " (id ", id, ") property ", prop, " component ", k, ": bits 0x",
                 std::hex, c.bits(i, k), " expected 0x", want, std::dec);
      }
    }
  }
}

// ---- A populated vector ------------------------------------------------------------------

const double kDomainLo[3] = {-1.0, 0.0, 0.5};
const double kDomainHi[3] = {1.0, 3.0, 2.25};

double nudge(double x, pvec_dtype t, int k) {
  if (t == PVEC_FLOAT32) {
    float y = static_cast<float>(x);
    for (; k > 0; --k) y = std::nextafter(y, std::numeric_limits<float>::infinity());
    for (; k < 0; ++k) y = std::nextafter(y, -std::numeric_limits<float>::infinity());
    return y;
  }
  for (; k > 0; --k) x = std::nextafter(x, std::numeric_limits<double>::infinity());
  for (; k < 0; ++k) x = std::nextafter(x, -std::numeric_limits<double>::infinity());
  return x;
}

pvec_vector_t make_mapped(const Setup& s, Props* p) {
  pvec_schema_t schema = make_full_schema(p);
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  desc.dim = s.dim;
  desc.pos_dtype = s.pos;
  for (int d = 0; d < s.dim; ++d) {
    desc.domain_lo[d] = kDomainLo[d];
    desc.domain_hi[d] = kDomainHi[d];
    desc.boundary[d] = s.periodic[d] ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  desc.ghost_width = s.width;
  desc.n_particles = s.n_per_rank + 5 * rank();
  desc.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&desc, schema, &v));
  pvec_schema_destroy(schema);
  const Decomp dc = decomposition(v);
  const int64_t n = n_local(v), first = exscan(n);
  Rng rng(s.seed * 104729 + static_cast<uint64_t>(rank()));
  Column idc = column(v, p->id), pos = column(v, PVEC_POS);
  for (int64_t i = 0; i < n; ++i) {
    idc.set_bits(i, 0, static_cast<uint64_t>(first + i));
    for (int d = 0; d < s.dim; ++d) {
      double x = rng.uniform(dc.lo[d], dc.hi[d]);
      if (rng.chance(s.edge_fraction)) {
        const int r = static_cast<int>(rng.below(dc.ranks));
        x = rng.chance(0.5) ? dc.sub_lo[r * s.dim + d] : dc.sub_hi[r * s.dim + d];
        x += static_cast<double>(rng.below(3) - 1) * s.width;
        if (s.periodic[d]) x += static_cast<double>(rng.below(3) - 1) * dc.len(d);
        x = nudge(x, s.pos, static_cast<int>(rng.below(5)) - 2);
        if (!s.periodic[d]) x = std::min(std::max(x, dc.lo[d]), dc.hi[d]);
      }
      set_pos(pos, i, d, x);
    }
  }
  fill_values(v, *p, 0, n, s.seed);
  DIST_OK(pvec_map(v, 0, nullptr));
  return v;
}

bool g_ipc_refused = false;
bool g_shm_refused = false;

bool single_node() {
#ifdef PVEC_TEST_HAVE_MPI
  static const bool one = [] {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n = 0;
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    return n == size();
  }();
  return one;
#else
  return true;
#endif
}

int64_t expected_transport(pvec_vector_t v, Path p) {
  if (size() == 1) return PVEC_TRANSPORT_NONE;
  pvec_backend b = PVEC_BACKEND_HOST;
  REQUIRE(pvec_vector_get_backend(v, &b) == PVEC_SUCCESS);
  if (p == Path::host || b != PVEC_BACKEND_CUDA) {
    const char* shm = std::getenv("PVEC_SHM");
    return single_node() && !g_shm_refused && !(shm != nullptr && std::string(shm) == "0")
               ? PVEC_TRANSPORT_SHARED_MEMORY
               : PVEC_TRANSPORT_MPI;
  }
  const char* ipc = std::getenv("PVEC_IPC");
  if (single_node() && !g_ipc_refused && !(ipc != nullptr && std::string(ipc) == "0"))
    return PVEC_TRANSPORT_CUDA_IPC;
  return PVEC_TRANSPORT_MPI_STAGED;  // (or MPI with a CUDA-aware MPI: accepted below)
}

pvec_status run_on(pvec_vector_t v, Path p, const std::function<pvec_status(unsigned)>& op,
                   Failures& f, std::string* error) {
  const Snapshot before = snapshot(v);
  REQUIRE(pvec_host_to_device(v, nullptr, 0) == PVEC_SUCCESS);
  const pvec_status st = op(flag_of(p));
  if (error) *error = pvec_last_error();
  if (st == PVEC_SUCCESS) {
    const pvec_op_stats ops = op_stats(v);
    const int64_t got = ops.transport, want = expected_transport(v, p);
    bool ok = got == want || (want == PVEC_TRANSPORT_MPI_STAGED && got == PVEC_TRANSPORT_MPI);
    // Where a rank refuses IPC, it is turned off when the first landing buffer is made: until
    // then (no bytes moved yet) calls still report it.
    if (g_ipc_refused && want == PVEC_TRANSPORT_MPI_STAGED && got == PVEC_TRANSPORT_CUDA_IPC)
      ok = ops.bytes_sent == 0 && ops.bytes_received == 0;
    if (!ok) f.addf("the call's messages went by transport ", got, ", expected ", want);
  }
  const Snapshot after = snapshot(v);
  const int64_t common = std::min(before.rows(), after.rows());
  if (p == Path::host) {
    // The device mirror must still hold what the host held before. pvec knows the host is
    // newer and refuses to copy the device over it: the check declares that it wants the
    // device's values (as a program that wrote them would), then puts the host's back.
    REQUIRE(pvec_vector_mark_modified(v, nullptr, 0, PVEC_ON_DEVICE) == PVEC_SUCCESS);
    REQUIRE(pvec_device_to_host(v, nullptr, 0) == PVEC_SUCCESS);
    const std::string diff = compare_rows(before, snapshot(v), common);
    if (!diff.empty()) f.add("host-path operation changed the device mirror: " + diff);
    restore_host(v, after);
    REQUIRE(pvec_vector_mark_modified(v, nullptr, 0, 0) == PVEC_SUCCESS);
  } else {
    const std::string diff = compare_rows(before, after, common);
    if (!diff.empty()) f.add("device-path operation changed the host mirror: " + diff);
    REQUIRE(pvec_device_to_host(v, nullptr, 0) == PVEC_SUCCESS);
  }
  return st;
}

bool mentions_number(const std::string& text, int64_t n) {
  const std::string s = std::to_string(n);
  for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) {
    const bool left = at == 0 || !std::isdigit(static_cast<unsigned char>(text[at - 1]));
    const size_t end = at + s.size();
    const bool right = end == text.size() || !std::isdigit(static_cast<unsigned char>(text[end]));
    if (left && right) return true;
  }
  return false;
}

std::vector<char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_all(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string slurp(const std::string& path) {
  const std::vector<char> b = read_all(path);
  return std::string(b.begin(), b.end());
}

}  // namespace dist
