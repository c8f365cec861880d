// Host <-> device transfers: round trips, partial property lists, props == NULL meaning
// all, only live particles moving, the async variants, and argument errors that copy
// nothing; pageable host mirrors also through page-locked blocks on the host threads
// (option PVEC_STAGED_TRANSFER=2, particles/staged_transfer.hpp), which only a CUDA device runs.
#include "capi_util.hpp"
#include "scoped_option.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace {

const double kSentinel = static_cast<double>((int64_t{1} << 23) + 9);

// Sets every field of the device mirror to pattern(salt) on [0, n) through the host.
void set_device(pvec_vector_t v, int salt, int64_t n) {
  capi::fill_host_all(v, salt, 0, n);
  PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
}

// Expected salt per field after a partial copy: `moved` for listed fields, `kept` else.
void check_host_fields(pvec_vector_t v, const std::vector<int>& listed, int moved, int kept,
                       int64_t n) {
  for (int f : capi::all_fields(v)) {
    bool in = false;
    for (int p : listed) in = in || p == f;
    const int want = in ? moved : kept;
    INFO("field " << f << (in ? " (listed)" : " (not listed)"));
    PVEC_CHECK_MATCH(capi::count_mismatch(capi::layout_of(v, f), false, want, 0, n));
  }
}

struct Case {
  pvec_backend backend;
  int host_memory;
  // PVEC_STAGED_TRANSFER for the case's calls: nullptr (automatic), "2" (blocking transfers of
  // pageable mirrors through page-locked blocks of 4 KiB on the host threads, at any size).
  const char* staged;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (pvec_backend b : capi::test_backends()) out.push_back({b, PVEC_HOST_PINNED, nullptr});
  out.push_back({PVEC_BACKEND_AUTO, PVEC_HOST_PAGEABLE, nullptr});
  out.push_back({PVEC_BACKEND_AUTO, PVEC_HOST_PAGEABLE, "2"});
  return out;
}

capi::Vector make(const Case& c, int64_t n) {
  pvec_vector_desc d = capi::make_desc(n, 3, PVEC_FLOAT64, c.backend);
  d.host_memory = c.host_memory;
  return capi::make_vector(capi::mixed_props(), d);
}

}  // namespace

TEST_CASE("round trip of every property and the positions", "[transfer]") {
  for (const Case& c : cases()) {
    const pvec_test::ScopedOption staged("PVEC_STAGED_TRANSFER", c.staged);
    for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{100}, int64_t{5000}, int64_t{70000}}) {
      INFO("backend " << c.backend << " host_memory " << c.host_memory << " staged "
                      << (c.staged ? c.staged : "auto") << " n " << n);
      capi::Vector vec = make(c, n);
      pvec_vector_t v = vec.get();
      const uint64_t gen = capi::generation_of(v);
      capi::fill_host_all(v, 1, 0, n);
      PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
      PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, 1, 0, n));
      // props == NULL ignores nprops.
      capi::fill_host_all(v, 2, 0, n);
      PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 3));
      capi::set_host_all(v, 0.0, 0, n);
      PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 2));
      PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 2, 0, n));
      // An explicit full list is the same as NULL.
      const int all[5] = {PVEC_POS, 3, 2, 1, 0};
      capi::fill_host_all(v, 3, 0, n);
      PVEC_REQUIRE_OK(pvec_host_to_device(v, all, 5));
      capi::set_host_all(v, 0.0, 0, n);
      PVEC_REQUIRE_OK(pvec_device_to_host(v, all, 5));
      PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 3, 0, n));
      CHECK(capi::generation_of(v) == gen);  // transfers invalidate nothing
      CHECK(std::string(pvec_last_error()).empty());
    }
  }
}

TEST_CASE("only the listed properties move", "[transfer]") {
  const int64_t n = 300;
  const std::vector<std::vector<int>> lists = {{1}, {PVEC_POS}, {2, PVEC_POS}, {3, 0}, {}};
  for (const Case& c : cases()) {
    const pvec_test::ScopedOption staged("PVEC_STAGED_TRANSFER", c.staged);
    for (const std::vector<int>& list : lists) {
      INFO("backend " << c.backend << " host_memory " << c.host_memory << " staged "
                      << (c.staged ? c.staged : "auto") << " list size " << list.size());
      capi::Vector vec = make(c, n);
      pvec_vector_t v = vec.get();
      const int* props = list.empty() ? nullptr : list.data();
      const int np = static_cast<int>(list.size());
      // host_to_device: device holds 1 everywhere, host 2; after the partial copy and a full
      // copy back, the listed fields read 2 and the others still 1.
      set_device(v, 1, n);
      capi::fill_host_all(v, 2, 0, n);
      // An empty list with a non-NULL pointer moves nothing.
      const int dummy = 0;
      PVEC_REQUIRE_OK(pvec_host_to_device(v, list.empty() ? &dummy : props, np));
      capi::set_host_all(v, 0.0, 0, n);
      PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
      check_host_fields(v, list, 2, 1, n);

      // device_to_host: device 3 everywhere, host 4; listed fields become 3.
      set_device(v, 3, n);
      capi::fill_host_all(v, 4, 0, n);
      PVEC_REQUIRE_OK(pvec_device_to_host(v, list.empty() ? &dummy : props, np));
      check_host_fields(v, list, 3, 4, n);
    }
  }
}

TEST_CASE("only live particles move", "[transfer]") {
  for (const Case& c : cases()) {
    const pvec_test::ScopedOption staged("PVEC_STAGED_TRANSFER", c.staged);
    INFO("backend " << c.backend << " host_memory " << c.host_memory << " staged "
                    << (c.staged ? c.staged : "auto"));
    capi::Vector vec = make(c, 100);
    pvec_vector_t v = vec.get();
    const bool host_backend = capi::backend_of(v) == pvec_backend(PVEC_BACKEND_HOST);
    REQUIRE(capi::capacity_of(v) == 128);
    // Sentinels in [100, 128) of the host mirror.
    capi::set_host_all(v, kSentinel, 100, 128);
    if (host_backend) {
      // And different sentinels beyond size on the device mirror (host memory here).
      for (int f : capi::all_fields(v)) {
        const pvec_layout l = capi::layout_of(v, f);
        for (int64_t k = 0; k < l.ncomp; ++k)
          for (int64_t i = 100; i < 128; ++i)
            capi::set_elem(l.device_ptr, l.dtype, k * l.capacity + i, kSentinel + 1);
      }
    }
    capi::fill_host_all(v, 1, 0, 100);
    PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
    if (host_backend) {
      int64_t changed = 0;
      for (int f : capi::all_fields(v)) {
        const pvec_layout l = capi::layout_of(v, f);
        for (int64_t k = 0; k < l.ncomp; ++k)
          for (int64_t i = 100; i < 128; ++i)
            changed += capi::get_elem(l.device_ptr, l.dtype, k * l.capacity + i) != kSentinel + 1;
      }
      CHECK(changed == 0);
    }
    capi::set_host_all(v, 0.0, 0, 100);
    capi::set_host_all(v, kSentinel + 2, 100, 128);
    PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 1, 0, 100));
    int64_t changed = 0;
    for (int f : capi::all_fields(v)) {
      const pvec_layout l = capi::layout_of(v, f);
      for (int64_t k = 0; k < l.ncomp; ++k)
        for (int64_t i = 100; i < 128; ++i)
          changed += capi::get_elem(l.host_ptr, l.dtype, k * l.capacity + i) != kSentinel + 2;
    }
    CHECK(changed == 0);
  }
}

TEST_CASE("async transfers on the default stream, then synchronize", "[transfer]") {
  for (const Case& c : cases()) {
    const pvec_test::ScopedOption staged("PVEC_STAGED_TRANSFER", c.staged);
    INFO("backend " << c.backend << " host_memory " << c.host_memory << " staged "
                    << (c.staged ? c.staged : "auto"));
    const int64_t n = 2000;
    capi::Vector vec = make(c, n);
    pvec_vector_t v = vec.get();
    PVEC_REQUIRE_OK(pvec_vector_set_stream(v, nullptr));
    capi::fill_host_all(v, 7, 0, n);
    PVEC_REQUIRE_OK(pvec_host_to_device_async(v, nullptr, 0, nullptr));
    PVEC_REQUIRE_OK(pvec_vector_synchronize(v));
    capi::set_host_all(v, 0.0, 0, n);
    PVEC_REQUIRE_OK(pvec_device_to_host_async(v, nullptr, 0, nullptr));
    PVEC_REQUIRE_OK(pvec_vector_synchronize(v));
    PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 7, 0, n));
    // A partial async copy.
    capi::fill_host_all(v, 8, 0, n);
    const int some[2] = {0, PVEC_POS};
    PVEC_REQUIRE_OK(pvec_host_to_device_async(v, some, 2, nullptr));
    PVEC_REQUIRE_OK(pvec_vector_synchronize(v));
    capi::set_host_all(v, 0.0, 0, n);
    PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
    check_host_fields(v, {0, PVEC_POS}, 8, 7, n);
  }
}

TEST_CASE("bad property lists copy nothing", "[transfer]") {
  const int64_t n = 50;
  struct Bad {
    std::vector<int> props;
    int nprops;
    pvec_status want;
  };
  const std::vector<Bad> bad = {
      {{1, 0, 0}, 3, PVEC_ERROR_INVALID_ARGUMENT},
      {{1, PVEC_POS, PVEC_POS}, 3, PVEC_ERROR_INVALID_ARGUMENT},
      {{2, 1, 3, 1}, 4, PVEC_ERROR_INVALID_ARGUMENT},
      {{1, 4}, 2, PVEC_ERROR_OUT_OF_RANGE},  // 4 properties: 0..3
      {{0, 1000}, 2, PVEC_ERROR_OUT_OF_RANGE},
      {{1, -2}, 2, PVEC_ERROR_OUT_OF_RANGE},
      {{0, 1}, -1, PVEC_ERROR_INVALID_ARGUMENT},
  };
  for (const Case& c : cases()) {
    const pvec_test::ScopedOption staged("PVEC_STAGED_TRANSFER", c.staged);
    INFO("backend " << c.backend << " host_memory " << c.host_memory << " staged "
                    << (c.staged ? c.staged : "auto"));
    capi::Vector vec = make(c, n);
    pvec_vector_t v = vec.get();
    for (const Bad& b : bad) {
      INFO("list of " << b.nprops << " starting with " << b.props[0]);
      for (int async = 0; async < 2; ++async) {
        INFO((async ? "async" : "blocking"));
        // host_to_device: the device keeps 1 when the call fails.
        set_device(v, 1, n);
        capi::fill_host_all(v, 2, 0, n);
        const capi::Snapshot before = capi::snapshot(v);
        if (async)
          PVEC_REQUIRE_STATUS(pvec_host_to_device_async(v, b.props.data(), b.nprops, nullptr),
                              b.want);
        else
          PVEC_REQUIRE_STATUS(pvec_host_to_device(v, b.props.data(), b.nprops), b.want);
        PVEC_REQUIRE_OK(pvec_vector_synchronize(v));
        const capi::Snapshot after = capi::snapshot(v);
        INFO(capi::to_string(before) << " / " << capi::to_string(after));
        CHECK(after == before);
        PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, 1, 0, n));

        // device_to_host: the host keeps 2 when the call fails.
        set_device(v, 1, n);
        capi::fill_host_all(v, 2, 0, n);
        if (async)
          PVEC_REQUIRE_STATUS(pvec_device_to_host_async(v, b.props.data(), b.nprops, nullptr),
                              b.want);
        else
          PVEC_REQUIRE_STATUS(pvec_device_to_host(v, b.props.data(), b.nprops), b.want);
        PVEC_REQUIRE_OK(pvec_vector_synchronize(v));
        PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 2, 0, n));
      }
    }
  }
}

TEST_CASE("staged transfers keep their page-locked blocks until shrink_to_fit", "[transfer]") {
  const Case c{PVEC_BACKEND_AUTO, PVEC_HOST_PAGEABLE, "2"};
  const pvec_test::ScopedOption staged("PVEC_STAGED_TRANSFER", c.staged);
  const int64_t n = 3000;
  capi::Vector vec = make(c, n);
  pvec_vector_t v = vec.get();
  if (capi::backend_of(v) != pvec_backend(PVEC_BACKEND_CUDA)) {
    SUCCEED("host backend: no staged transfers (they need a CUDA device)");
    return;
  }
  auto stats = [] {
    pvec_memory_stats m{};
    m.struct_size = sizeof m;
    PVEC_REQUIRE_OK(pvec_memory_get_stats(&m));
    return m;
  };
  const pvec_memory_stats before = stats();
  capi::fill_host_all(v, 5, 0, n);
  PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
  const pvec_memory_stats first = stats();
  CHECK(first.pinned_bytes > before.pinned_bytes);  // the lanes' blocks
  // Later transfers, both ways, reuse them: no allocation of any kind.
  capi::set_host_all(v, 0.0, 0, n);
  PVEC_REQUIRE_OK(pvec_device_to_host(v, nullptr, 0));
  PVEC_CHECK_MATCH(capi::host_mismatch_all(v, 5, 0, n));
  PVEC_REQUIRE_OK(pvec_host_to_device(v, nullptr, 0));
  const pvec_memory_stats again = stats();
  CHECK(again.pinned_allocs == first.pinned_allocs);
  CHECK(again.host_allocs == first.host_allocs);
  CHECK(again.device_allocs == first.device_allocs);
  CHECK(again.pinned_bytes == first.pinned_bytes);
  PVEC_CHECK_MATCH(capi::device_mismatch_all_via_copy(v, 5, 0, n));
  // shrink_to_fit gives them back.
  PVEC_REQUIRE_OK(pvec_vector_shrink_to_fit(v));
  CHECK(stats().pinned_bytes == before.pinned_bytes);
}
