// What the neighbour-search tests share (test_neighbor_lists.cpp, test_locality_sort.cpp,
// test_build_methods.cpp, one MPI program): the random boxes, the list fetches from either
// mirror, and the brute-force reference of a full Verlet list.
#pragma once

#include "dist_util.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace nbr_test {

using namespace dist;

struct Box {
  int dim = 3;
  pvec_dtype pos = PVEC_FLOAT64;
  bool periodic = true;
  double length = 1.0;
  double ghost = 0.2;
  int64_t n_per_rank = 300;
  uint64_t seed = 7;
  double lattice = 0;  // > 0: particles on lattice sites of this spacing, nudged (see make_box)
};

inline constexpr int kId = 0, kAcc = 1, kVel = 2;

// A vector of uniform random particles in [0, L)^dim, ids 0..N-1 over the ranks, vel a
// function of the id; mapped and with ghosts (host mirror), then copied to the device mirror.
pvec_vector_t make_box(const Box& b);

// Whether rows i and j of pos are closer than r, in the position type t as pvec computes it.
bool within(const Column& pos, pvec_dtype t, int dim, int64_t i, int64_t j, double r);

struct HostList {
  std::vector<int64_t> offsets;
  std::vector<int32_t> nbr;
  int64_t n = 0;
};

// The arrays of Verlet list l, on the host.
HostList fetch_list(pvec_verlet_t l);

// Brings the device mirror's rows to the host (after a device-path operation).
inline void to_host(pvec_vector_t v) { DIST_OK(pvec_device_to_host(v, nullptr, 0)); }

// The device path runs map and ghost_get on the device mirror (then both mirrors agree).
void run_path(pvec_vector_t v, Path p);

// Checks h against the brute-force list of every row within r of each local particle.
void check_full_list(pvec_vector_t v, const HostList& h, double r, Failures& f);

// A box's parameters, for INFO.
std::string box_name(const Box& b);

// The boxes most cases run over: 1D/2D/3D, periodic and open, float64 and float32 positions.
std::vector<Box> boxes();

}  // namespace nbr_test
