// HDF5 checkpoints and restart (compiled only with a parallel HDF5: PVEC_HAVE_HDF5). One file
// per checkpoint, written collectively through MPI-IO: a dataset per property and for the
// positions, rows at offsets from an exclusive scan of the local counts, the schema, geometry
// and decomposition as attributes, an XDMF sidecar for ParaView. Restart reads a block of the
// global rows per rank on any rank count, then distributes with map. See docs/io.md.
#pragma once

#include "particles/schema.hpp"
#include "vector/dist_vector.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pvec::impl::io {

// One caller attribute of /metadata: a string, a float64, or a 1-D array of float64.
struct UserAttr {
  std::string key;
  pvec_metadata_kind kind = PVEC_METADATA_NUMBER;
  std::string text;             // PVEC_METADATA_STRING
  std::vector<double> numbers;  // NUMBER: one value; ARRAY: 1 to PVEC_METADATA_MAX_VALUES
};

// What a checkpoint holds (its root attributes and schema).
struct CheckpointInfo {
  int dim = 0;
  pvec_dtype pos_dtype = PVEC_FLOAT64;
  double lo[PVEC_MAX_DIM] = {0, 0, 0, 0};
  double hi[PVEC_MAX_DIM] = {1, 1, 1, 1};
  int boundary[PVEC_MAX_DIM] = {0, 0, 0, 0};
  double ghost_width = 0;
  std::vector<PropertySpec> props;  // declaration order
  int64_t step = 0;
  double time = 0;
  int64_t n_global = 0;
  int n_ranks = 0;
  std::vector<int64_t> rank_counts;  // particles each writing rank wrote (n_ranks entries)
  std::vector<UserAttr> attrs;       // the caller's /metadata, in name order
  // The writer's decomposition, when the file records it (attribute decomposition_cuts): its
  // rank grid and the interior cuts of each dimension, dimension after dimension.
  bool has_cuts = false;
  int rank_grid[PVEC_MAX_DIM] = {1, 1, 1, 1};
  std::vector<double> cuts;
};

// Collective. cols: the columns written (0, the positions, first; then ascending); flags:
// PVEC_ON_DEVICE (validated by the caller).
void checkpoint_write(DistVector& v, const std::string& path, int64_t step, double time,
                      const std::vector<int>& cols, const std::vector<UserAttr>& attrs,
                      unsigned flags);

// Local: reads and validates the file's attributes and schema. Throws PVEC_ERROR_IO.
CheckpointInfo checkpoint_describe(const std::string& path);

// Collective: a new vector with the checkpoint's particles, distributed by map. flags:
// PVEC_RESTART_ZERO_MISSING, PVEC_RESTART_SKIP_EXTRA (validated by the caller).
std::unique_ptr<DistVector> restart(const std::string& path, const pvec_vector_desc& desc,
                                    const Schema& schema, unsigned flags);

}  // namespace pvec::impl::io
