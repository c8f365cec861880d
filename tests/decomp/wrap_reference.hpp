// The reference of periodic wrapping: x - k L for the integer k that puts it in [lo, hi),
// computed exactly in binary128 (x, L and k L fit: |k| < 2^20) and rounded once to double.
// A result that rounds to hi is lo (pvec.h, pvec_map).
#pragma once

#include <cmath>

namespace pvec_test {

inline double wrap_reference(double x, double lo, double hi) {
  if (x >= lo && x < hi) return x;
  const double L = hi - lo;
  const __float128 X = x, LO = lo, HI = hi, LL = L;
  long k = static_cast<long>(std::floor((x - lo) / L));
  for (int it = 0; it < 4; ++it) {
    const __float128 r = X - static_cast<__float128>(k) * LL;
    if (r < LO)
      --k;
    else if (r >= HI)
      ++k;
    else
      break;
  }
  const double w = static_cast<double>(X - static_cast<__float128>(k) * LL);
  return w >= lo && w < hi ? w : lo;
}

}  // namespace pvec_test
