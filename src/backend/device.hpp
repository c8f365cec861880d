// The CUDA runtime behind a small interface, so that everything else compiles without CUDA
// headers. In a build without CUDA these report "no device" and the device calls are never
// reached (a vector then uses the host backend).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pvec::impl {

// Number of usable CUDA devices (0 without CUDA, driver or device).
int device_count();
// Make device `index` current for this process.
void device_select(int index);
// Index of the current device (0 without CUDA).
int device_current();

void* device_alloc(size_t bytes);  // nullptr on failure
void device_free(void* p) noexcept;
// Free memory of the current device in bytes (cudaMemGetInfo); 0 without CUDA or on error.
size_t device_free_bytes();
void* device_alloc_pinned(size_t bytes);  // nullptr on failure
void device_free_pinned(void* p) noexcept;
// Page-locks host memory the caller allocated (cudaHostRegister, portable); false on failure
// (no device, or the driver refused). Undone by device_unregister_host before the free.
bool device_register_host(void* p, size_t bytes);
// Whether a kernel of the current device can read address p (device, managed or mapped
// page-locked memory); false without CUDA.
bool device_readable(const void* p);
void device_unregister_host(void* p) noexcept;

// 2D copy of `height` rows of `width` bytes. on_device: through the CUDA runtime
// (cudaMemcpy2DAsync, direction inferred from the addresses) ordered on stream; otherwise
// memcpy on the host, immediately.
void copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
             bool on_device, void* stream);
// 2D zero fill with the same conventions.
void zero_2d(void* dst, size_t pitch, size_t width, size_t height, bool on_device, void* stream);
// 1D copy; on_device as above.
void copy_bytes(void* dst, const void* src, size_t bytes, bool on_device, void* stream);

// CUDA inter-process memory: a handle names a device allocation (its base, from
// device_alloc) so that another process on the same node can map it. device_ipc_handle fills
// out and returns true, or false (no CUDA, or the driver refused); device_ipc_open maps a
// handle from another process (nullptr on failure: no peer access between the devices, IPC
// unsupported); device_ipc_close unmaps. The exporting process must not free an allocation
// while another process has it mapped.
struct IpcHandle {
  unsigned char bytes[64];
};
bool device_ipc_handle(void* base, IpcHandle* out);
void* device_ipc_open(const IpcHandle& handle);
void device_ipc_close(void* mapped) noexcept;

void stream_synchronize(void* stream);
// Waits for everything ordered before now on stream, including (for the legacy default stream,
// nullptr) the work of other blocking streams that the legacy stream's next operation would
// wait for: an event recorded on stream, then waited for.
void stream_drain(void* stream);
// A stream of the current device that does not synchronise with the legacy default stream
// (cudaStreamNonBlocking); throws Error(PVEC_ERROR_CUDA). nullptr without CUDA.
void* stream_create();
void stream_destroy(void* stream) noexcept;
// Throws Error(PVEC_ERROR_CUDA) if the last kernel launch failed.
void check_launch(const char* what);

}  // namespace pvec::impl
