// Snapshot: a vector's sizes and the live bytes of every column (positions first) of the host
// mirror, and of the device mirror where it is host memory, so that a test can show that a
// call changed nothing (operator==) or which rows changed (compare_rows). The one snapshot
// helper of the C-ABI, hardening and distribution tests.
#pragma once

#include <pvec.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pvec_test {

struct Snapshot {
  int64_t n_local = 0, n_ghost = 0, capacity = 0;
  uint64_t generation = 0;
  int nprops = 0;
  std::vector<std::vector<unsigned char>> cols;  // PVEC_POS first; ncomp rows of live bytes
  std::vector<std::vector<unsigned char>> dev;   // the same of the device mirror, when readable
  std::vector<size_t> elem;
  std::vector<int64_t> ncomp;
  int64_t rows() const { return n_local + n_ghost; }
  bool operator==(const Snapshot& o) const;
  bool operator!=(const Snapshot& o) const { return !(*this == o); }
};

// Sizes, generation and live rows of both mirrors (the device mirror only with the host
// backend, where it is host memory).
Snapshot snapshot(pvec_vector_t v);
// Writes s's host rows back into the host mirror (sizes must match).
void restore_host(pvec_vector_t v, const Snapshot& s);
// First difference in rows [0, rows) of every host column, or "".
std::string compare_rows(const Snapshot& a, const Snapshot& b, int64_t rows);
// One line: the sizes and a checksum of each mirror's bytes.
std::string to_string(const Snapshot& s);

}  // namespace pvec_test
