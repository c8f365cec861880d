// Wall-clock timing of the distribution calls (pvec_op_stats).
#pragma once

#include <chrono>

namespace pvec::impl {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace pvec::impl
