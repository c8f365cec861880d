// White box (links pvec_static): the device bucket sort's two-level path
// (src/neighbors/two_level_sort.hpp; bucket_sort takes it with PVEC_BUCKET_SORT=two_level)
// against the host's bucket sort, which is stable by construction. Keys of cell lists (random,
// in order, descending, sparse, uneven n and nb), a split at several places, keys that crowd
// one bucket (the path must report that it fell back, and bucket_sort must still be right), and
// keys it must not take. Every case also checks which path ran, so the test cannot pass on the
// three-pass sort alone. A difference is reported by its first entry, never by whole arrays.
#include "catch_compat.hpp"
#include "scoped_env.hpp"

#include "neighbors/bucket_sort.hpp"
#include "neighbors/two_level_sort.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using pvec::impl::BucketScratch;
using pvec::impl::Exec;
using pvec::impl::MemKind;
using pvec::impl::TwoLevel;

namespace {

struct Result {
  std::vector<int32_t> offsets, order, split;
};

// "" when equal, else where and how they first differ.
std::string first_difference(const char* what, const std::vector<int32_t>& got,
                             const std::vector<int32_t>& want) {
  if (got.size() != want.size())
    return std::string(what) + ": " + std::to_string(got.size()) + " entries, expected " +
           std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      std::ostringstream o;
      o << what << "[" << i << "] = " << got[i] << ", expected " << want[i];
      return o.str();
    }
  return "";
}

std::string compare(const Result& got, const Result& want) {
  for (auto c : {first_difference("offsets", got.offsets, want.offsets),
                 first_difference("order", got.order, want.order),
                 first_difference("split_offsets", got.split, want.split)})
    if (!c.empty()) return c;
  return "";
}

Result host_sort(const std::vector<int32_t>& keys, int64_t nb, int64_t n_split) {
  const int64_t n = static_cast<int64_t>(keys.size());
  Result r;
  r.offsets.resize(nb + 1);
  r.order.resize(n);
  r.split.resize(nb + 1);
  BucketScratch s;
  pvec::impl::bucket_sort(Exec{false, nullptr}, keys.data(), n, nb, n_split, r.offsets.data(),
                          r.order.data(), r.split.data(), s);
  return r;
}

template <class T>
T* device_copy(const std::vector<T>& v) {
  void* raw = nullptr;
  REQUIRE(cudaMalloc(&raw, std::max<size_t>(v.size(), 1) * sizeof(T)) == cudaSuccess);
  T* p = static_cast<T*>(raw);
  REQUIRE(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  return p;
}

template <class T>
std::vector<T> host_copy(const T* p, size_t n) {
  std::vector<T> v(n);
  REQUIRE(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
  return v;
}

// Either path on the device: two_level_bucket_sort itself (direct), or bucket_sort (which tries
// it first). *took says what the two-level path did (direct), or is left alone.
Result device_sort(const std::vector<int32_t>& keys, int64_t nb, int64_t n_split, bool direct,
                   BucketScratch& s, TwoLevel* took) {
  const int64_t n = static_cast<int64_t>(keys.size());
  int32_t* k = device_copy(keys);
  std::vector<int32_t> fill_nb(nb + 1, -7), fill_n(n, -7);
  int32_t* off = device_copy(fill_nb);
  int32_t* split = device_copy(fill_nb);
  int32_t* order = device_copy(fill_n);
  const Exec ex{true, nullptr};
  if (direct)
    *took = pvec::impl::two_level_bucket_sort(ex, k, n, nb, n_split, off, order, split, s, nullptr);
  else
    pvec::impl::bucket_sort(ex, k, n, nb, n_split, off, order, split, s);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  Result r{host_copy(off, nb + 1), host_copy(order, n), host_copy(split, nb + 1)};
  for (void* p : {static_cast<void*>(k), static_cast<void*>(off), static_cast<void*>(split),
                  static_cast<void*>(order)})
    cudaFree(p);
  return r;
}

struct Case {
  std::string name;
  std::vector<int32_t> keys;
  int64_t nb;
};

std::vector<int32_t> random_keys(int64_t n, int64_t nb, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int64_t> u(0, nb - 1);
  std::vector<int32_t> k(n);
  for (auto& x : k) x = static_cast<int32_t>(u(g));
  return k;
}

// Keys the path takes: cell lists of 0.5-12 rows per cell over 2^17-2^24 cells.
std::vector<Case> suited_cases() {
  std::vector<Case> c;
  c.push_back(
      {"random, 23 bits, 0.5 per cell", random_keys(4000000, (1 << 23) - 3, 1), (1 << 23) - 3});
  c.push_back({"random, 24 bits, 1.2 per cell", random_keys(20000000, 1 << 24, 2), 1 << 24});
  c.push_back(
      {"random, 18 bits, 12 per cell", random_keys(1600000, (1 << 17) + 1, 3), (1 << 17) + 1});
  c.push_back(
      {"random, 17 bits, n not a multiple of 2048", random_keys(300001, 100003, 4), 100003});
  {
    std::vector<int32_t> k = random_keys(3000000, 1 << 20, 5);
    std::sort(k.begin(), k.end());
    c.push_back({"in order", k, 1 << 20});
    std::reverse(k.begin(), k.end());
    c.push_back({"descending", k, 1 << 20});
  }
  {
    // Only every 8th cell holds rows (1 per cell overall): spans of many empty cells.
    std::vector<int32_t> k = random_keys(1 << 21, 1 << 21, 6);
    for (auto& x : k) x &= ~7;
    c.push_back({"every 8th cell", k, 1 << 21});
  }
  {
    // Rows crowd the first and last cells (runs of equal keys across span bounds), the rest
    // random; the last cell is nb - 1.
    const int64_t nb = (1 << 19) + 77;
    std::vector<int32_t> k = random_keys(2000000, nb, 7);
    for (int64_t i = 0; i < 1500; ++i)
      k[i * 101] = 0, k[i * 103 + 1] = static_cast<int32_t>(nb - 1);
    c.push_back({"crowded first and last cells", k, nb});
  }
  return c;
}

}  // namespace

TEST_CASE("two-level sort gives the host's arrays on keys it takes", "[neighbors][gpu]") {
  BucketScratch s;
  s.set_kind(MemKind::device);
  for (const Case& c : suited_cases()) {
    const int64_t n = static_cast<int64_t>(c.keys.size());
    REQUIRE(pvec::impl::two_level_suits(n, c.nb));
    for (int64_t n_split : {n, int64_t{0}, n / 3, n - 1}) {
      INFO(c.name << ", n " << n << ", nb " << c.nb << ", split " << n_split);
      const Result want = host_sort(c.keys, c.nb, n_split);
      TwoLevel took = TwoLevel::unsuited;
      const Result got = device_sort(c.keys, c.nb, n_split, true, s, &took);
      REQUIRE(took == TwoLevel::sorted);
      CHECK(compare(got, want) == "");
      // Through bucket_sort, by default (three passes) and with the two-level path on.
      CHECK(compare(device_sort(c.keys, c.nb, n_split, false, s, nullptr), want) == "");
      pvec_test::ScopedEnv on("PVEC_BUCKET_SORT", "two_level");
      REQUIRE(pvec::impl::two_level_enabled());
      CHECK(compare(device_sort(c.keys, c.nb, n_split, false, s, nullptr), want) == "");
    }
  }
}

// A bucket of 2^(bits-16) cells with more rows than a span holds: the path must say so, and
// bucket_sort must give the right arrays through the three passes.
TEST_CASE("two-level sort falls back on a crowded bucket", "[neighbors][gpu]") {
  BucketScratch s;
  s.set_kind(MemKind::device);
  const int64_t nb = 1 << 22, n = 2000000;  // L = 6: buckets of 64 cells, ~30 rows each
  for (int crowd : {4200, 9000, 100000}) {
    std::vector<int32_t> k = random_keys(n, nb, 11 + static_cast<uint64_t>(crowd));
    std::mt19937_64 g(crowd);
    for (int i = 0; i < crowd; ++i) k[g() % n] = 640 + static_cast<int32_t>(g() % 64);
    INFO("crowd " << crowd);
    REQUIRE(pvec::impl::two_level_suits(n, nb));
    const Result want = host_sort(k, nb, n / 2);
    TwoLevel took = TwoLevel::sorted;
    device_sort(k, nb, n / 2, true, s, &took);
    CHECK(took == TwoLevel::fell_back);
    pvec_test::ScopedEnv on("PVEC_BUCKET_SORT", "two_level");
    CHECK(compare(device_sort(k, nb, n / 2, false, s, nullptr), want) == "");
  }
}

TEST_CASE("two-level sort leaves keys it does not suit to the three passes", "[neighbors][gpu]") {
  CHECK_FALSE(pvec::impl::two_level_suits(1 << 20, 1 << 16));        // 16 bits: CUB's two passes
  CHECK_FALSE(pvec::impl::two_level_suits(1 << 20, 1 << 24));        // 1/16 row per cell
  CHECK_FALSE(pvec::impl::two_level_suits(1 << 26, (1 << 17) + 1));  // 2048 rows per bucket
  CHECK(pvec::impl::two_level_suits(100000000, 8100000));  // the cell list benchmark at 10^8
  BucketScratch s;
  s.set_kind(MemKind::device);
  const std::vector<int32_t> k = random_keys(1 << 20, 1 << 16, 21);
  TwoLevel took = TwoLevel::sorted;
  device_sort(k, 1 << 16, 1 << 19, true, s, &took);
  CHECK(took == TwoLevel::unsuited);
  pvec_test::ScopedEnv on("PVEC_BUCKET_SORT", "two_level");
  CHECK(compare(device_sort(k, 1 << 16, 1 << 19, false, s, nullptr),
                host_sort(k, 1 << 16, 1 << 19)) == "");
}
