#include "backend/device.hpp"

#include "common/error.hpp"

#include <cstring>

#ifdef PVEC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace pvec::impl {

#ifdef PVEC_HAVE_CUDA

namespace {
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    fail(PVEC_ERROR_CUDA, what, ": ", cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}
cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }
}  // namespace

int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no device" error
      return 0;
    }
    return n;
  }();
  return count;
}

void device_select(int index) { check(cudaSetDevice(index), "cudaSetDevice"); }

int device_current() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) return 0;
  return d;
}

void* device_alloc(size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}
void device_free(void* p) noexcept { cudaFree(p); }

size_t device_free_bytes() {
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return free;
}

void* device_alloc_pinned(size_t bytes) {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}
void device_free_pinned(void* p) noexcept { cudaFreeHost(p); }

bool device_register_host(void* p, size_t bytes) {
  if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}
void device_unregister_host(void* p) noexcept { cudaHostUnregister(p); }

bool device_readable(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ||
         (a.type == cudaMemoryTypeHost && a.devicePointer != nullptr);
}

void copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
             bool on_device, void* stream) {
  if (width == 0 || height == 0) return;
  if (on_device) {
    check(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault,
                            as_stream(stream)),
          "cudaMemcpy2DAsync");
    return;
  }
  for (size_t r = 0; r < height; ++r)
    std::memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                width);
}

void zero_2d(void* dst, size_t pitch, size_t width, size_t height, bool on_device, void* stream) {
  if (width == 0 || height == 0) return;
  if (on_device) {
    check(cudaMemset2DAsync(dst, pitch, 0, width, height, as_stream(stream)), "cudaMemset2DAsync");
    return;
  }
  for (size_t r = 0; r < height; ++r) std::memset(static_cast<char*>(dst) + r * pitch, 0, width);
}

void copy_bytes(void* dst, const void* src, size_t bytes, bool on_device, void* stream) {
  if (bytes == 0) return;
  if (on_device) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, as_stream(stream)),
          "cudaMemcpyAsync");
    return;
  }
  std::memcpy(dst, src, bytes);
}

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(IpcHandle), "IPC handle size");

bool device_ipc_handle(void* base, IpcHandle* out) {
  cudaIpcMemHandle_t h;
  if (cudaIpcGetMemHandle(&h, base) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  std::memcpy(out->bytes, &h, sizeof h);
  return true;
}

void* device_ipc_open(const IpcHandle& handle) {
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.bytes, sizeof h);
  void* p = nullptr;
  if (cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void device_ipc_close(void* mapped) noexcept {
  if (mapped != nullptr && cudaIpcCloseMemHandle(mapped) != cudaSuccess) cudaGetLastError();
}

void stream_synchronize(void* stream) {
  check(cudaStreamSynchronize(as_stream(stream)), "cudaStreamSynchronize");
}

void stream_drain(void* stream) {
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  const cudaError_t rec = cudaEventRecord(e, as_stream(stream));
  const cudaError_t sync = rec == cudaSuccess ? cudaEventSynchronize(e) : rec;
  cudaEventDestroy(e);
  check(sync, rec == cudaSuccess ? "cudaEventSynchronize" : "cudaEventRecord");
}

void* stream_create() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return s;
}

void stream_destroy(void* stream) noexcept {
  if (stream != nullptr) cudaStreamDestroy(as_stream(stream));
}

void check_launch(const char* what) { check(cudaGetLastError(), what); }

#else  // no CUDA in this build

int device_count() { return 0; }
void device_select(int) {}
int device_current() { return 0; }
void* device_alloc(size_t) { return nullptr; }
void device_free(void*) noexcept {}
size_t device_free_bytes() { return 0; }
void* device_alloc_pinned(size_t) { return nullptr; }
void device_free_pinned(void*) noexcept {}
bool device_register_host(void*, size_t) { return false; }
void device_unregister_host(void*) noexcept {}
bool device_readable(const void*) { return false; }

void copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
             bool, void*) {
  for (size_t r = 0; r < height && width > 0; ++r)
    std::memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                width);
}
void zero_2d(void* dst, size_t pitch, size_t width, size_t height, bool, void*) {
  for (size_t r = 0; r < height && width > 0; ++r)
    std::memset(static_cast<char*>(dst) + r * pitch, 0, width);
}
void copy_bytes(void* dst, const void* src, size_t bytes, bool, void*) {
  if (bytes) std::memcpy(dst, src, bytes);
}
bool device_ipc_handle(void*, IpcHandle*) { return false; }
void* device_ipc_open(const IpcHandle&) { return nullptr; }
void device_ipc_close(void*) noexcept {}
void stream_synchronize(void*) {}
void stream_drain(void*) {}
void* stream_create() { return nullptr; }
void stream_destroy(void*) noexcept {}
void check_launch(const char*) {}

#endif

}  // namespace pvec::impl
