// pvec_neighbors.hpp -- owning C++ objects for the neighbour search of pvec.h section 10.
//
// Include it next to pvec.hpp, which it includes (pvec.hpp does not include it); like pvec.hpp,
// this header calls pvec.h functions and nothing else. It adds
//
//   pvec::cell_list     a cell list of a vector (owns a pvec_cell_list_t)
//   pvec::verlet_list   a full or half Verlet list of a vector (owns a pvec_verlet_t)
//
// and pvec::vector::sort (in pvec.hpp) for the locality sort. The by-value kernel views
// pvec::cell_list_view and pvec::verlet_view are in pvec_neighbors_view.hpp (no pvec.h needed
// there; included here); view() fills them from the C structs.
//
// Lifetime. A list describes the rows of its vector when it was built. map, sort (when it
// moved rows), ghost_get with a new plan, append, remove, resize, reserve and shrink_to_fit
// make it stale: info() and view() then throw pvec::error with PVEC_ERROR_STATE until build()
// succeeds again. A ghost_get with PVEC_GHOST_REUSE_PLAN keeps the rows, so a list stays
// usable between rebuilds. The arrays a view points to stay allocated until the list is
// rebuilt or destroyed (even when stale); a view is only meaningful while the list is current.
// A list must not outlive pvec_finalize in use (pvec_finalize destroys it; its destructor then
// does nothing harmful); a list whose vector was destroyed throws PVEC_ERROR_INVALID_HANDLE.
// Lists are local objects (not collective), except verlet_list::check.
//
// Example (molecular dynamics with a skin):
//
//   pvec::verlet_list nl(v, rc, skin);   // full list on the host mirror (1 cell per rc+skin)
//   for (int step = 0; step < steps; ++step) {
//     if (nl.check()) { v.map(); v.ghost_get(); nl.build(); }   // collective decision
//     else v.ghost_get(PVEC_GHOST_REUSE_PLAN);
//     const pvec::verlet_view l = nl.view();
//     for (std::int64_t i = 0; i < l.n; ++i)
//       for (std::int64_t e = l.begin(i); e < l.end(i); ++e) force(i, l[e]);
//   }
#ifndef PVEC_NEIGHBORS_HPP
#define PVEC_NEIGHBORS_HPP

#include "pvec.hpp"
#include "pvec_neighbors_view.hpp"

#include <cstdint>
#include <utility>

namespace pvec {

/// A cell list of a vector's rows (pvec_cell_list_create); owns a pvec_cell_list_t. Move-only.
/// Every member that calls pvec throws pvec::error naming itself ("pvec::cell_list::view: ...")
/// with the C status and message; an empty (default-constructed or moved-from) list throws
/// PVEC_ERROR_INVALID_HANDLE. Local, not collective.
class cell_list {
 public:
  /// An empty object holding no list.
  cell_list() noexcept = default;
  /// Builds a cell list of v's rows for cutoff: cells at least cutoff / cells_per_cutoff wide
  /// (cells_per_cutoff in [1, 8]). flags: PVEC_ON_DEVICE (build on the device mirror; the
  /// arrays are then device memory), PVEC_CELLS_GHOSTS (include the ghost rows).
  /// Throws pvec::error: INVALID_HANDLE (v), INVALID_ARGUMENT (unknown flags, cutoff not
  /// positive and finite or above the ghost width, cells_per_cutoff out of range, a NaN or
  /// infinite position), NOT_SUPPORTED (dimension 4, 2^31 rows or cells), OUT_OF_MEMORY, CUDA.
  cell_list(const vector& v, double cutoff, int cells_per_cutoff = 1, unsigned flags = 0) {
    detail::check_in("pvec::cell_list",
                     pvec_cell_list_create(v.get(), cutoff, cells_per_cutoff, flags, &handle_));
  }
  /// Destroys the list (pvec_cell_list_destroy); errors are ignored.
  ~cell_list() { reset(); }
  /// Takes other's list; other becomes empty.
  cell_list(cell_list&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  /// Destroys this list and takes other's.
  cell_list& operator=(cell_list&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  cell_list(const cell_list&) = delete;
  cell_list& operator=(const cell_list&) = delete;

  /// Rebuilds from the vector's rows as they are now (same cutoff and flags), reusing the
  /// arrays when large enough: earlier views may point to freed memory afterwards. On error
  /// the list stays stale. Throws as the constructor, and INVALID_HANDLE when the vector was
  /// destroyed.
  void build() { detail::check_in("pvec::cell_list::build", pvec_cell_list_build(handle_)); }

  /// The C struct (pvec_cell_list_get_info): geometry, sizes and array pointers. Throws
  /// pvec::error: INVALID_HANDLE, STATE (stale: rebuild first).
  pvec_cell_list_info info() const {
    pvec_cell_list_info out{};  // the _INIT macro trips -Wmissing-field-initializers
    out.struct_size = sizeof out;
    detail::check_in("pvec::cell_list::info", pvec_cell_list_get_info(handle_, &out));
    return out;
  }

  /// The kernel view of the current list, to pass by value into a kernel (on_device() lists)
  /// or use in host code. Valid until the list is rebuilt or destroyed and only while the
  /// vector's rows are unchanged. Throws as info() (STATE when stale).
  cell_list_view view() const {
    pvec_cell_list_info i{};
    i.struct_size = sizeof i;
    detail::check_in("pvec::cell_list::view", pvec_cell_list_get_info(handle_, &i));
    cell_list_view v{};
    v.dim = i.dim;
    v.span = i.span;
    for (int d = 0; d < 3; ++d) {
      v.origin[d] = i.origin[d];
      v.width[d] = i.width[d];
      v.inv_width[d] = i.inv_width[d];
      v.dims[d] = i.dims[d];
    }
    v.ncells = i.ncells;
    v.n_local = i.n_local;
    v.n_entries = i.n_entries;
    v.sorted = i.sorted;
    v.cell_offsets = i.cell_offsets;
    v.cell_particles = i.cell_particles;
    v.local_offsets = i.local_offsets;
    return v;
  }

  /// The C handle (nullptr when empty); it stays owned by this object.
  pvec_cell_list_t get() const noexcept { return handle_; }
  /// Gives up ownership: returns the handle, which the caller must pvec_cell_list_destroy.
  pvec_cell_list_t release() noexcept { return std::exchange(handle_, nullptr); }
  /// Destroys the list now (if any); its arrays are freed and the object becomes empty.
  void reset() noexcept {
    if (handle_ != nullptr) pvec_cell_list_destroy(handle_);
    handle_ = nullptr;
  }
  /// True while the object holds a list.
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  pvec_cell_list_t handle_ = nullptr;
};

/// A Verlet list (pvec_verlet_create) of a vector's local particles over its local and ghost
/// rows, in CSR form; owns a pvec_verlet_t. Move-only. Errors as for cell_list. Local, except
/// check(), which is collective.
class verlet_list {
 public:
  /// An empty object holding no list.
  verlet_list() noexcept = default;
  /// Builds a list of the pairs closer than cutoff + skin (at most the ghost width), from a
  /// cell list of cells_per_cutoff cells per (cutoff + skin). flags: PVEC_ON_DEVICE,
  /// PVEC_VERLET_HALF (each pair once; pvec.h section 10 says which side owns a pair with a
  /// ghost). Keeps the local positions as the reference of check().
  /// Throws pvec::error: INVALID_HANDLE, INVALID_ARGUMENT (unknown flags, cutoff not positive,
  /// skin negative, either not finite, cutoff + skin above the ghost width, cells_per_cutoff
  /// out of [1, 8], a NaN or infinite position), STATE (a half list whose ghosts do not come
  /// from the last valid ghost plan), NOT_SUPPORTED, OUT_OF_MEMORY, CUDA.
  verlet_list(const vector& v, double cutoff, double skin, int cells_per_cutoff = 1,
              unsigned flags = 0) {
    detail::check_in("pvec::verlet_list",
                     pvec_verlet_create(v.get(), cutoff, skin, cells_per_cutoff, flags, &handle_));
  }
  /// pvec_verlet_create_with: the same list with options (start from PVEC_VERLET_OPTIONS_INIT):
  /// key_prop orders each particle's neighbours by an integer id (sums over the list are then
  /// bitwise the same on any decomposition), skip_prop leaves out the pairs of two particles
  /// flagged nonzero. Throws pvec::error: as above, and OUT_OF_RANGE, DTYPE_MISMATCH,
  /// INVALID_ARGUMENT (a property that is no scalar integer), STATE (its ghost rows are not
  /// current on the list's mirror).
  verlet_list(const vector& v, const pvec_verlet_options& opts) {
    detail::check_in("pvec::verlet_list", pvec_verlet_create_with(v.get(), &opts, &handle_));
  }
  /// Destroys the list (pvec_verlet_destroy); errors are ignored.
  ~verlet_list() { reset(); }
  /// Takes other's list; other becomes empty.
  verlet_list(verlet_list&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  /// Destroys this list and takes other's.
  verlet_list& operator=(verlet_list&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  verlet_list(const verlet_list&) = delete;
  verlet_list& operator=(const verlet_list&) = delete;

  /// Rebuilds from the rows as they are now (after map and a new ghost_get, typically) and
  /// takes the current positions as the new reference of check(). Earlier views may point to
  /// freed memory afterwards. On error the list stays stale. Throws as the constructor.
  void build() { detail::check_in("pvec::verlet_list::build", pvec_verlet_build(handle_)); }

  /// True when some local particle on some rank moved more than skin / 2 since the build, or
  /// the list is stale: then rebuild (all ranks get the same answer). Collective. Runs on the
  /// mirror the list was built on (only a flag comes back from the GPU).
  /// Throws pvec::error: INVALID_HANDLE, CUDA, MPI.
  bool check() {
    int rebuild = 0;
    detail::check_in("pvec::verlet_list::check", pvec_verlet_check(handle_, &rebuild));
    return rebuild != 0;
  }

  /// The C struct (pvec_verlet_get_info). Throws pvec::error: INVALID_HANDLE, STATE (stale).
  pvec_verlet_info info() const {
    pvec_verlet_info out{};
    out.struct_size = sizeof out;
    detail::check_in("pvec::verlet_list::info", pvec_verlet_get_info(handle_, &out));
    return out;
  }

  /// The kernel view of the current list. Valid as cell_list::view. Throws as info().
  verlet_view view() const {
    pvec_verlet_info i{};
    i.struct_size = sizeof i;
    detail::check_in("pvec::verlet_list::view", pvec_verlet_get_info(handle_, &i));
    verlet_view v{};
    v.n = i.n;
    v.offsets = i.offsets;
    v.neighbors = i.neighbors;
    v.half = i.half;
    return v;
  }

  /// The C handle (nullptr when empty); it stays owned by this object.
  pvec_verlet_t get() const noexcept { return handle_; }
  /// Gives up ownership: returns the handle, which the caller must pvec_verlet_destroy.
  pvec_verlet_t release() noexcept { return std::exchange(handle_, nullptr); }
  /// Destroys the list now (if any); the object becomes empty.
  void reset() noexcept {
    if (handle_ != nullptr) pvec_verlet_destroy(handle_);
    handle_ = nullptr;
  }
  /// True while the object holds a list.
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  pvec_verlet_t handle_ = nullptr;
};

}  // namespace pvec

#endif  // PVEC_NEIGHBORS_HPP
