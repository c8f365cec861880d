// Sets an environment variable for a scope (nullptr: unset), for tests that choose a path
// through the library's diagnostic variables (PVEC_BUCKET_SORT, PVEC_VERLET_PASS, ...).
#pragma once

#include <cstdlib>

namespace pvec_test {

struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (value != nullptr)
      setenv(n, value, 1);
    else
      unsetenv(n);
  }
  ~ScopedEnv() { unsetenv(name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace pvec_test
