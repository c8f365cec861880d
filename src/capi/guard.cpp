#include "capi/guard.hpp"

#include "runtime/environment.hpp"

#include <atomic>

namespace pvec::impl {

uint64_t next_handle_id() {
  static std::atomic<uint64_t> next{0x1000};
  return next.fetch_add(1);
}

namespace capi {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

HandleTable<Schema>& schemas() {
  static HandleTable<Schema> table("schema");
  return table;
}

HandleTable<DistVector>& vectors() {
  static HandleTable<DistVector> table("vector");
  return table;
}

HandleTable<CellListObject>& cell_lists() {
  static HandleTable<CellListObject> table("cell list");
  return table;
}

HandleTable<VerletObject>& verlet_lists() {
  static HandleTable<VerletObject> table("Verlet list");
  return table;
}

void require_init() {
  if (!environment_initialized())
    fail(PVEC_ERROR_STATE, "pvec is not initialised: call pvec_init first");
}

}  // namespace capi
}  // namespace pvec::impl
