// pvec_vector_reduce and pvec_vector_allreduce at 1-4 ranks, on the host and the device path:
// every dtype and shape of the full schema and the positions, ADD / MIN / MAX against a
// reference over every rank's particles (values are small integers, so every sum is exact in
// any order), ranks without particles, NaN on one rank, the caller's values of every dtype,
// and what is refused: a bad op, property, flag or pointer, and ranks that disagree.
#include "dist_util.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace dist;

namespace {

// A small integer for (id, prop, component): exact in every dtype and in double sums.
int64_t small_value(int64_t id, int prop, int64_t c) {
  return static_cast<int64_t>(mix(static_cast<uint64_t>(id) * 131 + prop * 17 + c) % 2001) - 1000;
}

void fill(pvec_vector_t v, const Props& p) {
  for (int prop : p.values) {
    const Column col = column(v, prop);
    for (int64_t i = 0; i < n_local(v); ++i)
      for (int64_t c = 0; c < col.ncomp; ++c) {
        const int64_t x = small_value(id_of(v, p, i), prop, c);
        by_dtype(col.dtype, [&](auto t) {
          using T = decltype(t);
          const T y = std::is_unsigned<T>::value ? static_cast<T>(x + 1000) : static_cast<T>(x);
          std::memcpy(col.at(i, c), &y, sizeof y);
        });
      }
  }
}

// The reference, in the widened type, from every rank's values (gathered).
template <class W>
std::vector<W> reference(pvec_vector_t v, int prop, pvec_reduce_op op) {
  const Column col = column(v, prop);
  std::vector<double> mine;  // every value is an integer below 2^53 in magnitude: exact
  for (int64_t i = 0; i < n_local(v); ++i)
    for (int64_t c = 0; c < col.ncomp; ++c)
      by_dtype(col.dtype, [&](auto t) {
        using T = decltype(t);
        T y;
        std::memcpy(&y, col.at(i, c), sizeof y);
        mine.push_back(static_cast<double>(y));
      });
  std::vector<int64_t> counts;
  const std::vector<double> all = allgather(mine, &counts);
  std::vector<W> out(static_cast<size_t>(col.ncomp));
  for (int64_t c = 0; c < col.ncomp; ++c) {
    bool any = false;
    double acc = 0;
    for (size_t k = static_cast<size_t>(c); k < all.size(); k += static_cast<size_t>(col.ncomp)) {
      const double y = all[k];
      if (op == PVEC_REDUCE_ADD)
        acc += y;
      else if (!any || (op == PVEC_REDUCE_MIN ? y < acc : y > acc))
        acc = y;
      any = true;
    }
    if (!any && op != PVEC_REDUCE_ADD) {
      out[static_cast<size_t>(c)] =
          op == PVEC_REDUCE_MIN
              ? (std::is_floating_point<W>::value ? std::numeric_limits<W>::infinity()
                                                  : std::numeric_limits<W>::max())
              : (std::is_floating_point<W>::value ? -std::numeric_limits<W>::infinity()
                                                  : std::numeric_limits<W>::lowest());
    } else {
      out[static_cast<size_t>(c)] = static_cast<W>(acc);
    }
  }
  return out;
}

template <class W>
void check_prop(pvec_vector_t v, int prop, Path path, Failures& f) {
  for (pvec_reduce_op op : {PVEC_REDUCE_ADD, PVEC_REDUCE_MIN, PVEC_REDUCE_MAX}) {
    const Column col = column(v, prop);
    std::vector<W> got(static_cast<size_t>(col.ncomp) + 1, W(77));
    const pvec_status s = pvec_vector_reduce(v, prop, op, flag_of(path), got.data());
    if (s != PVEC_SUCCESS) {
      f.addf("prop ", prop, " op ", op, ": ", pvec_status_string(s), ": ", pvec_last_error());
      continue;
    }
    const std::vector<W> want = reference<W>(v, prop, op);
    // Property values are small integers: exact in any order. Positions are not: a sum over
    // the ranks in another order may differ in the last bits.
    const bool exact = prop != PVEC_POS || op != PVEC_REDUCE_ADD;
    for (int64_t c = 0; c < col.ncomp; ++c)
      if (exact ? !(got[static_cast<size_t>(c)] == want[static_cast<size_t>(c)])
                : !(std::abs(double(got[static_cast<size_t>(c)] - want[static_cast<size_t>(c)])) <=
                    1e-12 * (1 + std::abs(double(want[static_cast<size_t>(c)])))))
        f.addf("prop ", prop, " op ", op, " component ", c, ": ", got[static_cast<size_t>(c)],
               ", want ", want[static_cast<size_t>(c)]);
    if (got.back() != W(77)) f.addf("prop ", prop, ": a value written beyond ncomp");
  }
}

void check_all(pvec_vector_t v, const Props& p, Path path, Failures& f) {
  if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
  for (int prop : p.all) {
    const pvec_dtype t = column(v, prop).dtype;
    if (t == PVEC_FLOAT32 || t == PVEC_FLOAT64)
      check_prop<double>(v, prop, path, f);
    else if (t == PVEC_INT32 || t == PVEC_INT64)
      check_prop<int64_t>(v, prop, path, f);
    else
      check_prop<uint64_t>(v, prop, path, f);
  }
  check_prop<double>(v, PVEC_POS, path, f);
}

}  // namespace

TEST_CASE("reductions of every property equal the reference over all ranks", "[reduce]") {
  for (Path path : {Path::host, Path::device})
    for (int64_t per_rank : {int64_t{0}, int64_t{1}, int64_t{257}}) {
      INFO(name_of(path) << " path, " << per_rank << " per rank");
      Failures f;
      Setup s;
      s.n_per_rank = per_rank;
      Props p;
      pvec_vector_t v = make_mapped(s, &p);
      fill(v, p);
      check_all(v, p, path, f);
      f.require("reductions");
      DIST_OK(pvec_vector_destroy(v));
    }
}

TEST_CASE("a NaN on one rank makes the result NaN on every rank", "[reduce]") {
  for (Path path : {Path::host, Path::device}) {
    Setup s;
    s.n_per_rank = 20;
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    fill(v, p);
    const Column col = column(v, p.f32);
    if (rank() == size() - 1 && n_local(v) > 0) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(col.at(n_local(v) / 2, 0), &nan, sizeof nan);
    }
    if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
    const bool any = sum(rank() == size() - 1 && n_local(v) > 0 ? 1 : 0) > 0;
    for (pvec_reduce_op op : {PVEC_REDUCE_ADD, PVEC_REDUCE_MIN, PVEC_REDUCE_MAX}) {
      double r = 0;
      DIST_OK(pvec_vector_reduce(v, p.f32, op, flag_of(path), &r));
      DIST_REQUIRE(std::isnan(r) == any);
    }
    DIST_OK(pvec_vector_destroy(v));
  }
}

TEST_CASE("allreduce of the caller's values, every dtype", "[reduce]") {
  Setup s;
  s.n_per_rank = 3;
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  const int r = rank(), n = size();
  for (pvec_dtype t :
       {PVEC_FLOAT32, PVEC_FLOAT64, PVEC_INT32, PVEC_INT64, PVEC_UINT32, PVEC_UINT64}) {
    by_dtype(t, [&](auto x) {
      using T = decltype(x);
      for (pvec_reduce_op op : {PVEC_REDUCE_ADD, PVEC_REDUCE_MIN, PVEC_REDUCE_MAX}) {
        INFO("dtype " << pvec_dtype_name(t) << " op " << op);
        std::vector<T> vals = {T(r + 1), T(10 * (n - r)), T(7)};
        DIST_OK(pvec_vector_allreduce(v, vals.data(), 3, t, op));
        const T want0 = op == PVEC_REDUCE_ADD   ? T(n * (n + 1) / 2)
                        : op == PVEC_REDUCE_MIN ? T(1)
                                                : T(n);
        const T want1 = op == PVEC_REDUCE_ADD   ? T(10 * n * (n + 1) / 2)
                        : op == PVEC_REDUCE_MIN ? T(10)
                                                : T(10 * n);
        const T want2 = op == PVEC_REDUCE_ADD ? T(7 * n) : T(7);
        DIST_REQUIRE(vals[0] == want0 && vals[1] == want1 && vals[2] == want2);
      }
    });
  }
  // NaN on one rank only: NaN everywhere, for MIN as for ADD.
  for (pvec_reduce_op op : {PVEC_REDUCE_ADD, PVEC_REDUCE_MIN}) {
    double x[2] = {1.0, r == 0 ? std::numeric_limits<double>::quiet_NaN() : 2.0};
    DIST_OK(pvec_vector_allreduce(v, x, 2, PVEC_FLOAT64, op));
    DIST_REQUIRE(!std::isnan(x[0]) && std::isnan(x[1]));
  }
  DIST_OK(pvec_vector_allreduce(v, nullptr, 0, PVEC_FLOAT64, PVEC_REDUCE_ADD));
  DIST_OK(pvec_vector_destroy(v));
}

TEST_CASE("what reductions refuse, on every rank, changing nothing", "[reduce][bad_input]") {
  Setup s;
  s.n_per_rank = 10;
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  double out[64];
  for (double& o : out) o = -5;
  auto refused = [&](pvec_status st, pvec_status want) {
    const std::string e = pvec_last_error();
    if (st != want) FAIL_CHECK("rank " << rank() << ": " << pvec_status_string(st) << ": " << e);
    DIST_REQUIRE(st == want && !e.empty());
  };
  refused(pvec_vector_reduce(v, p.f64, PVEC_REDUCE_REPLACE, 0, out), PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_reduce(v, p.f64, static_cast<pvec_reduce_op>(9), 0, out),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_reduce(v, p.f64, PVEC_REDUCE_ADD, 0, nullptr), PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_reduce(v, p.f64, PVEC_REDUCE_ADD, 1u << 9, out), PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_reduce(v, 999, PVEC_REDUCE_ADD, 0, out), PVEC_ERROR_OUT_OF_RANGE);
  refused(pvec_vector_reduce(nullptr, 0, PVEC_REDUCE_ADD, 0, out), PVEC_ERROR_INVALID_HANDLE);
  DIST_REQUIRE(out[0] == -5);
  double vals[2] = {1, 2};
  refused(pvec_vector_allreduce(v, vals, -1, PVEC_FLOAT64, PVEC_REDUCE_ADD),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_allreduce(v, nullptr, 2, PVEC_FLOAT64, PVEC_REDUCE_ADD),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_allreduce(v, vals, 2, static_cast<pvec_dtype>(0), PVEC_REDUCE_ADD),
          PVEC_ERROR_INVALID_ARGUMENT);
  refused(pvec_vector_allreduce(v, vals, 2, PVEC_FLOAT64, PVEC_REDUCE_REPLACE),
          PVEC_ERROR_INVALID_ARGUMENT);
  DIST_REQUIRE(vals[0] == 1 && vals[1] == 2);
  if (size() > 1) {
    // Ranks that disagree (count, property or op): every rank refuses, nothing combined.
    refused(pvec_vector_allreduce(v, vals, rank() == 0 ? 1 : 2, PVEC_FLOAT64, PVEC_REDUCE_ADD),
            PVEC_ERROR_INVALID_ARGUMENT);
    DIST_REQUIRE(vals[0] == 1 && vals[1] == 2);
    refused(pvec_vector_reduce(v, rank() == 0 ? p.f64 : p.f32, PVEC_REDUCE_ADD, 0, out),
            PVEC_ERROR_INVALID_ARGUMENT);
    refused(pvec_vector_reduce(v, p.f64, rank() == 0 ? PVEC_REDUCE_MIN : PVEC_REDUCE_MAX, 0, out),
            PVEC_ERROR_INVALID_ARGUMENT);
    DIST_REQUIRE(out[0] == -5);
  }
  DIST_OK(pvec_vector_destroy(v));
}
