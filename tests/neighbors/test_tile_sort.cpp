// White box (links pvec_static): the tiled bucket sort (src/neighbors/tile_sort.hpp), which the
// device radix path takes for keys of more than 16 bits, in bucket_sort (cell lists) and
// bucket_order (the locality sort) alike.
// - Everywhere: how rows are ranked (shared words for cell lists, __match_any_sync for orders).
// - Everywhere: the plan (which keys it takes, the bits CUB sorts, the tile width).
// - With a device (tile_sort_gpu, built with CUDA; it skips, exit 77, without one): tile_sort
//   itself and bucket_order (ranking rows by shared-memory words and by __match_any_sync), and
//   bucket_sort / bucket_order by default, against the host's bucket sort, which is stable by
//   construction (CUB's three passes too): random keys of 17-26 bits, keys in order, nearly in
//   order and descending, sparse buckets, three interleaved buckets per tile, a tile of more than
//   4,096 items (the path that reads a tile twice), crowded first and last buckets, a split at
//   several places; a tile above kTileCap must be refused and bucket_sort must still be right.
//   Every case checks that the tiled path ran, so the test cannot pass on the three-pass sort
//   alone. A difference is reported by its first entry, never by whole arrays.
#include "catch_compat.hpp"

#include "neighbors/bucket_sort.hpp"
#include "neighbors/tile_sort.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#if defined(PVEC_TEST_CUDA)
#include <cuda_runtime_api.h>
#endif

using pvec::impl::TilePlan;

TEST_CASE("how the tile pass ranks rows", "[neighbors][plan]") {
  // Shared words for cell lists (with offsets), __match_any_sync for the order alone.
  using pvec::impl::TileMatch;
  CHECK(pvec::impl::tile_match(true) == TileMatch::shared_or);
  CHECK(pvec::impl::tile_match(false) == TileMatch::match_any);
}

TEST_CASE("tile plan: which keys the tiled sort takes", "[neighbors][plan]") {
  using pvec::impl::tile_plan;
  // 16 bits or fewer: CUB needs at most two passes anyway.
  CHECK_FALSE(tile_plan(1 << 20, 1 << 16).use);
  CHECK_FALSE(tile_plan(1 << 20, 1000).use);
  // Fewer than 2^15 items: the atomic path's size.
  CHECK_FALSE(tile_plan((1 << 15) - 1, 1 << 20).use);
  // Many items per bucket: even the narrowest tile would be crowded.
  CHECK_FALSE(tile_plan(int64_t{1} << 30, (1 << 17) + 1).use);  // 8192 per bucket, 2 per tile
  // The cell list benchmark at 10^8 (200^3 cells, 23 bits): CUB sorts bits 7-22 (two passes),
  // tiles of 256 cells (~3,000 items).
  const TilePlan cl = tile_plan(100000000, 8000000);
  REQUIRE(cl.use);
  CHECK(cl.end_bit == 23);
  CHECK(cl.low_bits == 7);
  CHECK(cl.tile_bits == 8);
  CHECK(cl.tiles == 31250);
  // The locality sort's Morton keys at 10^8 (2^24 buckets): bits 8-23 by CUB, tiles of 256.
  const TilePlan mo = tile_plan(100000000, int64_t{1} << 24);
  REQUIRE(mo.use);
  CHECK(mo.low_bits == 8);
  CHECK(mo.tile_bits == 8);
  CHECK(mo.tiles == 65536);
  // 10^7 in 95^3 cells (20 bits): CUB's two passes over bits 4-19, tiles widened to hold
  // about 4,096 items at most (11.7 per cell: 256 cells would be ~3,000, so 256).
  const TilePlan small = tile_plan(10000000, 857375);
  REQUIRE(small.use);
  CHECK(small.low_bits == 4);
  CHECK(small.tile_bits == 8);
  // Dense buckets: tiles widen only while they are expected to fit the registers (17 bits, 153
  // per bucket: tiles of 16 buckets hold ~2,440, 32 would hold ~4,880).
  const TilePlan dense = tile_plan(10000000, (1 << 16) + 1);
  REQUIRE(dense.use);
  CHECK(dense.end_bit == 17);
  CHECK(dense.low_bits == 1);
  CHECK(dense.tile_bits == 4);
  CHECK(dense.tiles == ((1 << 16) + 1 + 15) / 16);
  // Every plan it takes: CUB sorts whole 8-bit digits above the low bits, and the tiles cover
  // every bucket.
  for (int64_t nb : {int64_t{65537}, int64_t{1} << 20, int64_t{3000001}, int64_t{1} << 27,
                     (int64_t{1} << 30) + 5})
    for (int64_t n : {int64_t{1} << 15, int64_t{1} << 22, int64_t{1} << 28}) {
      const TilePlan p = tile_plan(n, nb);
      if (!p.use) continue;
      INFO("n " << n << ", nb " << nb);
      CHECK((p.end_bit - p.low_bits) % 8 == 0);
      CHECK(p.low_bits >= 1);
      CHECK(p.low_bits <= 8);
      CHECK(p.tile_bits >= p.low_bits);
      CHECK(p.tile_bits <= 8);
      CHECK(p.tiles * (int64_t{1} << p.tile_bits) >= nb);
      CHECK((p.tiles - 1) * (int64_t{1} << p.tile_bits) < nb);
    }
}

#if defined(PVEC_TEST_CUDA)
using pvec::impl::BucketScratch;
using pvec::impl::Exec;
using pvec::impl::MemKind;

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

enum class Via { tile_sort, bucket_sort, bucket_order };

// One sort on the device. Via::tile_sort calls the tiled sort itself (*took: whether it sorted,
// or refused a crowded tile); the others go through bucket_sort (offsets, order, split) or
// bucket_order (order only; offsets and split left at the fill value). Output arrays start
// filled with -7 so that an entry never written shows.
Result device_sort(const std::vector<int32_t>& keys, int64_t nb, int64_t n_split, Via via,
                   BucketScratch& s, bool* took = nullptr) {
  const int64_t n = static_cast<int64_t>(keys.size());
  int32_t* k = device_copy(keys);
  std::vector<int32_t> fill_nb(nb + 1, -7), fill_n(n, -7);
  int32_t* off = device_copy(fill_nb);
  int32_t* split = device_copy(fill_nb);
  int32_t* order = device_copy(fill_n);
  const Exec ex{true, nullptr};
  if (via == Via::tile_sort) {
    const TilePlan plan = pvec::impl::tile_plan(n, nb);
    REQUIRE(plan.use);
    *took = pvec::impl::tile_sort(ex, plan, k, n, nb, nullptr, order, off, s);
  } else if (via == Via::bucket_sort) {
    pvec::impl::bucket_sort(ex, k, n, nb, n_split, off, order, split, s);
  } else {
    pvec::impl::ScratchBuffer offsets_scratch;
    offsets_scratch.set_kind(MemKind::device);
    pvec::impl::bucket_order(ex, k, n, nb, order, offsets_scratch, s);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  }
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

// Keys the tiled path takes: 0.5-76 items per bucket over 2^16 + 1 to 2^27 buckets.
std::vector<Case> suited_cases() {
  std::vector<Case> c;
  c.push_back({"random, 19 bits, 12 per bucket", random_keys(6000000, 500000, 1), 500000});
  c.push_back(
      {"random, 23 bits, 0.5 per bucket", random_keys(4000000, (1 << 23) - 3, 2), (1 << 23) - 3});
  c.push_back({"random, 24 bits (Morton-like)", random_keys(8000000, 1 << 24, 3), 1 << 24});
  c.push_back({"random, 17 bits, 76 per bucket, n odd", random_keys(5000001, (1 << 16) + 1, 4),
               (1 << 16) + 1});
  c.push_back({"random, 26 bits (four CUB passes become three)",
               random_keys(3000000, (1 << 25) + 12345, 5), (1 << 25) + 12345});
  {
    std::vector<int32_t> k = random_keys(3000000, 1 << 20, 6);
    std::sort(k.begin(), k.end());
    c.push_back({"in order", k, 1 << 20});
    {
      // In order but for one swap of neighbours every 40 keys (a re-sort's rows): most of a
      // warp's 32 rows share a bucket with others.
      std::vector<int32_t> near = k;
      for (size_t i = 0; i + 1 < near.size(); i += 40) std::swap(near[i], near[i + 1]);
      c.push_back({"nearly in order", near, 1 << 20});
    }
    std::reverse(k.begin(), k.end());
    c.push_back({"descending", k, 1 << 20});
  }
  {
    // Only every 64th bucket holds items: many empty buckets, tiles with a few buckets used.
    std::vector<int32_t> k = random_keys(1 << 21, 1 << 21, 7);
    for (auto& x : k) x &= ~63;
    c.push_back({"every 64th bucket", k, 1 << 21});
  }
  {
    // Items crowd the first and last buckets (ties across a tile's stretches of warps), the
    // rest random; the last bucket is nb - 1.
    const int64_t nb = (1 << 19) + 77;
    std::vector<int32_t> k = random_keys(2000000, nb, 8);
    for (int64_t i = 0; i < 1500; ++i)
      k[i * 101] = 0, k[i * 103 + 1] = static_cast<int32_t>(nb - 1);
    c.push_back({"crowded first and last buckets", k, nb});
  }
  {
    // Three buckets per tile in random order: most of a warp's 32 rows share a bucket with
    // others, and the buckets interleave (ranks within a warp's rows matter).
    const int64_t nb = 1 << 20;
    std::vector<int32_t> k = random_keys(2000000, nb, 10);
    std::mt19937_64 g(10);
    for (auto& x : k) x = (x & ~255) | static_cast<int32_t>(g() % 3) * 85;
    c.push_back({"three buckets per tile, interleaved", k, nb});
  }
  {
    // One tile holds 20,000 items (above the 4,096 kept in registers, below kTileCap): read
    // twice; one of its buckets holds 9,000 of them.
    const int64_t nb = 1 << 22;
    std::vector<int32_t> k = random_keys(2000000, nb, 9);
    std::mt19937_64 g(99);
    for (int i = 0; i < 20000; ++i)
      k[g() % k.size()] = i < 9000 ? 5000 * 64 + 3 : 5000 * 64 + static_cast<int32_t>(g() % 64);
    c.push_back({"a tile of 20,000 items", k, nb});
  }
  return c;
}

}  // namespace

TEST_CASE("tiled sort gives the host's arrays", "[neighbors][gpu]") {
  BucketScratch s;
  s.set_kind(MemKind::device);
  for (const Case& c : suited_cases()) {
    const int64_t n = static_cast<int64_t>(c.keys.size());
    INFO(c.name << ", n " << n << ", nb " << c.nb);
    REQUIRE(pvec::impl::tile_plan(n, c.nb).use);
    const Result want = host_sort(c.keys, c.nb, n);
    // tile_sort itself (with offsets: shared words), and bucket_order (the order alone:
    // __match_any_sync).
    bool took = false;
    const Result direct = device_sort(c.keys, c.nb, n, Via::tile_sort, s, &took);
    REQUIRE(took);
    CHECK(first_difference("offsets", direct.offsets, want.offsets) == "");
    CHECK(first_difference("order", direct.order, want.order) == "");
    const Result ordered = device_sort(c.keys, c.nb, n, Via::bucket_order, s);
    CHECK(first_difference("order (bucket_order)", ordered.order, want.order) == "");
    // bucket_sort (cell lists) takes the tiled sort, as bucket_order does.
    for (int64_t n_split : {n, int64_t{0}, n / 3, n - 1}) {
      INFO("split " << n_split);
      const Result w = n_split == n ? want : host_sort(c.keys, c.nb, n_split);
      const Result got = device_sort(c.keys, c.nb, n_split, Via::bucket_sort, s);
      CHECK(first_difference("offsets", got.offsets, w.offsets) == "");
      CHECK(first_difference("order", got.order, w.order) == "");
      CHECK(first_difference("split_offsets", got.split, w.split) == "");
    }
  }
}

TEST_CASE("tiled sort refuses a crowded tile, and bucket_sort still sorts", "[neighbors][gpu]") {
  BucketScratch s;
  s.set_kind(MemKind::device);
  const int64_t nb = 1 << 22, n = 3000000;  // tiles of 256 buckets, ~180 items each
  for (int crowd : {static_cast<int>(pvec::impl::kTileCap) + 1, 200000}) {
    std::vector<int32_t> k = random_keys(n, nb, 11 + static_cast<uint64_t>(crowd));
    std::mt19937_64 g(crowd);
    for (int i = 0; i < crowd;) {  // crowd distinct items into tile 40 (buckets 10240-10495)
      int32_t& x = k[g() % n];
      if ((x >> 8) == 40) continue;
      x = 40 * 256 + static_cast<int32_t>(g() % 256);
      ++i;
    }
    INFO("crowd " << crowd);
    REQUIRE(pvec::impl::tile_plan(n, nb).use);
    REQUIRE(pvec::impl::tile_plan(n, nb).tile_bits == 8);
    bool took = true;
    device_sort(k, nb, n, Via::tile_sort, s, &took);
    CHECK_FALSE(took);
    const Result want = host_sort(k, nb, n / 2);
    const Result got = device_sort(k, nb, n / 2, Via::bucket_sort, s);
    CHECK(first_difference("offsets", got.offsets, want.offsets) == "");
    CHECK(first_difference("order", got.order, want.order) == "");
    CHECK(first_difference("split_offsets", got.split, want.split) == "");
    CHECK(first_difference("order (bucket_order)",
                           device_sort(k, nb, n, Via::bucket_order, s).order, want.order) == "");
  }
}
#endif
