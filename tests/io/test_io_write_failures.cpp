// A checkpoint write that fails anywhere (issue 41, defect 1): an HDF5 call of the writer made
// to fail, one at a time, at every call the writer makes (on every rank, and on the last rank
// alone), and a real file size limit (RLIMIT_FSIZE, so that write() gives EFBIG). Each failure
// gives PVEC_ERROR_IO on the failing rank and PVEC_ERROR_MPI on the others, leaves no HDF5
// object open on any rank, no temporary file, and the previous checkpoint at the path as it
// was; a write after it succeeds, restarts to the same particles, and the program finalizes
// cleanly (the test would die at MPI_Finalize, in HDF5's atexit close, if an object leaked).
#include "checkpoint_util.hpp"

#ifndef PVEC_TEST_NO_HDF5
#include "io/h5_helpers.hpp"
#include "io/row_checksum.hpp"

#include <hdf5.h>
#endif

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace ckpt_test;

#ifndef PVEC_TEST_NO_HDF5
namespace {

namespace pio = pvec::impl::io;

bool exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

// A vector of n particles per rank with the full schema, distributed.
struct Particles {
  Props p;
  pvec_vector_desc d = make_desc(3, PVEC_FLOAT64, true);
  pvec_vector_t v = nullptr;
  explicit Particles(int64_t n) {
    v = make_vector(d, n, n * rank(), &p);
    DIST_OK(pvec_map(v, 0, nullptr));
    DIST_OK(pvec_host_to_device(v, nullptr, 0));  // writes read either mirror
  }
  ~Particles() { pvec_vector_destroy(v); }
};

// What every failed write must leave: the status on this rank (IO where it failed, MPI on the
// others), no open HDF5 object, no temporary file, the previous file's bytes.
void check_failed(pvec_status s, bool failed_here, const std::string& path,
                  const std::vector<char>& before, const std::string& what, Failures& f) {
  const pvec_status want = failed_here ? PVEC_ERROR_IO : PVEC_ERROR_MPI;
  if (s != want && !(s == PVEC_ERROR_IO && !failed_here))
    f.addf(what, ": status ", pvec_status_string(s), ", want ", pvec_status_string(want), " (",
           pvec_last_error(), ")");
  if (failed_here && std::string(pvec_last_error()).find(path) == std::string::npos)
    f.addf(what, ": the message does not name the file: ", pvec_last_error());
  const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open != 0) f.addf(what, ": ", open, " HDF5 objects left open on rank ", rank());
  barrier();
  if (exists(path + ".tmp")) f.addf(what, ": the temporary file was left behind");
  if (rank() == 0 && read_all(path) != before)
    f.addf(what, ": the previous checkpoint at the path changed");
  barrier();
}

// A write then a restart succeed and give back the particles.
void check_recovers(Particles& x, const std::string& path, Failures& f) {
  DIST_OK(pvec_checkpoint_write(x.v, path.c_str(), 7, 1.5, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                nullptr, 0));
  Props q;
  pvec_schema_t s = make_full_schema(&q);
  pvec_vector_t r = nullptr;
  DIST_OK(pvec_checkpoint_restart(path.c_str(), &x.d, s, 0, &r));
  pvec_schema_destroy(s);
  check_id_set(check_particles(r, x.p, f), sum(n_local(x.v)), f);
  pvec_vector_destroy(r);
}

}  // namespace

TEST_CASE("block checksums add up from rows read in any pieces", "[io]") {
  // 3 writer blocks of rows of 12 bytes (3 words), one empty; read in pieces that straddle them.
  const std::vector<int64_t> blocks{5, 0, 9};
  const size_t rb = 12;
  std::vector<unsigned char> rows(14 * rb);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<unsigned char>(i * 37 + 11);
  const uint64_t want[3] = {pio::word_sum(rows.data(), 5 * rb, 0), 0,
                            pio::word_sum(rows.data() + 5 * rb, 9 * rb, 5 * rb / 4)};
  // Sums of adjacent ranges add (what lets any rank count verify every block).
  CHECK(pio::word_sum(rows.data(), 6 * rb, 0) +
            pio::word_sum(rows.data() + 6 * rb, 8 * rb, 6 * rb / 4) ==
        pio::word_sum(rows.data(), rows.size(), 0));
  for (int64_t cut : {1, 3, 5, 7, 13}) {
    pio::BlockSums sums(blocks, rb);
    sums.add(cut, 14 - cut, rows.data() + cut * rb);  // the second piece first
    sums.add(0, cut, rows.data());
    const std::vector<uint64_t> got = sums.parts();
    for (int b = 0; b < 3; ++b) CHECK(got[b] == want[b]);
  }
  // Any one changed word changes its block's sum; a swap of two words too.
  for (size_t w = 0; w < rows.size() / 4; ++w) {
    std::vector<unsigned char> bad = rows;
    bad[4 * w + 2] ^= 1;
    CHECK(pio::word_sum(bad.data(), bad.size(), 0) != pio::word_sum(rows.data(), rows.size(), 0));
  }
  std::vector<unsigned char> swapped = rows;
  std::swap_ranges(swapped.begin(), swapped.begin() + 4, swapped.begin() + 4);
  CHECK(pio::word_sum(swapped.data(), swapped.size(), 0) !=
        pio::word_sum(rows.data(), rows.size(), 0));
}

namespace {

// The strided sums of one column's components (4- or 8-byte elements E, ncomp components at
// stride cap) over rows [a, b), the block's first word at index k0, as the writer adds them.
template <class E>
uint64_t column_sum(const std::vector<E>& col, int64_t cap, int64_t ncomp, int64_t a, int64_t b,
                    uint64_t k0) {
  constexpr uint32_t kStep = 0x9E3779B9u;
  constexpr uint64_t kWords = sizeof(E) / 4;
  uint64_t s = 0;
  for (int64_t c = 0; c < ncomp; ++c) {
    const uint32_t a0 =
        static_cast<uint32_t>(k0 + kWords * static_cast<uint64_t>(a * ncomp + c)) * kStep;
    const uint32_t da = static_cast<uint32_t>(kWords * static_cast<uint64_t>(ncomp)) * kStep;
    const E* p = col.data() + c * cap + a;
    if constexpr (sizeof(E) == 4)
      s += pio::strided_sum32(reinterpret_cast<const uint32_t*>(p), size_t(b - a), a0, da);
    else
      s += pio::strided_sum64(reinterpret_cast<const uint64_t*>(p), size_t(b - a), a0, da);
  }
  return s;
}

// Column sums against word_sum over the same values in the file's layout (row i: its ncomp
// elements, little-endian), for row ranges that start and end anywhere (vector tails).
template <class E>
void check_column_sums() {
  for (const int64_t ncomp : {1, 3, 9}) {
    const int64_t n = 203, cap = 256;
    std::vector<E> col(static_cast<size_t>(ncomp * cap));
    for (size_t i = 0; i < col.size(); ++i)
      col[i] = static_cast<E>(0x9E3779B97F4A7C15ull * (i + 1) ^ (i << 7));
    std::vector<unsigned char> file(static_cast<size_t>(n * ncomp) * sizeof(E));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < ncomp; ++c)
        std::memcpy(file.data() + (i * ncomp + c) * sizeof(E), &col[size_t(c * cap + i)],
                    sizeof(E));
    const size_t rb = static_cast<size_t>(ncomp) * sizeof(E);
    for (const int64_t a : {0, 1, 5, 17})
      for (const int64_t b : {a, a + 1, a + 7, a + 64, n})
        for (const uint64_t k0 : {uint64_t{0}, uint64_t{12345}, uint64_t{1} << 33}) {
          INFO("element " << sizeof(E) << " bytes, ncomp " << ncomp << ", rows [" << a << ", " << b
                          << "), k0 " << k0);
          const uint64_t want = pio::word_sum(file.data() + a * rb, static_cast<size_t>(b - a) * rb,
                                              k0 + static_cast<uint64_t>(a) * rb / 4);
          CHECK(column_sum(col, cap, ncomp, a, b, k0) == want);
        }
  }
}

}  // namespace

TEST_CASE("column sums in memory equal the sums of the file's layout", "[io]") {
  check_column_sums<uint32_t>();
  check_column_sums<uint64_t>();
}

TEST_CASE("a write failing at any HDF5 call releases everything and keeps the old file",
          "[io][errors]") {
  if (!have_hdf5()) return;
  Particles x(300);
  const std::string path = path_for("faults");
  DIST_OK(pvec_checkpoint_write(x.v, path.c_str(), 1, 0.5, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                nullptr, 0));
  const std::vector<char> before = rank() == 0 ? read_all(path) : std::vector<char>();
  const char* keys[] = {"case", "dt"};
  const char* strings[] = {"faults", nullptr};
  const double numbers[] = {0, 0.25};
  Failures f;
  // Every rank failing at the same call, then the last rank alone (at 1 rank: once).
  for (bool alone : {false, true}) {
    if (alone && size() == 1) break;
    const bool injecting = !alone || rank() == size() - 1;
    int calls = -1;  // the number of fault points of a whole write
    for (int k = 0; k < 1000 && calls < 0; ++k) {
      for (unsigned flags : {0u, unsigned(PVEC_ON_DEVICE)}) {
        // Alone: only the steps a rank can fail by itself (claiming the file's space, writing
        // its rows); a collective HDF5 call fails on every rank or on none.
        if (injecting) pio::inject_h5_fault_for_tests(k, alone);
        const pvec_status s = pvec_checkpoint_write(x.v, path.c_str(), 2, 1.0, nullptr, 0, 2, keys,
                                                    strings, numbers, nullptr, flags);
        const bool fired = pio::h5_fault_fired_for_tests();
        // The last rank injects in both modes: its count is the write's.
        const int64_t points = sum(rank() == size() - 1 ? pio::h5_fault_points_for_tests() : 0);
        pio::inject_h5_fault_for_tests(-1);
        if (sum(fired ? 1 : 0) == 0) {  // past the last step, or a collective one skipped
          if (s != PVEC_SUCCESS)
            f.addf("no fault at step ", k, ": ", pvec_status_string(s), " (", pvec_last_error(),
                   ")");
          if (rank() == 0) write_all(path, before);  // the reference again
          barrier();
          if (k >= points) calls = static_cast<int>(points);
          if (k >= points) break;
          continue;
        }
        check_failed(s, fired, path, before,
                     std::string(alone ? "last rank alone" : "every rank") + ", step " +
                         std::to_string(k) + (flags ? " (device mirror)" : ""),
                     f);
      }
    }
    if (calls < 20) f.addf("the writer has only ", calls, " fault points");
  }
  f.require("faults");
  check_recovers(x, path, f);
  f.require("after the faults");
  remove_files(path);
}

TEST_CASE("a write beyond the file size limit fails cleanly, and the next one succeeds",
          "[io][errors]") {
  if (!have_hdf5()) return;
  // ~190 bytes of properties per particle: 2000 particles are far beyond the 48 KiB limit.
  Particles x(2000);
  const std::string path = path_for("fsize");
  DIST_OK(pvec_checkpoint_write(x.v, path.c_str(), 1, 0.5, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                nullptr, 0));
  const std::vector<char> before = rank() == 0 ? read_all(path) : std::vector<char>();
  Failures f;
  std::signal(SIGXFSZ, SIG_IGN);  // write() then fails with EFBIG instead of killing us
  rlimit old{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
  for (bool alone : {false, true}) {
    if (alone && size() == 1) break;
    const bool limited = !alone || rank() == size() - 1;
    if (limited) {
      rlimit small = old;
      small.rlim_cur = 256 * 1024;
      REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
    }
    const pvec_status s = pvec_checkpoint_write(x.v, path.c_str(), 2, 1.0, nullptr, 0, 0, nullptr,
                                                nullptr, nullptr, nullptr, 0);
    const std::string message = pvec_last_error();
    REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
    // Which rank's write() hits the limit is up to MPI-IO (the metadata may be rank 0's):
    // at least one rank reports IO, and every rank fails.
    const std::string what = alone ? "size limit on the last rank" : "size limit on every rank";
    if (sum(s == PVEC_ERROR_IO ? 1 : 0) == 0)
      f.addf(what, ": no rank reported PVEC_ERROR_IO (", message, ")");
    check_failed(s, s == PVEC_ERROR_IO, path, before, what, f);
  }
  f.require("size limit");
  check_recovers(x, path, f);
  f.require("after the size limit");
  remove_files(path);
}
#endif
