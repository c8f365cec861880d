// MirrorState: which mirror of each column holds its newest values, for two sets of rows (the
// local particles and the ghosts). Every change pvec makes to a mirror, and every change the
// caller declares, advances a version; a copy gives its destination the source's version. A
// mirror is current for a set of rows when its version is not below the other mirror's.
// Knows nothing of the data: a few integers per column (docs/coherence.md).
#pragma once

#include <cstdint>
#include <vector>

namespace pvec::impl {

// The row sets, or-ed (pvec.h's PVEC_ROWS_LOCAL and PVEC_ROWS_GHOST).
constexpr unsigned kRowsLocal = 1u;
constexpr unsigned kRowsGhost = 2u;
constexpr unsigned kRowsAll = kRowsLocal | kRowsGhost;

class MirrorState {
 public:
  // What changed a mirror last: the operation (a constant string such as "pvec_map") and
  // whether it ran on the device mirror.
  struct Change {
    const char* by = nullptr;
    bool device = false;
  };
  // A set of rows of a column that is older on one mirror than on the other.
  struct Stale {
    int column = -1;
    unsigned rows = 0;  // kRowsLocal or kRowsGhost
    Change newer;       // what made the other mirror newer
  };

  explicit MirrorState(int columns = 0) { resize(columns); }
  void resize(int columns);

  // An operation wrote `rows` of `columns` on one mirror, which now holds
  // the newest values of those rows.
  void wrote(bool device, const std::vector<int>& columns, unsigned rows, const char* by);
  // A copy of `rows` of `columns` to one mirror from the other: both now hold the same values
  // (the destination takes the source's version).
  void copied(bool to_device, const std::vector<int>& columns, unsigned rows);
  // The rows no longer hold particles on either mirror (ghosts dropped, or a new ghost plan):
  // equal on both, neither newer.
  void forget(unsigned rows);

  // Whether the mirror holds values at least as new as the other's for every set in rows.
  bool current(int column, bool device, unsigned rows) const;
  // The first of `columns` and row sets whose mirror is older than the
  // other; column -1 if none.
  Stale first_stale(bool device, const std::vector<int>& columns, unsigned rows) const;
  // The version of one row set of a column on one mirror (kRowsLocal or kRowsGhost): it moves
  // on exactly when that mirror's rows may have changed.
  uint64_t version(int column, bool device, unsigned row_set) const;

 private:
  struct Entry {
    uint64_t version[2] = {0, 0};
    Change change[2];
  };
  Entry& at(int column, unsigned row_set);
  const Entry& at(int column, unsigned row_set) const;
  std::vector<Entry> local_, ghost_;
  uint64_t clock_ = 0;
};

}  // namespace pvec::impl
