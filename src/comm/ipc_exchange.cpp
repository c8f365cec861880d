#include "comm/ipc_exchange.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"
#include "memory/allocator.hpp"

#include <algorithm>
#include <exception>

namespace pvec::impl {

namespace {
int g_refusing_rank = -1;
}  // namespace

void ipc_refuse_on_rank(int rank) { g_refusing_rank = rank; }

IpcExchange::IpcExchange(const Communicator& comm)
    : comm_(comm), mapped_(static_cast<size_t>(comm.size()), nullptr) {}

IpcExchange::~IpcExchange() {
  unmap_all();
  free_landing();
}

void IpcExchange::unmap_all() noexcept {
  for (void*& p : mapped_) {
    device_ipc_close(p);
    p = nullptr;
  }
}

void IpcExchange::free_landing() noexcept {
  deallocate(MemKind::device, land_, land_bytes_);
  land_ = nullptr;
  land_bytes_ = 0;
}

bool IpcExchange::prepare(bool on_gpu, int64_t need) {
  if (!on_) return false;
  const int P = comm_.size(), me = comm_.rank();
  struct Need {
    int64_t on_gpu, need, have;
  };
  const Need mine{on_gpu ? 1 : 0, std::max<int64_t>(need, 0), static_cast<int64_t>(land_bytes_)};
  std::vector<Need> all(static_cast<size_t>(P));
  comm_.allgather_bytes(&mine, sizeof mine, all.data());
  bool any_grows = false;
  for (const Need& r : all) {
    if (r.on_gpu == 0) return false;  // a rank exchanges host buffers: MPI for everyone
    any_grows = any_grows || r.need > r.have;
  }
  if (!any_grows) return true;  // the steady state: nothing to allocate, map or tell
  auto grows = [&](int r) { return all[r].need > all[r].have; };

  // 1. The ranks that need more room allocate it first; their old buffers stay mapped.
  void* fresh = nullptr;
  size_t fresh_bytes = 0;
  try {
    comm_.agree("pvec: making room for device messages", [&] {
      if (!grows(me)) return;
      fresh_bytes = static_cast<size_t>(std::max(mine.need, mine.have + mine.have / 2));
      fresh = allocate(MemKind::device, fresh_bytes);
    });
  } catch (...) {
    deallocate(MemKind::device, fresh, fresh_bytes);
    throw;
  }
  // 2. Every rank unmaps the old buffers of those ranks before any of them is freed.
  for (int r = 0; r < P; ++r)
    if (grows(r) && mapped_[r] != nullptr) {
      device_ipc_close(mapped_[r]);
      mapped_[r] = nullptr;
    }
  try {
    comm_.any(false);  // a barrier
  } catch (...) {      // MPI failed: keep the old buffer, give the new one back
    deallocate(MemKind::device, fresh, fresh_bytes);
    throw;
  }
  if (grows(me)) {
    free_landing();
    land_ = fresh;
    land_bytes_ = fresh_bytes;
  }
  // 3. The new buffers' handles go to every rank, which maps them.
  struct Handle {
    int64_t ok;
    IpcHandle h;
  };
  Handle h_mine{0, {}};
  if (grows(me)) h_mine.ok = device_ipc_handle(land_, &h_mine.h) ? 1 : 0;
  std::vector<Handle> handles(static_cast<size_t>(P));
  comm_.allgather_bytes(&h_mine, sizeof h_mine, handles.data());
  bool failed = false;
  for (int r = 0; r < P; ++r) {
    if (r == me || !grows(r)) continue;
    if (handles[r].ok != 0) mapped_[r] = device_ipc_open(handles[r].h);
    failed = failed || mapped_[r] == nullptr;
  }
  failed = failed || me == g_refusing_rank;  // (tests: as if IPC were not allowed here)
  if (comm_.any(failed)) {
    // Some rank cannot map another's memory (no peer access between the GPUs, or IPC not
    // allowed): MPI carries the messages from now on.
    on_ = false;
    release();
    return false;
  }
  return true;
}

const void* IpcExchange::exchange(const void* send, const std::vector<int64_t>& send_bytes,
                                  const std::vector<int64_t>& send_displs,
                                  const std::vector<int64_t>& recv_displs, void* stream) {
  const int P = comm_.size(), me = comm_.rank();
  // Where this rank's block goes in each other rank's landing buffer: that rank's
  // recv_displs entry for this rank.
  std::vector<int64_t> at_peer;
  comm_.exchange_counts(recv_displs, at_peer);
  std::exception_ptr error;
  try {
    for (int r = 0; r < P; ++r) {
      if (r == me || send_bytes[r] == 0) continue;
      if (mapped_[r] == nullptr)
        fail(PVEC_ERROR_INTERNAL, "IPC exchange: the landing buffer of rank ", r, " is not mapped");
      copy_bytes(static_cast<char*>(mapped_[r]) + at_peer[r],
                 static_cast<const char*>(send) + send_displs[r],
                 static_cast<size_t>(send_bytes[r]), true, stream);
    }
    stream_synchronize(stream);
  } catch (...) {
    error = std::current_exception();
  }
  // Every rank's copies are done when this returns (an allreduce: also the barrier).
  if (comm_.any(error != nullptr)) {
    if (error) std::rethrow_exception(error);
    fail(PVEC_ERROR_MPI, "the device-to-device exchange failed on another rank");
  }
  return land_;
}

void IpcExchange::release() noexcept {
  unmap_all();
  try {
    comm_.any(false);  // every rank has unmapped before any buffer is freed
  } catch (...) {      // MPI failed: free anyway, nothing else can be done
  }
  free_landing();
}

}  // namespace pvec::impl
