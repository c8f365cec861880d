// Particles created by a CUDA kernel (pvec::spawn_claim) and removed on the device by marks a
// kernel wrote: the values, ids and counts against a reference; a kernel that asks for more
// than was reserved is reported at commit with the number it asked for and adds nothing; the
// asynchronous removal leaves its count where a later kernel reads it; the host mirror is
// known to be older after each (STALE_MIRROR until copied).
#include <pvec.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "gpu_check.cuh"

using pvec_gpu_test::blocks_for;
using pvec_gpu_test::kThreads;
using pvec_gpu_test::thread_index;

namespace {

// Each of n threads creates one particle: position (0.1 + t/n, 0.5, 0.5), w = t, its id.
__global__ void create(pvec_spawner s, double* pos, double* w, std::int64_t* id, std::int64_t n) {
  const std::int64_t t = thread_index();
  if (t >= n) return;
  const std::int64_t row = pvec::spawn_claim(s);
  if (row < 0) return;
  pos[row] = 0.1 + 0.5 * static_cast<double>(t) / static_cast<double>(n);
  pos[s.capacity + row] = 0.5;
  pos[2 * s.capacity + row] = 0.5;
  w[row] = static_cast<double>(t);
  id[row] = pvec::spawn_id(s, row);
}

// mark[i] = 1 where w is a multiple of 3 (n_local threads).
__global__ void mark_thirds(const double* w, std::int32_t* mark, std::int64_t n) {
  const std::int64_t i = thread_index();
  if (i >= n) return;
  mark[i] = static_cast<std::int64_t>(w[i]) % 3 == 0 ? 1 : 0;
}

// out = n_before - *removed, read on the device after an asynchronous removal.
__global__ void remaining(const std::int64_t* removed, std::int64_t n_before, std::int64_t* out) {
  *out = n_before - *removed;
}

struct Setup {
  pvec::schema s;
  int w, id, mark;
  Setup() {
    w = s.add_scalar<double>("w");
    id = s.add_scalar<std::int64_t>("id");
    mark = s.add_scalar<std::int32_t>("mark");
  }
};

}  // namespace

TEST_CASE("a kernel creates particles; overflow adds nothing; removal by device marks", "[gpu]") {
  Setup st;
  pvec::vector vec(pvec::vector_desc().dim(3).particles(0, PVEC_PLACE_LOCAL), st.s);
  REQUIRE(vec.backend() == PVEC_BACKEND_CUDA);
  vec.ids_init(st.id, PVEC_ON_DEVICE);
  const std::int64_t n = 100000;
  pvec_spawner sp = vec.spawn_begin(n, PVEC_ON_DEVICE);
  create<<<blocks_for(n), kThreads>>>(
      sp, static_cast<double*>(pvec_device_ptr(vec.get(), PVEC_POS)),
      static_cast<double*>(pvec_device_ptr(vec.get(), st.w)),
      static_cast<std::int64_t*>(pvec_device_ptr(vec.get(), st.id)), n);
  PVEC_KERNEL_REQUIRE();
  CHECK(vec.spawn_commit() == n);
  REQUIRE(vec.size() == n);
  // The host mirror is older now: a host reduction is refused until the copy.
  CHECK(vec.mirror_state(st.w) ==
        (PVEC_MIRROR_DEVICE_LOCAL | PVEC_MIRROR_HOST_GHOST | PVEC_MIRROR_DEVICE_GHOST));
  double sum = 0;
  CHECK(pvec_vector_reduce(vec.get(), st.w, PVEC_REDUCE_ADD, 0, &sum) == PVEC_ERROR_STALE_MIRROR);
  vec.device_to_host();
  auto w = vec.host_view<double>(st.w);
  auto id = vec.host_view<std::int64_t>(st.id);
  std::vector<std::int64_t> ws(n);
  std::set<std::int64_t> ids;
  for (std::int64_t i = 0; i < n; ++i) {
    ws[i] = static_cast<std::int64_t>(w(i));
    ids.insert(id(i));
  }
  std::sort(ws.begin(), ws.end());
  for (std::int64_t i = 0; i < n; ++i) REQUIRE(ws[i] == i);
  CHECK(static_cast<std::int64_t>(ids.size()) == n);
  CHECK(*ids.begin() == 0);
  CHECK(*ids.rbegin() == n - 1);

  // More asked than reserved: nothing added, the number asked reported.
  sp = vec.spawn_begin(1000, PVEC_ON_DEVICE);
  create<<<blocks_for(1500), kThreads>>>(
      sp, static_cast<double*>(pvec_device_ptr(vec.get(), PVEC_POS)),
      static_cast<double*>(pvec_device_ptr(vec.get(), st.w)),
      static_cast<std::int64_t*>(pvec_device_ptr(vec.get(), st.id)), 1500);
  PVEC_KERNEL_REQUIRE();
  std::int64_t asked = 0;
  CHECK(pvec_vector_spawn_commit(vec.get(), &asked) == PVEC_ERROR_OUT_OF_RANGE);
  CHECK(asked == 1500);
  CHECK(vec.size() == n);

  // Removal by marks a kernel wrote, keeping the order.
  vec.host_to_device();
  mark_thirds<<<blocks_for(n), kThreads>>>(
      static_cast<const double*>(pvec_device_ptr(vec.get(), st.w)),
      static_cast<std::int32_t*>(pvec_device_ptr(vec.get(), st.mark)), n);
  PVEC_KERNEL_REQUIRE();
  const std::int64_t removed = vec.remove_marked(st.mark, PVEC_ON_DEVICE);
  CHECK(removed == (n + 2) / 3);
  vec.device_to_host();
  auto w2 = vec.host_view<double>(st.w);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < vec.size(); ++i) bad += static_cast<std::int64_t>(w2(i)) % 3 == 0;
  CHECK(bad == 0);
}

TEST_CASE("asynchronous removal: the count is on the device for the next kernel", "[gpu]") {
  Setup st;
  const std::int64_t n = 50000;
  pvec::vector vec(pvec::vector_desc().dim(3).particles(n, PVEC_PLACE_LOCAL), st.s);
  auto w = vec.host_view<double>(st.w);
  auto mark = vec.host_view<std::int32_t>(st.mark);
  for (std::int64_t i = 0; i < n; ++i) {
    w(i) = static_cast<double>(i);
    mark(i) = i % 5 == 0 ? 1 : 0;
  }
  vec.host_to_device();
  std::int64_t* d = nullptr;
  PVEC_CUDA_REQUIRE(cudaMalloc(&d, 2 * sizeof(std::int64_t)));
  vec.remove_marked_async(st.mark, PVEC_REMOVE_FILL_HOLES, d);
  remaining<<<1, 1, 0, static_cast<cudaStream_t>(vec.stream())>>>(d, n, d + 1);
  std::int64_t got[2] = {0, 0};
  PVEC_CUDA_REQUIRE(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got[0] == n / 5);
  CHECK(got[1] == n - n / 5);
  CHECK(vec.size() == n - n / 5);
  vec.device_to_host();
  auto w2 = vec.host_view<double>(st.w);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < vec.size(); ++i) bad += static_cast<std::int64_t>(w2(i)) % 5 == 0;
  CHECK(bad == 0);
  cudaFree(d);
}

namespace {

// Which rows a removal pattern marks (k: the row's id, n: rows).
bool marked_by(int pattern, std::int64_t k, std::int64_t n) {
  const std::uint64_t h = static_cast<std::uint64_t>(k) * 0x9e3779b97f4a7c15ull;
  switch (pattern) {
    case 0:
      return (h >> 40) % 10 == 0;  // a tenth, scattered
    case 1:
      return false;  // none
    case 2:
      return true;  // all
    case 3:
      return k < n / 2;  // the first half: every survivor moves far
    case 4:
      return k % 2 == 1;  // every other row
    case 5:
      return k == n - 1;  // the last row only
    default:
      return (h >> 40) % 10 != 0;  // nine tenths, scattered
  }
}

// The value of component c of a particle of id k, exact in float32.
float tensor_value(std::int64_t k, int c) { return static_cast<float>((k * 37 + c) % (1 << 23)); }

}  // namespace

TEST_CASE("order-kept removal on the device: many tiles, any density, every component", "[gpu]") {
  // 36 float components (more than one launch takes), 8-byte ids and positions, int32 marks.
  pvec::schema s;
  const int id = s.add_scalar<std::int64_t>("id");
  const int t = s.add_tensor<float>("t", 6, 6);
  const int mark = s.add_scalar<std::int32_t>("mark");
  const std::int64_t n = 3000017;  // not a multiple of a tile
  for (int pattern = 0; pattern < 7; ++pattern) {
    INFO("pattern " << pattern);
    pvec::vector vec(pvec::vector_desc().dim(3).particles(n, PVEC_PLACE_LOCAL), s);
    {
      auto iv = vec.host_view<std::int64_t>(id);
      auto tv = vec.host_view<float>(t);
      auto mv = vec.host_view<std::int32_t>(mark);
      auto xv = vec.host_view<double>(PVEC_POS);
      for (std::int64_t k = 0; k < n; ++k) {
        iv(k) = k;
        for (int c = 0; c < 36; ++c) tv(k, c / 6, c % 6) = tensor_value(k, c);
        mv(k) = marked_by(pattern, k, n) ? 1 : 0;
        for (int d = 0; d < 3; ++d) xv(k, d) = 0.25 + 0.5 * static_cast<double>(k) / n;
      }
    }
    vec.host_to_device();
    std::vector<std::int64_t> want;
    for (std::int64_t k = 0; k < n; ++k)
      if (!marked_by(pattern, k, n)) want.push_back(k);
    const std::int64_t removed = vec.remove_marked(mark, PVEC_ON_DEVICE);
    REQUIRE(removed == n - static_cast<std::int64_t>(want.size()));
    REQUIRE(vec.size() == static_cast<std::int64_t>(want.size()));
    vec.device_to_host();
    auto iv = vec.host_view<std::int64_t>(id);
    auto tv = vec.host_view<float>(t);
    auto xv = vec.host_view<double>(PVEC_POS);
    std::int64_t bad_id = 0, bad_t = 0, bad_x = 0;
    for (std::int64_t i = 0; i < vec.size(); ++i) {
      const std::int64_t k = want[static_cast<std::size_t>(i)];
      bad_id += iv(i) != k;
      for (int c = 0; c < 36; ++c) bad_t += tv(i, c / 6, c % 6) != tensor_value(k, c);
      for (int d = 0; d < 3; ++d) bad_x += xv(i, d) != 0.25 + 0.5 * static_cast<double>(k) / n;
    }
    CHECK(bad_id == 0);
    CHECK(bad_t == 0);
    CHECK(bad_x == 0);
  }
}
