// Staging of one column's local particles between a mirror and the particle-major
// (interleaved) rows that files hold: VTK tuples and HDF5 [N][ncomp] rows. The device mirror
// is read through a host staging copy, never through the user's host mirror.
//
// Files are written and read a block of rows at a time (stage_rows rows): the interleaved block
// stays in cache between the transpose and the file call that consumes it, so a column costs
// one pass over the mirror and one over the file's bytes, and no staging buffer of a whole
// column is allocated (and faulted in) per call. A column that is already interleaved (one
// component, no padding) is handed to the file straight from the mirror (direct_rows).
#pragma once

#include "vector/dist_vector.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pvec::impl::io {

// Rows per staged block of column spec s, padded to pad_to components (>= 1).
int64_t stage_rows(const PropertySpec& s, int pad_to);

// Tests: blocks of about `bytes` (many blocks for few particles); 0 restores the default.
void force_stage_bytes_for_tests(size_t bytes);

// Bytes of one interleaved row of s padded to pad_to components.
size_t row_bytes(const PropertySpec& s, int pad_to);

// Local particles [first, first + count) of column col, interleaved into out: particle
// first + i, component c at element i*width + c, width = max(ncomp, pad_to); components
// beyond ncomp are zero. device: read the device mirror (the caller flushed it); with CUDA
// through scratch, reused staging memory (DistVector::io_staging: pinned with CUDA), which
// holds the block only during the call (so one scratch serves any number of out buffers, as
// long as one thread at a time stages).
void read_rows(const ParticleSet& ps, int col, bool device, int pad_to, int64_t first,
               int64_t count, unsigned char* out, ScratchBuffer& scratch);

// The mirror's rows [0, n_local) of column col when they already are the interleaved rows
// (one component, no padding) and host memory; else nullptr (stage with read_rows).
const unsigned char* direct_rows(const ParticleSet& ps, int col, bool device, int pad_to);

// The reverse for the host mirror: rows [first, first + count) of column col from interleaved
// data (count rows of ncomp elements).
void write_rows_host(ParticleSet& ps, int col, int64_t first, int64_t count,
                     const unsigned char* in);

// Host backend only (both mirrors host memory): copy rows [first, first + count) of every
// component of column col from the host mirror to the second mirror.
void copy_rows_to_device_mirror(ParticleSet& ps, int col, int64_t first, int64_t count);

// The host mirror's rows of column col when interleaved rows can be read into them directly
// (one component); else nullptr (stage and use write_rows_host).
unsigned char* direct_rows_host(ParticleSet& ps, int col);

// Prepare a vector's mirror for reading by read_rows: flush the deferred device zero fill
// and wait for the vector's stream.
void prepare_read(DistVector& v, bool device);

// Throw PVEC_ERROR_IO naming path, with errno's text.
[[noreturn]] void fail_io(const std::string& what, const std::string& path);

// Write bytes to path through path.tmp<suffix> and a rename; throws PVEC_ERROR_IO.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace pvec::impl::io
