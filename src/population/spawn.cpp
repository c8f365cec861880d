#include "population/spawn.hpp"

#include "backend/device.hpp"
#include "common/error.hpp"

#include <limits>

namespace pvec::impl {

pvec_spawner open_spawn(ParticleSet& ps, bool device, int64_t max_new, SpawnState& st,
                        int64_t id_first, int64_t id_stride) {
  if (max_new < 0) fail(PVEC_ERROR_INVALID_ARGUMENT, "max_new ", max_new, " is negative");
  const int64_t n = ps.n_local();
  if (max_new > std::numeric_limits<int64_t>::max() - 63 - n)
    fail(PVEC_ERROR_OVERFLOW, "room for ", max_new, " more particles after ", n, " overflows");
  const bool gpu = device && ps.cuda();
  if (!st.kind_set) {
    st.device_counter.set_kind(ps.device_kind());
    st.landing.set_kind(ps.cuda() ? MemKind::pinned : MemKind::host);
    st.kind_set = true;
  }
  auto* counter = st.counter(gpu).ensure_as<unsigned long long>(1);
  st.landing.ensure_as<unsigned long long>(1);  // allocated here, not in the commit
  ps.sync_stream();
  ps.flush_device();
  ps.grow_for(n + max_new, n);  // the ghosts are dropped: they need not be copied
  ps.set_sizes(n, 0);
  const bool on_device_memory = device ? ps.cuda() : false;
  for (int k = 0; k < ps.column_count(); ++k) {
    PropertyBuffer& b = ps.column(k);
    const size_t e = b.spec.elem_size;
    zero_2d(static_cast<char*>(b.mirror(device)) + n * e, b.row_bytes(ps.capacity()),
            static_cast<size_t>(max_new) * e, static_cast<size_t>(b.spec.ncomp), on_device_memory,
            ps.stream());
  }
  const unsigned long long zero = 0;
  copy_bytes(counter, &zero, sizeof zero, gpu, ps.stream());
  ps.sync_stream();  // kernels on other streams see the zeros
  st.open = true;
  st.device = device;
  st.first = n;
  st.limit = max_new;
  pvec_spawner sp;
  sp.struct_size = sizeof(pvec_spawner);
  sp.counter = counter;
  sp.first = n;
  sp.limit = max_new;
  sp.capacity = ps.capacity();
  sp.id_first = id_first;
  sp.id_stride = id_stride;
  return sp;
}

int64_t claimed_slots(ParticleSet& ps, SpawnState& st) {
  const bool gpu = st.device && ps.cuda();
  auto* landing = st.landing.ensure_as<unsigned long long>(1);
  copy_bytes(landing, st.counter(gpu).ensure_as<unsigned long long>(1), sizeof *landing, gpu,
             ps.stream());
  ps.sync_stream();
  const unsigned long long c = *landing;
  if (c > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()))
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(c);
}

}  // namespace pvec::impl
