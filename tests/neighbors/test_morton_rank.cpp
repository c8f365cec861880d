// White box: morton_rank (src/neighbors/morton_rank.hpp) is the position of a cell along the Z
// curve among the grid's cells: for grids of every shape up to 2^5 cells per side in 2D and 3D,
// and a long thin one, the ranks are a permutation of [0, ncells) in the order of the cells'
// interleaved codes.
#include "catch_compat.hpp"

#include "neighbors/morton_rank.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace {

uint64_t z_code(const int64_t* c, int dim, int bits) {
  uint64_t key = 0;
  for (int k = bits - 1; k >= 0; --k)
    for (int d = 0; d < dim; ++d) key = (key << 1) | ((c[d] >> k) & 1);
  return key;
}

template <int DIM>
void check_grid(const int64_t* dims) {
  int64_t n = 1, widest = 1;
  for (int d = 0; d < DIM; ++d) {
    n *= dims[d];
    widest = std::max(widest, dims[d]);
  }
  int bits = 1;
  while ((int64_t{1} << bits) < widest) ++bits;
  std::vector<int32_t> rank(static_cast<size_t>(n));
  pvec::impl::MortonRankTable<DIM> table{
      {dims[0], dims[1], DIM > 2 ? dims[2] : 1}, bits, rank.data()};
  for (int64_t c = 0; c < n; ++c) table(c);
  // The reference: sort the cells by their codes.
  std::vector<uint64_t> code(static_cast<size_t>(n));
  for (int64_t cell = 0; cell < n; ++cell) {
    int64_t c[3] = {0, 0, 0}, r = cell;
    for (int d = DIM - 1; d >= 0; --d) {
      c[d] = r % dims[d];
      r /= dims[d];
    }
    code[static_cast<size_t>(cell)] = z_code(c, DIM, bits);
  }
  std::vector<int64_t> by_code(static_cast<size_t>(n));
  std::iota(by_code.begin(), by_code.end(), 0);
  std::sort(by_code.begin(), by_code.end(), [&](int64_t a, int64_t b) {
    return code[static_cast<size_t>(a)] < code[static_cast<size_t>(b)];
  });
  for (int64_t k = 0; k < n; ++k)
    if (rank[static_cast<size_t>(by_code[static_cast<size_t>(k)])] != k) {
      FAIL_CHECK("cell " << by_code[static_cast<size_t>(k)] << " is " << k
                         << "th along the curve, morton_rank says "
                         << rank[static_cast<size_t>(by_code[static_cast<size_t>(k)])]);
      return;
    }
}

}  // namespace

TEST_CASE("morton_rank orders a grid's cells along the Z curve", "[neighbors][morton]") {
  for (int64_t a = 1; a <= 32; a += (a < 8 ? 1 : 7))
    for (int64_t b = 1; b <= 32; b += (b < 8 ? 1 : 5)) {
      INFO("2D " << a << " x " << b);
      const int64_t dims[3] = {a, b, 1};
      check_grid<2>(dims);
      for (int64_t c : {int64_t{1}, int64_t{3}, int64_t{9}, int64_t{16}}) {
        INFO("3D " << a << " x " << b << " x " << c);
        const int64_t d3[3] = {a, b, c};
        check_grid<3>(d3);
      }
    }
  const int64_t thin[3] = {530, 30, 30};
  check_grid<3>(thin);
  const int64_t thin2[3] = {3001, 30, 1};
  check_grid<2>(thin2);
}
