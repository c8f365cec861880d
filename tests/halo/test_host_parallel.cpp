// White-box test of the host path's parallel loops (backend/host_parallel.hpp) and of the host
// pack (exchange/row_kernels_host.hpp): at 1-5 threads (forced, beyond the cores too) and sizes
// around the range boundaries, host_select gives the serial loop's indices in order, host_for
// and host_for_spread visit every item once, and pack_rows_host writes exactly the bytes PackRows
// writes, entry by entry, over blocks of several peers, own images (direct rows) and periodic
// shifts.
#include "backend/host_parallel.hpp"
#include "exchange/row_kernels_host.hpp"
#include "exchange/row_kernels.cuh"

#include "catch_compat.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace pvec::impl;

namespace {

struct Threads {  // forces a thread count for one scope
  explicit Threads(int t) { force_host_threads(t); }
  ~Threads() { force_host_threads(0); }
};

const int64_t kSizes[] = {0, 1, 7, kHostGrain - 1, kHostGrain, 2 * kHostGrain + 3, 100003};

}  // namespace

TEST_CASE("host_select keeps the serial order at any thread count", "[host_parallel]") {
  for (int narrow = 0; narrow < 2; ++narrow)
    for (int64_t n : kSizes)
      for (int t = 1; t <= 5; ++t) {
        Threads th(t);
        std::mt19937 rng(static_cast<uint32_t>(n * 7 + t));
        std::vector<unsigned char> keep(static_cast<size_t>(n));
        for (auto& k : keep) k = (rng() % 5 == 0) ? 1 : 0;  // 20%, scattered
        std::vector<int64_t> want;
        for (int64_t i = 0; i < n; ++i)
          if (keep[i]) want.push_back(i);
        std::vector<int64_t> wide(static_cast<size_t>(n) + 1, -1);
        std::vector<int32_t> thin(static_cast<size_t>(n) + 1, -1);
        const IndexList out{narrow ? static_cast<void*>(thin.data()) : wide.data(), narrow != 0};
        const int64_t c = host_select(
            n, [&](int64_t i) { return keep[i] != 0; }, out);
        REQUIRE(c == static_cast<int64_t>(want.size()));
        for (int64_t j = 0; j < c; ++j) REQUIRE(out[j] == want[j]);
      }
}

TEST_CASE("host_for visits every item once", "[host_parallel]") {
  for (int64_t n : kSizes)
    for (int t = 1; t <= 5; ++t) {
      Threads th(t);
      std::vector<int> hits(static_cast<size_t>(n), 0);
      host_for(n, [&](int64_t i) { hits[i] += 1; });
      for (int64_t i = 0; i < n; ++i) REQUIRE(hits[i] == 1);
    }
}

TEST_CASE("host_for_spread visits every item once, in runs of its blocks", "[host_parallel]") {
  for (int64_t n : kSizes)
    for (int64_t block : {1, 3, 64, 2048})
      for (int t = 1; t <= 5; ++t) {
        Threads th(t);
        std::vector<int> hits(static_cast<size_t>(n), 0);
        host_for_spread(n, block, [&](int64_t b, int64_t e) {
          REQUIRE(b < e);
          REQUIRE(e <= n);
          // a run never leaves its block (but for the partial last one, kept in place), unless
          // one range holds every item (then in index order)
          if (b < n / block * block && !(b == 0 && e == n)) REQUIRE((e - 1) / block == b / block);
          for (int64_t i = b; i < e; ++i) hits[i] += 1;
        });
        for (int64_t i = 0; i < n; ++i) REQUIRE(hits[i] == 1);
      }
  // The spread: the first tenth of the blocks (movers at the start) falls in every half of the
  // virtual order.
  const SpreadOrder o(1000 * 64, 64);
  int first_half = 0;
  for (int64_t v = 0; v < 500; ++v) {
    int64_t run = 0;
    first_half += o.at(v * 64, run) < 100 * 64 ? 1 : 0;
  }
  CHECK(first_half > 30);
  CHECK(first_half < 70);
}

TEST_CASE("pack_rows_host writes PackRows' bytes", "[host_parallel]") {
  // Particles with 5 float components, the first 3 positions (periodic shifts), capacity cap;
  // P peers, entries sorted by peer with ascending sources, peer `me` the own images.
  const int64_t n = 50000, cap = n + 20000;
  for (int P : {1, 2, 4})
    for (int narrow = 0; narrow < 2; ++narrow)
      for (int t : {1, 2, 3}) {
        Threads th(t);
        std::mt19937 rng(static_cast<uint32_t>(P * 10 + narrow * 100 + t));
        std::vector<float> cols(5 * static_cast<size_t>(cap));
        for (auto& v : cols) v = static_cast<float>(rng() % 100000) * 1e-5f;
        const int me = P - 1;
        std::vector<int64_t> count(P), first(P), off(P);
        std::vector<int32_t> peer;
        std::vector<int64_t> src;
        std::vector<int32_t> shift;
        int64_t total = 0;
        for (int r = 0; r < P; ++r) {
          count[r] = 3000 + 2500 * r + (r == me ? 7 : 0);
          first[r] = total;
          for (int64_t k = 0; k < count[r]; ++k) {
            peer.push_back(r);
            src.push_back((k * 13 + r) % n);
            const int sx = static_cast<int>(rng() % 3) - 1, sy = static_cast<int>(rng() % 3) - 1;
            shift.push_back(static_cast<int32_t>((sx & 0xff) | (sy & 0xff) << 8));
          }
          total += count[r];
        }
        for (int r = 0, at = 0; r < P; ++r) {  // message blocks of 20 bytes per particle
          off[r] = at;
          at += r == me ? 0 : static_cast<int>(count[r] * 20);
        }
        std::vector<int32_t> src32(src.begin(), src.end());
        const IndexList sources{narrow ? static_cast<void*>(src32.data()) : src.data(),
                                narrow != 0};
        RowTable table;
        table.n = 5;
        for (int f = 0; f < 5; ++f) {
          table.row[f] = reinterpret_cast<char*>(cols.data() + f * cap);
          table.msg[f] = 4 * f;
          table.shift[f] = static_cast<int8_t>(f < 3 ? f : -1);
          table.step[f] = f < 3 ? 0.75 + f : 0.0;
        }
        const BlockIndex at{
            P == 1 ? nullptr : peer.data(), off.data(), first.data(), count.data(), me, n};
        const size_t bytes = static_cast<size_t>(total) * 20 + 8;
        std::vector<char> buf_ref(bytes, 0), buf(bytes, 0);
        std::vector<float> cols_ref = cols;
        RowTable table_ref = table;
        for (int f = 0; f < 5; ++f)
          table_ref.row[f] = reinterpret_cast<char*>(cols_ref.data() + f * cap);
        const PackRows<float> ref{table_ref, at, buf_ref.data(), sources, shift.data()};
        for (int64_t j = 0; j < total; ++j) ref(j);
        pack_rows_host<float>(table, at, buf.data(), sources, shift.data(), total);
        REQUIRE(std::memcmp(buf.data(), buf_ref.data(), bytes) == 0);
        REQUIRE(std::memcmp(cols.data(), cols_ref.data(), cols.size() * sizeof(float)) == 0);
      }
}
