// Where an operation runs: on the host, or on the device ordered on a CUDA stream.
#pragma once

namespace pvec::detail {

struct Exec {
  bool on_device = false;
  void* stream = nullptr;
};

}  // namespace pvec::detail
