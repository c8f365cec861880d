// What the tests of pvec.hpp share.
#pragma once

#include "catch_compat.hpp"

#include <pvec.hpp>

#include <string>

namespace hpp_test {

// Runs f and requires it to throw pvec::error with status want; returns the message.
template <class F>
std::string require_error(F f, pvec_status want) {
  try {
    f();
  } catch (const pvec::error& e) {
    CHECK(e.status() == want);
    return e.what();
  }
  FAIL("no pvec::error thrown; expected " << pvec_status_string(want));
  return "";
}

}  // namespace hpp_test
