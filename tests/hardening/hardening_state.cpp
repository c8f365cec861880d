// Calls in the wrong library state (before pvec_init, after pvec_finalize), which need a
// process of their own: the shared test main starts pvec before any test runs. Executes the
// rows of state_rows.hpp in order and prints "state: N passed, N failed".
#include "state_rows.hpp"

#include <cstdio>
#include <string>

namespace {

// Runs one row; returns true when it behaved as documented.
bool run_row(const hardening::StateRow& r) {
  const pvec_status s = r.call();
  const std::string msg = pvec_last_error();
  std::string problem;
  if (s != r.want) {
    problem = std::string("got ") + pvec_status_string(s) + ", want " + pvec_status_string(r.want);
  } else if (s != PVEC_SUCCESS && msg.empty()) {
    problem = "no pvec_last_error message";
  } else if (s != PVEC_SUCCESS && msg.find('\n') != std::string::npos) {
    problem = "message is not one line";
  } else if (s == PVEC_SUCCESS && !msg.empty()) {
    problem = "pvec_last_error not cleared by a successful call";
  } else if (r.extra && !r.extra()) {
    problem = "result check failed";
  }
  std::printf("%s %s (%s)%s%s [%s]\n", problem.empty() ? "ok  " : "FAIL", r.fn, r.what,
              problem.empty() ? "" : ": ", problem.c_str(), msg.c_str());
  return problem.empty();
}

}  // namespace

int main(int argc, char** argv) {
  hardening::StateHandles h;
  int passed = 0, failed = 0;
  auto run = [&](const std::vector<hardening::StateRow>& rows) {
    for (const auto& r : rows) (run_row(r) ? passed : failed) += 1;
  };
  run(hardening::rows_before_init(h));
  run(hardening::rows_init(h, &argc, &argv));
  run(hardening::rows_after_finalize(h));
  std::printf("state: %d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
