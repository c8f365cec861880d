// Work buffers of the distribution layer, kept between calls so that a warmed-up map or
// ghost exchange allocates nothing.
#pragma once

#include "memory/scratch_buffer.hpp"

namespace pvec::impl {

struct Workspace {
  enum Slot {
    kLabels,
    kFlags,
    kIndexA,
    kIndexB,
    kKeysAlt,
    kValsAlt,
    kTemp,
    kSend,
    kRecv,
    kPeers,
    kCount
  };
  ScratchBuffer dev[kCount];   // the side operations run on (device memory for CUDA)
  ScratchBuffer host[kCount];  // host-side (pinned for CUDA): staging and small arrays

  void set_kinds(MemKind device_side, MemKind host_side) {
    for (auto& b : dev) b.set_kind(device_side);
    for (auto& b : host) b.set_kind(host_side);
  }
  // Buffers of the side an operation runs on.
  ScratchBuffer* side(bool device) { return device ? dev : host; }
};

}  // namespace pvec::impl
