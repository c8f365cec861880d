// Internal error type: thrown anywhere below the C layer, turned into a pvec_status and a
// last-error message by src/capi. Never crosses the C ABI.
#pragma once

#include <pvec.h>

#include <exception>
#include <sstream>
#include <string>
#include <utility>

namespace pvec::impl {

class Error : public std::exception {
 public:
  Error(pvec_status status, std::string message) : status_(status), message_(std::move(message)) {}
  pvec_status status() const noexcept { return status_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  pvec_status status_;
  std::string message_;
};

// Throw an Error whose message is the concatenation of parts (anything streamable).
template <class... Parts>
[[noreturn]] void fail(pvec_status status, Parts&&... parts) {
  std::ostringstream os;
  (os << ... << std::forward<Parts>(parts));
  throw Error(status, os.str());
}

}  // namespace pvec::impl
