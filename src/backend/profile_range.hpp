// ProfileRange: an NVTX range (domain "pvec") around one pvec operation, so that Nsight Systems
// shows pvec's calls inside the user's timeline. Header-only NVTX 3 from the CUDA toolkit
// (PVEC_HAVE_NVTX); without a profiler attached a push and a pop cost about 2 ns together
// (docs/overlap.md); without the header, nothing.
#pragma once

#if defined(PVEC_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace pvec::impl {

class ProfileRange {
 public:
  // name: a string that lives as long as the program (the C function's name).
  explicit ProfileRange(const char* name) {
#if defined(PVEC_HAVE_NVTX)
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(domain(), &a);
#else
    (void)name;
#endif
  }
  ~ProfileRange() {
#if defined(PVEC_HAVE_NVTX)
    nvtxDomainRangePop(domain());
#endif
  }
  ProfileRange(const ProfileRange&) = delete;
  ProfileRange& operator=(const ProfileRange&) = delete;

 private:
#if defined(PVEC_HAVE_NVTX)
  static nvtxDomainHandle_t domain() {
    static const nvtxDomainHandle_t d = nvtxDomainCreateA("pvec");
    return d;
  }
#endif
};

}  // namespace pvec::impl
