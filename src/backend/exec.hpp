// Where an operation runs: on the host, or on the device ordered on a CUDA stream.
#pragma once

namespace pvec::impl {

struct Exec {
  bool on_device = false;
  void* stream = nullptr;
};

}  // namespace pvec::impl
