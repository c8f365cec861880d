#include "comm/communicator.hpp"

#include "common/error.hpp"
#include "runtime/environment.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#ifdef PVEC_HAVE_MPI
#include <mpi.h>
#endif

namespace pvec::impl {

#ifdef PVEC_HAVE_MPI

namespace {
void check_mpi(int err, const char* what) {
  if (err != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    fail(PVEC_ERROR_MPI, what, ": ", std::string(text, len));
  }
}
// Largest message pvec sends in one piece (MPI counts are int).
constexpr int64_t kChunk = int64_t{1} << 30;
}  // namespace

struct Communicator::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> pieces;   // exchange_pieces' requests, kept between calls
  std::vector<MPI_Request> pending;  // posted without waiting, until wait_pending
};

// While it runs, errors MPI raises on MPI_COMM_WORLD return instead of aborting the job: an
// invalid communicator handle passed to MPI_Comm_dup is reported on MPI_COMM_WORLD (whose
// handler is the program's, MPI_ERRORS_ARE_FATAL by default). The program's handler is put
// back afterwards.
class WorldErrorsReturn {
 public:
  WorldErrorsReturn() {
    if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved_) == MPI_SUCCESS)
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    else
      saved_ = MPI_ERRHANDLER_NULL;
  }
  ~WorldErrorsReturn() {
    if (saved_ == MPI_ERRHANDLER_NULL) return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved_);
    MPI_Errhandler_free(&saved_);
  }
  WorldErrorsReturn(const WorldErrorsReturn&) = delete;
  WorldErrorsReturn& operator=(const WorldErrorsReturn&) = delete;

 private:
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

Communicator::Communicator(bool has_comm, int64_t comm_f) : impl_(new Impl) {
  if (!mpi_usable()) fail(PVEC_ERROR_STATE, "MPI is not initialised: call pvec_init first");
  if (has_comm && (comm_f < INT32_MIN || comm_f > INT32_MAX))
    fail(PVEC_ERROR_INVALID_ARGUMENT, "comm_f ", comm_f,
         " is not a Fortran communicator handle (outside the range of MPI_Fint)");
  {
    // pvec's own MPI calls run with MPI_ERRORS_RETURN: on its duplicate (set below) and, for
    // the duplication of the caller's handle, on MPI_COMM_WORLD for the moment.
    WorldErrorsReturn guard;
    MPI_Comm base = has_comm ? MPI_Comm_f2c(static_cast<MPI_Fint>(comm_f)) : MPI_COMM_WORLD;
    if (base == MPI_COMM_NULL)
      fail(PVEC_ERROR_INVALID_ARGUMENT, "communicator ", comm_f,
           " is MPI_COMM_NULL or not a communicator handle");
    check_mpi(MPI_Comm_dup(base, &impl_->comm),
              has_comm ? "MPI_Comm_dup of the communicator in desc->comm_f" : "MPI_Comm_dup");
  }
  check_mpi(MPI_Comm_set_errhandler(impl_->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(impl_->comm, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(impl_->comm, &size_), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  int node_size = 0;
  if (MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
          MPI_SUCCESS &&
      node != MPI_COMM_NULL) {
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
  }
  single_node_ = node_size == size_;
}

void Communicator::allgather_bytes(const void* mine, size_t bytes, void* all) const {
  check_mpi(MPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, all, static_cast<int>(bytes),
                          MPI_BYTE, impl_->comm),
            "MPI_Allgather");
}

int64_t Communicator::fortran_handle() const {
  return static_cast<int64_t>(MPI_Comm_c2f(impl_->comm));
}

bool Communicator::same_ranks(const Communicator& o) const {
  int result = MPI_UNEQUAL;
  if (MPI_Comm_compare(impl_->comm, o.impl_->comm, &result) != MPI_SUCCESS)
    fail(PVEC_ERROR_MPI, "MPI_Comm_compare failed");
  return result == MPI_IDENT || result == MPI_CONGRUENT;
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
}

int64_t Communicator::allreduce_sum(int64_t v) const {
  int64_t out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_SUM, impl_->comm), "MPI_Allreduce");
  return out;
}

int64_t Communicator::allreduce_max(int64_t v) const {
  int64_t out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MAX, impl_->comm), "MPI_Allreduce");
  return out;
}

void Communicator::allreduce(void* values, int64_t count, pvec_dtype dtype, AllreduceOp op) const {
  if (count <= 0) return;
  if (count > INT32_MAX) fail(PVEC_ERROR_NOT_SUPPORTED, "an allreduce of ", count, " values");
  const MPI_Datatype type = dtype == PVEC_FLOAT32   ? MPI_FLOAT
                            : dtype == PVEC_FLOAT64 ? MPI_DOUBLE
                            : dtype == PVEC_INT32   ? MPI_INT32_T
                            : dtype == PVEC_INT64   ? MPI_INT64_T
                            : dtype == PVEC_UINT32  ? MPI_UINT32_T
                                                    : MPI_UINT64_T;
  const MPI_Op mop = op == AllreduceOp::sum ? MPI_SUM : op == AllreduceOp::min ? MPI_MIN : MPI_MAX;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(count), type, mop, impl_->comm),
            "MPI_Allreduce");
}

int64_t Communicator::exclusive_scan_sum(int64_t v) const {
  int64_t out = 0;
  check_mpi(MPI_Exscan(&v, &out, 1, MPI_INT64_T, MPI_SUM, impl_->comm), "MPI_Exscan");
  return rank_ == 0 ? 0 : out;
}

void Communicator::exchange_counts(const std::vector<int64_t>& send_counts,
                                   std::vector<int64_t>& recv_counts) const {
  recv_counts.assign(size_, 0);
  check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv_counts.data(), 1, MPI_INT64_T,
                         impl_->comm),
            "MPI_Alltoall");
}

void Communicator::exchange_data(const void* send, const std::vector<int64_t>& send_counts,
                                 const std::vector<int64_t>& send_displs, void* recv,
                                 const std::vector<int64_t>& recv_counts,
                                 const std::vector<int64_t>& recv_displs, bool wait) const {
  std::vector<MPI_Request> local;
  std::vector<MPI_Request>& reqs = wait ? local : impl_->pending;
  auto post = [&](bool is_send, int peer, char* base, int64_t bytes) {
    for (int64_t off = 0, piece = 0; off < bytes; off += kChunk, ++piece) {
      int n = static_cast<int>(std::min(kChunk, bytes - off));
      MPI_Request r;
      int tag = static_cast<int>(piece % 32000);
      int err = is_send ? MPI_Isend(base + off, n, MPI_BYTE, peer, tag, impl_->comm, &r)
                        : MPI_Irecv(base + off, n, MPI_BYTE, peer, tag, impl_->comm, &r);
      check_mpi(err, is_send ? "MPI_Isend" : "MPI_Irecv");
      reqs.push_back(r);
    }
  };
  for (int r = 0; r < size_; ++r)
    if (recv_counts[r] > 0)
      post(false, r, static_cast<char*>(recv) + recv_displs[r], recv_counts[r]);
  for (int r = 0; r < size_; ++r)
    if (send_counts[r] > 0)
      post(true, r, const_cast<char*>(static_cast<const char*>(send)) + send_displs[r],
           send_counts[r]);
  if (wait && !reqs.empty())
    check_mpi(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
}

void Communicator::wait_pending() const {
  std::vector<MPI_Request> reqs;
  reqs.swap(impl_->pending);
  if (!reqs.empty())
    check_mpi(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
}

void* Communicator::shared_window(int64_t bytes, std::vector<char*>& bases) const {
  bases.assign(size_, nullptr);
  auto* win = new MPI_Win(MPI_WIN_NULL);
  char* mine = nullptr;
  // The displacement unit is a byte (pvec addresses the segments itself).
  bool ok = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, impl_->comm,
                                    &mine, win) == MPI_SUCCESS &&
            *win != MPI_WIN_NULL;
  if (ok) {
    MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
    for (int r = 0; r < size_ && ok; ++r) {
      MPI_Aint size = 0;
      int unit = 0;
      ok = MPI_Win_shared_query(*win, r, &size, &unit, &bases[r]) == MPI_SUCCESS;
    }
    // One passive-target epoch for the window's life: loads and stores in place, ordered
    // by MPI_Win_sync around the messages that announce them (the unified memory model).
    ok = ok && MPI_Win_lock_all(MPI_MODE_NOCHECK, *win) == MPI_SUCCESS;
    if (!ok) MPI_Win_free(win);
  }
  if (!ok) {
    delete win;
    return nullptr;
  }
  return win;
}

void Communicator::free_shared_window(void* handle) const noexcept {
  auto* win = static_cast<MPI_Win*>(handle);
  if (win == nullptr) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    MPI_Win_unlock_all(*win);
    MPI_Win_free(win);
  }
  delete win;
}

void Communicator::sync_shared_window(void* handle) const {
  check_mpi(MPI_Win_sync(*static_cast<MPI_Win*>(handle)), "MPI_Win_sync");
}

void Communicator::exchange_pieces(const std::vector<Piece>& sends, const std::vector<Piece>& recvs,
                                   bool wait) const {
  // One tag for every piece: MPI matches the messages from one rank with one tag in the order
  // they were sent to the receives in the order they were posted.
  constexpr int kPieceTag = 32001;
  std::vector<MPI_Request>& reqs = wait ? impl_->pieces : impl_->pending;
  if (wait) reqs.clear();
  auto post = [&](bool is_send, const Piece& p) {
    for (int64_t off = 0; off < p.bytes; off += kChunk) {
      const int n = static_cast<int>(std::min(kChunk, p.bytes - off));
      MPI_Request r;
      const int err = is_send
                          ? MPI_Isend(p.at + off, n, MPI_BYTE, p.peer, kPieceTag, impl_->comm, &r)
                          : MPI_Irecv(p.at + off, n, MPI_BYTE, p.peer, kPieceTag, impl_->comm, &r);
      check_mpi(err, is_send ? "MPI_Isend" : "MPI_Irecv");
      reqs.push_back(r);
    }
  };
  for (const Piece& p : recvs) post(false, p);
  for (const Piece& p : sends) post(true, p);
  if (wait && !reqs.empty())
    check_mpi(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
}

#else  // a single rank without MPI

struct Communicator::Impl {};

Communicator::Communicator(bool has_comm, int64_t) : impl_(new Impl) {
  if (has_comm)
    fail(PVEC_ERROR_NOT_SUPPORTED, "a communicator was given but pvec was built without MPI");
}
Communicator::~Communicator() = default;
int64_t Communicator::fortran_handle() const { return -1; }
bool Communicator::same_ranks(const Communicator&) const { return true; }
int64_t Communicator::allreduce_sum(int64_t v) const { return v; }
int64_t Communicator::allreduce_max(int64_t v) const { return v; }
void Communicator::allreduce(void*, int64_t, pvec_dtype, AllreduceOp) const {}
int64_t Communicator::exclusive_scan_sum(int64_t) const { return 0; }
void Communicator::allgather_bytes(const void* mine, size_t bytes, void* all) const {
  if (bytes > 0) std::memcpy(all, mine, bytes);
}
void Communicator::exchange_counts(const std::vector<int64_t>& send_counts,
                                   std::vector<int64_t>& recv_counts) const {
  recv_counts = send_counts;
}
void Communicator::exchange_data(const void* send, const std::vector<int64_t>& send_counts,
                                 const std::vector<int64_t>& send_displs, void* recv,
                                 const std::vector<int64_t>&,
                                 const std::vector<int64_t>& recv_displs, bool) const {
  if (send_counts[0] > 0)
    std::memcpy(static_cast<char*>(recv) + recv_displs[0],
                static_cast<const char*>(send) + send_displs[0], send_counts[0]);
}
void* Communicator::shared_window(int64_t, std::vector<char*>& bases) const {
  bases.assign(1, nullptr);
  return nullptr;  // one rank: nothing to share
}
void Communicator::free_shared_window(void*) const noexcept {}
void Communicator::sync_shared_window(void*) const {}
void Communicator::exchange_pieces(const std::vector<Piece>& sends, const std::vector<Piece>& recvs,
                                   bool) const {
  if (!sends.empty() || !recvs.empty())
    fail(PVEC_ERROR_INTERNAL, "exchange_pieces: a piece from the only rank to itself");
}
void Communicator::wait_pending() const {}

#endif

}  // namespace pvec::impl
