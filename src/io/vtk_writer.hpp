// VTK XML PolyData output for ParaView, without any dependency: one .vtp piece per rank
// (binary appended data, raw, UInt64 headers), a .pvtp index and a growing .pvd time series
// written by rank 0. See pvec_vtk_write in pvec.h and docs/io.md.
#pragma once

#include "vector/dist_vector.hpp"

#include <cstdint>
#include <string>

namespace pvec::impl::io {

// Collective. cols: the property columns written (ascending, >= 1; the positions always are);
// flags: PVEC_ON_DEVICE, PVEC_VTK_RANK_ARRAY (validated by the caller).
void write_vtk(DistVector& v, const std::string& prefix, int64_t step, double time,
               const std::vector<int>& cols, unsigned flags);

// The VTK type name of a pvec dtype ("Float64").
const char* vtk_type(pvec_dtype d);

}  // namespace pvec::impl::io
