// What the checkpoint writer and readers share besides HDF5 (io/checkpoint_write.cpp,
// checkpoint_info.cpp, checkpoint_read.cpp): the format's name and version, and the
// communicator a vector's file is opened on. Compiled only with a parallel HDF5.
#pragma once

#include "common/error.hpp"
#include "vector/dist_vector.hpp"

#include <mpi.h>

namespace pvec::impl::io {

inline constexpr int kFormatVersion = 1;
inline constexpr const char* kFormat = "pvec-checkpoint";

// The MPI communicator of v's file I/O; PVEC_ERROR_MPI when it has none.
inline MPI_Comm io_comm(const DistVector& v) {
  if (v.io_comm_f() == -1) fail(PVEC_ERROR_MPI, "the vector has no MPI communicator for file I/O");
  return MPI_Comm_f2c(static_cast<MPI_Fint>(v.io_comm_f()));
}

}  // namespace pvec::impl::io
