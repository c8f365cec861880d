// Sets a run-time option (pvec_options_set) for a scope: value nullptr means the default. The
// option's state before is restored at the end of the scope.
#pragma once

#include <pvec.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace pvec_test {

class ScopedOption {
 public:
  ScopedOption(const char* name, const char* value) : name_(name) {
    int n = 0;
    pvec_options_get_count(&n);
    for (int k = 0; k < n; ++k) {
      pvec_option_info o = PVEC_OPTION_INFO_INIT;
      if (pvec_options_get_info(k, &o) == PVEC_SUCCESS && std::strcmp(o.name, name) == 0) {
        found_ = true;
        was_default_ = o.source == PVEC_OPTION_DEFAULT;
        before_ = o.value < 0 ? std::string("auto") : std::to_string(o.value);
      }
    }
    if (!found_) throw std::logic_error(std::string("no pvec option ") + name);
    if (pvec_options_set(name, value) != PVEC_SUCCESS)
      throw std::logic_error(std::string("pvec_options_set: ") + pvec_last_error());
  }
  ~ScopedOption() { pvec_options_set(name_, was_default_ ? nullptr : before_.c_str()); }
  ScopedOption(const ScopedOption&) = delete;
  ScopedOption& operator=(const ScopedOption&) = delete;

 private:
  const char* name_;
  bool found_ = false;
  bool was_default_ = true;
  std::string before_;
};

}  // namespace pvec_test
