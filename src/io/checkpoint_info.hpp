// What a checkpoint holds, read and validated (checkpoint_describe, and the first step of a
// restart): every root attribute, the schema, the datasets' shapes, storage and checksum
// attributes, /rank_counts, the recorded decomposition and the caller's /metadata, each
// refused with PVEC_ERROR_IO naming the file and the field when no writer would have written
// it (docs/io.md).
#pragma once

#include "io/checkpoint.hpp"
#include "io/h5_helpers.hpp"

#include <hdf5.h>

#include <string>

namespace pvec::impl::io {

// Opens path read-only through fapl (H5P_DEFAULT or an MPI-IO list), after checking that it
// exists and is HDF5. Throws PVEC_ERROR_IO.
H5 open_checkpoint(const std::string& path, hid_t fapl);

// The root attributes and schema of the open file, validated. Throws PVEC_ERROR_IO.
CheckpointInfo read_checkpoint_info(hid_t file, const std::string& path);

}  // namespace pvec::impl::io
