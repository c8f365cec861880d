// The run-time options (pvec.h section 2): the table, pvec_options_set and what it refuses,
// and the text a run prints. What pvec_init reads from the environment: options_env.c.
#include "catch_compat.hpp"
#include "capi_util.hpp"
#include "scoped_option.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

namespace {

pvec_option_info info_of(const char* name) {
  int n = 0;
  REQUIRE(pvec_options_get_count(&n) == PVEC_SUCCESS);
  for (int k = 0; k < n; ++k) {
    pvec_option_info o = PVEC_OPTION_INFO_INIT;
    REQUIRE(pvec_options_get_info(k, &o) == PVEC_SUCCESS);
    if (std::strcmp(o.name, name) == 0) return o;
  }
  FAIL("no option " << name);
  return pvec_option_info{};
}

}  // namespace

TEST_CASE("the options table", "[options]") {
  int n = 0;
  REQUIRE(pvec_options_get_count(&n) == PVEC_SUCCESS);
  REQUIRE(n == 6);
  std::set<std::string> names;
  for (int k = 0; k < n; ++k) {
    pvec_option_info o = PVEC_OPTION_INFO_INIT;
    REQUIRE(pvec_options_get_info(k, &o) == PVEC_SUCCESS);
    REQUIRE(o.name != nullptr);
    REQUIRE(o.accepts != nullptr);
    REQUIRE(o.default_value != nullptr);
    REQUIRE(o.meaning != nullptr);
    CHECK(std::strncmp(o.name, "PVEC_", 5) == 0);
    CHECK(std::strlen(o.meaning) > 20);
    names.insert(o.name);
  }
  CHECK(names == std::set<std::string>{"PVEC_DEVICE", "PVEC_IPC", "PVEC_SHM", "PVEC_MPI_CUDA_AWARE",
                                       "PVEC_STAGED_TRANSFER", "PVEC_IO_PREAD"});
  // Every option is one line of the text, with its value in use.
  const char* text = nullptr;
  REQUIRE(pvec_options_get_text(&text) == PVEC_SUCCESS);
  REQUIRE(text != nullptr);
  const std::string s = text;
  for (const std::string& name : names) CHECK(s.find(name + "=") != std::string::npos);
  CHECK(std::count(s.begin(), s.end(), '\n') == n);
}

TEST_CASE("pvec_options_set changes an option and sets it back", "[options]") {
  const pvec_option_info before = info_of("PVEC_STAGED_TRANSFER");
  {
    pvec_test::ScopedOption on("PVEC_STAGED_TRANSFER", "1");
    const pvec_option_info o = info_of("PVEC_STAGED_TRANSFER");
    CHECK(o.value == 1);
    CHECK(o.source == PVEC_OPTION_SET);
    const char* text = nullptr;
    REQUIRE(pvec_options_get_text(&text) == PVEC_SUCCESS);
    CHECK(std::string(text).find("PVEC_STAGED_TRANSFER=1 (set by pvec_options_set") !=
          std::string::npos);
    REQUIRE(pvec_options_set("PVEC_STAGED_TRANSFER", "auto") == PVEC_SUCCESS);
    CHECK(info_of("PVEC_STAGED_TRANSFER").value == -1);
  }
  const pvec_option_info after = info_of("PVEC_STAGED_TRANSFER");
  CHECK(after.value == before.value);
  CHECK(after.source == before.source);
  // NULL and "" set the default back.
  REQUIRE(pvec_options_set("PVEC_IO_PREAD", "0") == PVEC_SUCCESS);
  CHECK(info_of("PVEC_IO_PREAD").value == 0);
  REQUIRE(pvec_options_set("PVEC_IO_PREAD", nullptr) == PVEC_SUCCESS);
  CHECK(info_of("PVEC_IO_PREAD").value == 1);
  CHECK(info_of("PVEC_IO_PREAD").source == PVEC_OPTION_DEFAULT);
  REQUIRE(pvec_options_set("PVEC_IO_PREAD", "0") == PVEC_SUCCESS);
  REQUIRE(pvec_options_set("PVEC_IO_PREAD", "") == PVEC_SUCCESS);
  CHECK(info_of("PVEC_IO_PREAD").source == PVEC_OPTION_DEFAULT);
}

TEST_CASE("bad options are refused and change nothing", "[options][bad_input]") {
  const pvec_option_info ipc = info_of("PVEC_IPC");
  CHECK(pvec_options_set(nullptr, "1") == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(pvec_last_error()).find("PVEC_IPC") != std::string::npos);  // names them
  CHECK(pvec_options_set("PVEC_NOPE", "1") == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(pvec_last_error()).find("PVEC_NOPE") != std::string::npos);
  for (const char* bad : {"2", "-1", "yes", "1x", "auto", " 1"}) {
    INFO("PVEC_IPC=" << bad);
    CHECK(pvec_options_set("PVEC_IPC", bad) == PVEC_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(pvec_last_error()).find("expected 0 or 1") != std::string::npos);
    const pvec_option_info now = info_of("PVEC_IPC");
    CHECK(now.value == ipc.value);
    CHECK(now.source == ipc.source);
  }
  CHECK(pvec_options_set("PVEC_STAGED_TRANSFER", "3") == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_options_get_count(nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_options_get_text(nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_options_get_info(0, nullptr) == PVEC_ERROR_INVALID_ARGUMENT);
  pvec_option_info o = PVEC_OPTION_INFO_INIT;
  CHECK(pvec_options_get_info(-1, &o) == PVEC_ERROR_OUT_OF_RANGE);
  CHECK(pvec_options_get_info(6, &o) == PVEC_ERROR_OUT_OF_RANGE);
  o.struct_size = 8;
  CHECK(pvec_options_get_info(0, &o) == PVEC_ERROR_INVALID_ARGUMENT);
  // A caller of the first layout gets no byte beyond it.
  struct {
    pvec_option_info info;
    unsigned char guard[16];
  } small;
  std::memset(&small, 0xab, sizeof small);
  small.info.struct_size = PVEC_OPTION_INFO_SIZE_V1;
  REQUIRE(pvec_options_get_info(0, &small.info) == PVEC_SUCCESS);
  for (unsigned char b : small.guard) CHECK(b == 0xab);
}
