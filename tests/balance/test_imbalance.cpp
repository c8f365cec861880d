// pvec_vector_get_imbalance at 1-4 ranks, on the host and the device path: counts and float32 /
// float64 weights against a reference from every rank's particles (weights are small integers,
// so every sum is exact in any order), no particles anywhere, everything on one rank, and what
// is refused on every rank with the outputs untouched: a negative, NaN or infinite weight on
// one rank, a weight of another dtype or shape, the positions, a bad index or flag.
#include "dist_util.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace dist;

namespace {

// Weight of particle id: a small integer, as float32 or float64.
double weight_of(int64_t id) { return static_cast<double>(mix(static_cast<uint64_t>(id)) % 17); }

void set_weights(pvec_vector_t v, const Props& p, int prop) {
  const Column c = column(v, prop);
  for (int64_t i = 0; i < n_local(v); ++i) {
    const double w = weight_of(id_of(v, p, i));
    if (c.dtype == PVEC_FLOAT32) {
      const float f = static_cast<float>(w);
      std::memcpy(c.at(i, 0), &f, sizeof f);
    } else {
      std::memcpy(c.at(i, 0), &w, sizeof w);
    }
  }
}

// max over mean of one value per rank (1 when they add up to 0).
double ratio(double mine) {
  const std::vector<double> all = allgather(std::vector<double>{mine});
  double mx = 0, total = 0;
  for (double x : all) {
    mx = std::max(mx, x);
    total += x;
  }
  return total > 0 ? mx * static_cast<double>(all.size()) / total : 1.0;
}

}  // namespace

TEST_CASE("imbalance of counts and weights equals the reference", "[balance]") {
  for (Path path : {Path::host, Path::device})
    for (int64_t per_rank : {int64_t{0}, int64_t{1}, int64_t{300}}) {
      INFO(name_of(path) << " path, " << per_rank << " per rank");
      Failures f;
      Setup s;
      s.n_per_rank = per_rank;
      Props p;
      pvec_vector_t v = make_mapped(s, &p);
      set_weights(v, p, p.f64);
      set_weights(v, p, p.f32);
      double mine64 = 0;
      for (int64_t i = 0; i < n_local(v); ++i) mine64 += weight_of(id_of(v, p, i));
      if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      const double want_count = ratio(static_cast<double>(n_local(v)));
      const double want_weight = ratio(mine64);
      double c = -1, w = -1;
      DIST_OK(pvec_vector_get_imbalance(v, PVEC_NO_WEIGHT, flag_of(path), &c, &w));
      if (c != want_count || w != want_count)
        f.addf("counts: ", c, " and ", w, ", want ", want_count);
      for (int prop : {p.f64, p.f32}) {
        c = w = -1;
        DIST_OK(pvec_vector_get_imbalance(v, prop, flag_of(path), &c, &w));
        if (c != want_count || w != want_weight)
          f.addf("weight ", prop, ": ", c, " and ", w, ", want ", want_count, " and ", want_weight);
      }
      DIST_OK(pvec_vector_get_imbalance(v, p.f64, flag_of(path), nullptr, nullptr));
      f.require("imbalance");
      DIST_OK(pvec_vector_destroy(v));
    }
}

TEST_CASE("everything on one rank: the imbalance is the rank count", "[balance]") {
  Setup s;
  s.n_per_rank = 50;
  Props p;
  pvec_vector_t v = make_mapped(s, &p);
  const int64_t keep = rank() == 0 ? n_local(v) : 0;
  DIST_OK(pvec_vector_resize(v, keep));  // the other ranks drop theirs
  set_weights(v, p, p.f64);
  double c = 0, w = 0;
  DIST_OK(pvec_vector_get_imbalance(v, p.f64, 0, &c, &w));
  const bool any = sum(keep) > 0;
  DIST_REQUIRE(c == (any ? static_cast<double>(size()) : 1.0));
  DIST_OK(pvec_vector_destroy(v));
}

TEST_CASE("bad weights and arguments are refused on every rank, outputs untouched", "[balance]") {
  for (Path path : {Path::host, Path::device}) {
    INFO(name_of(path) << " path");
    Setup s;
    s.n_per_rank = 40;
    Props p;
    pvec_vector_t v = make_mapped(s, &p);
    set_weights(v, p, p.f64);
    const Column col = column(v, p.f64);
    const int last = size() - 1;
    for (double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), HUGE_VAL}) {
      INFO("bad weight " << bad);
      double keep = 0;
      if (rank() == last && n_local(v) > 0) {
        std::memcpy(&keep, col.at(n_local(v) - 1, 0), sizeof keep);
        std::memcpy(col.at(n_local(v) - 1, 0), &bad, sizeof bad);
      }
      if (path == Path::device) DIST_OK(pvec_host_to_device(v, nullptr, 0));
      double c = -7, w = -7;
      const pvec_status st = pvec_vector_get_imbalance(v, p.f64, flag_of(path), &c, &w);
      const std::string message = pvec_last_error();
      const bool planted = sum(rank() == last && n_local(v) > 0 ? 1 : 0) > 0;
      if (planted) {
        DIST_REQUIRE(st == PVEC_ERROR_INVALID_ARGUMENT);
        DIST_REQUIRE(message.find("on rank " + std::to_string(last)) != std::string::npos);
        DIST_REQUIRE((c == -7 && w == -7));
      } else {
        DIST_REQUIRE(st == PVEC_SUCCESS);
      }
      if (rank() == last && n_local(v) > 0)
        std::memcpy(col.at(n_local(v) - 1, 0), &keep, sizeof keep);
    }
    struct Bad {
      const char* what;
      int prop;
      unsigned flags;
      pvec_status want;
    };
    for (const Bad b : {Bad{"int64 weight", p.id, 0u, PVEC_ERROR_DTYPE_MISMATCH},
                        Bad{"vector weight", p.v3, 0u, PVEC_ERROR_INVALID_ARGUMENT},
                        Bad{"positions", PVEC_POS, 0u, PVEC_ERROR_INVALID_ARGUMENT},
                        Bad{"index 99", 99, 0u, PVEC_ERROR_OUT_OF_RANGE},
                        Bad{"index -3", -3, 0u, PVEC_ERROR_OUT_OF_RANGE},
                        Bad{"flags", PVEC_NO_WEIGHT, 1u << 20, PVEC_ERROR_INVALID_ARGUMENT}}) {
      INFO(b.what);
      double c = -7, w = -7;
      DIST_REQUIRE(pvec_vector_get_imbalance(v, b.prop, b.flags | flag_of(path), &c, &w) == b.want);
      DIST_REQUIRE((c == -7 && w == -7));
    }
    double c = 0;
    DIST_REQUIRE(pvec_vector_get_imbalance(nullptr, PVEC_NO_WEIGHT, 0, &c, nullptr) ==
                 PVEC_ERROR_INVALID_HANDLE);
    DIST_OK(pvec_vector_destroy(v));
  }
}
