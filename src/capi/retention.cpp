// Section 5 of pvec.h, retention: buffers kept allocated beyond their vector (pvec_vector_retain).
// The allocator does the counting; a retention handle holds one retained block.
#include "capi/guard.hpp"
#include "memory/allocator.hpp"

using namespace pvec::impl;
using namespace pvec::impl::capi;

namespace {

// One retained block; the handle table owns it, so a bad or second release is
// INVALID_HANDLE.
struct Retention {
  void* block = nullptr;
  Retention() = default;
  Retention(const Retention&) = delete;
  Retention& operator=(const Retention&) = delete;
  ~Retention() { release(block); }
};

HandleTable<Retention>& retentions() {
  static HandleTable<Retention> table("retention");
  return table;
}

}  // namespace

/* ---- 5. Retention -------------------------------------------------------------------- */

extern "C" pvec_status pvec_vector_retain(pvec_vector_t vec, int prop, int device_mirror,
                                          pvec_retention_t* out) {
  return guard("pvec_vector_retain", [&] {
    auto& v = vec_of(vec);
    pvec_retention_t& result = out_arg(out, "out");
    int col = v.column_of(prop);
    ParticleSet& ps = v.mirrors();
    if (device_mirror != 0) ps.flush_device();
    const PropertyBuffer& b = ps.column(col);
    auto r = std::make_unique<Retention>();
    void* block = device_mirror != 0 ? b.dev : b.host;
    retain(block);
    r->block = block;
    result = to_handle<pvec_retention_t>(retentions().insert(std::move(r)));
  });
}

extern "C" pvec_status pvec_retention_release(pvec_retention_t retention) {
  return guard("pvec_retention_release", [&] { retentions().take(retention); });
}
