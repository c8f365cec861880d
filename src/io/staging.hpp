// Staging of one column's local particles between a mirror and the particle-major
// (interleaved) rows that files hold: VTK tuples and HDF5 [N][ncomp] rows. The device mirror
// is read through a host staging copy, never through the user's host mirror.
#pragma once

#include "vector/dist_vector.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pvec::impl::io {

// Local particles [0, n_local) of column col, interleaved: particle i, component c at element
// i*width + c, width = max(ncomp, pad_to); components beyond ncomp are zero. device: read the
// device mirror (the caller flushed it). scratch: reused staging memory.
void read_rows(const ParticleSet& ps, int col, bool device, int pad_to,
               std::vector<unsigned char>& out, std::vector<unsigned char>& scratch);

// The reverse for the host mirror: rows [0, n) of column col from interleaved data.
void write_rows_host(ParticleSet& ps, int col, int64_t n, const unsigned char* in);

// Prepare a vector's mirror for reading by read_rows: flush the deferred device zero fill
// and wait for the vector's stream.
void prepare_read(DistVector& v, bool device);

// Throw PVEC_ERROR_IO naming path, with errno's text.
[[noreturn]] void fail_io(const std::string& what, const std::string& path);

// Write bytes to path through path.tmp<suffix> and a rename; throws PVEC_ERROR_IO.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace pvec::impl::io
