#include "coherence/mirror_state.hpp"

#include <cstddef>

namespace pvec::impl {

namespace {
template <class F>
void for_columns(const std::vector<int>& columns, F f) {
  for (const int c : columns) f(c);
}
}  // namespace

void MirrorState::resize(int columns) {
  local_.resize(static_cast<size_t>(columns));
  ghost_.resize(static_cast<size_t>(columns));
}

MirrorState::Entry& MirrorState::at(int column, unsigned row_set) {
  return (row_set == kRowsGhost ? ghost_ : local_)[static_cast<size_t>(column)];
}

const MirrorState::Entry& MirrorState::at(int column, unsigned row_set) const {
  return (row_set == kRowsGhost ? ghost_ : local_)[static_cast<size_t>(column)];
}

void MirrorState::wrote(bool device, const std::vector<int>& columns, unsigned rows,
                        const char* by) {
  const uint64_t v = ++clock_;
  const int side = device ? 1 : 0;
  for_columns(columns, [&](int c) {
    for (const unsigned set : {kRowsLocal, kRowsGhost}) {
      if ((rows & set) == 0) continue;
      Entry& e = at(c, set);
      e.version[side] = v;
      e.change[side] = Change{by, device};
    }
  });
}

void MirrorState::copied(bool to_device, const std::vector<int>& columns, unsigned rows) {
  const int to = to_device ? 1 : 0;
  for_columns(columns, [&](int c) {
    for (const unsigned set : {kRowsLocal, kRowsGhost}) {
      if ((rows & set) == 0) continue;
      Entry& e = at(c, set);
      e.version[to] = e.version[1 - to];
      e.change[to] = e.change[1 - to];
    }
  });
}

void MirrorState::forget(unsigned rows) {
  for (const unsigned set : {kRowsLocal, kRowsGhost}) {
    if ((rows & set) == 0) continue;
    for (Entry& e : set == kRowsGhost ? ghost_ : local_) e = Entry{};
  }
}

bool MirrorState::current(int column, bool device, unsigned rows) const {
  const int side = device ? 1 : 0;
  for (const unsigned set : {kRowsLocal, kRowsGhost}) {
    if ((rows & set) == 0) continue;
    const Entry& e = at(column, set);
    if (e.version[side] < e.version[1 - side]) return false;
  }
  return true;
}

MirrorState::Stale MirrorState::first_stale(bool device, const std::vector<int>& columns,
                                            unsigned rows) const {
  Stale s;
  const int side = device ? 1 : 0;
  for_columns(columns, [&](int c) {
    if (s.column >= 0) return;
    for (const unsigned set : {kRowsLocal, kRowsGhost}) {
      if ((rows & set) == 0) continue;
      const Entry& e = at(c, set);
      if (e.version[side] < e.version[1 - side]) {
        s = Stale{c, set, e.change[1 - side]};
        return;
      }
    }
  });
  return s;
}

uint64_t MirrorState::version(int column, bool device, unsigned row_set) const {
  return at(column, row_set).version[device ? 1 : 0];
}

}  // namespace pvec::impl
