// GhostFlight: a ghost exchange between its begin and its end (pvec_ghost_get_begin,
// pvec_ghost_put_begin): the messages are posted, and the end needs their layout and where
// they land to complete them and unpack (ghost_get) or reduce (ghost_put) them.
#pragma once

#include "comm/transport.hpp"
#include "exchange/message_layout.hpp"

#include <pvec.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace pvec::impl {

struct GhostFlight {
  enum class Kind { none, get, put };
  Kind kind = Kind::none;
  bool device = false;
  bool pieces = false;  // ghost_get on host memory through MPI: blocks sent in pieces
  std::optional<MessageLayout> layout;
  std::vector<int64_t> send_bytes, send_displs, recv_bytes, recv_displs;
  char* recvbuf = nullptr;
  Transport::Flight transport;
  pvec_reduce_op op = PVEC_REDUCE_ADD;

  bool active() const { return kind != Kind::none; }
};

}  // namespace pvec::impl
