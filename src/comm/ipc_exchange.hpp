// IpcExchange: the device messages of map, ghost_get and ghost_put between the ranks of one
// node through CUDA inter-process memory instead of MPI. Every rank keeps a landing buffer in
// its device memory that the other ranks map; a sender copies its block for rank r straight
// into r's landing buffer (device to device: over NVLink or PCIe between two GPUs, within the
// memory of one GPU that ranks share), and r unpacks from there. MPI carries the bookkeeping
// only: who needs a larger landing buffer, the buffers' handles when they change, where each
// block goes, and the end of the copies.
//
// Every call is collective. A DistVector makes one only when every rank runs the CUDA backend
// on one node, with more than one rank, and PVEC_IPC is not 0 (decided together).
#pragma once

#include "comm/communicator.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pvec::impl {

// White-box tests: a rank that fails the first making of landing buffers, as if IPC were not
// allowed there, so that the fallback to MPI runs; -1 (the default) for none.
void ipc_refuse_on_rank(int rank);

class IpcExchange {
 public:
  explicit IpcExchange(const Communicator& comm);
  // Local: unmaps and frees what release() did not (release is the orderly way).
  ~IpcExchange();
  IpcExchange(const IpcExchange&) = delete;
  IpcExchange& operator=(const IpcExchange&) = delete;

  // Before an operation changes anything: whether its exchange runs through IPC (every rank
  // exchanges device buffers, and IPC is still on). Then every rank's landing buffer holds at
  // least its `need` bytes (its receive span): an allocation failure on any rank fails the
  // call on every rank (OUT_OF_MEMORY there, MPI elsewhere) with nothing changed. When a rank
  // cannot map another's buffer, IPC is turned off on every rank for good, and false returned
  // (the exchange then goes through MPI).
  bool prepare(bool on_gpu, int64_t need);

  // After prepare returned true: copies send's block for every rank r (send_bytes[r] bytes
  // from send + send_displs[r]) into r's landing buffer, where r's recv_displs puts it, on
  // `stream` (the packing before it is finished); waits until every rank's copies are done;
  // returns this rank's landing buffer, laid out by its recv_displs.
  const void* exchange(const void* send, const std::vector<int64_t>& send_bytes,
                       const std::vector<int64_t>& send_displs,
                       const std::vector<int64_t>& recv_displs, void* stream);

  // Unmaps the other ranks' buffers, waits until every rank has, frees the landing buffer.
  void release() noexcept;

 private:
  void unmap_all() noexcept;
  void free_landing() noexcept;

  const Communicator& comm_;
  bool on_ = true;
  void* land_ = nullptr;  // this rank's landing buffer (device memory)
  size_t land_bytes_ = 0;
  std::vector<void*> mapped_;  // per rank: its landing buffer mapped here (null: none, self)
};

}  // namespace pvec::impl
