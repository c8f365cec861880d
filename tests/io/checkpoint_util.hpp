// What the checkpoint tests share (test_io_checkpoint.cpp, test_io_checkpoint_errors.cpp,
// one MPI program): vectors whose every coordinate and value is a function of the particle's
// id, the checks of a restarted vector against them, file names all ranks agree on, and a
// small checkpoint for the bad-input cases.
#pragma once

#include "dist_util.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt_test {

using namespace dist;

inline const double kLo[4] = {-1.0, 0.0, 0.5, 2.0};
inline const double kHi[4] = {1.0, 3.0, 2.25, 2.5};
inline constexpr uint64_t kSalt = 20;

// Whether this pvec writes checkpoints (pvec_has_hdf5).
bool have_hdf5();

// Coordinate d of particle id: a function of the id, inside [lo, lo + 0.99 L).
double coord(int64_t id, int d, int dim);

// The name of a test file, the same on every rank of MPI_COMM_WORLD (rank 0's pid).
std::string path_for(const std::string& name);

// A host vector's desc: domain [kLo, kHi) in each dimension, periodic along dimension 0 only.
pvec_vector_desc make_desc(int dim, pvec_dtype pos, bool periodic);

// n particles with ids [first, first + n), positions and values functions of the id.
pvec_vector_t make_vector(pvec_vector_desc d, int64_t n, int64_t first, Props* p);

// Every local particle: values and coordinates those of its id; returns the local ids.
std::vector<int64_t> check_particles(pvec_vector_t v, const Props& p, Failures& f);

// The ids of every rank together are exactly 0 .. n_global - 1.
void check_id_set(const std::vector<int64_t>& local, int64_t n_global, Failures& f);

// The device mirror holds what the host mirror holds, on either backend: a copy from the
// device mirror to the host mirror changes no host byte.
void check_mirrors_agree(pvec_vector_t v, Failures& f);

// Removes a checkpoint, its XDMF sidecar and its temporary file (rank 0), then a barrier.
void remove_files(const std::string& path);

// A small checkpoint (every rank), its schema and desc, for the bad-input cases.
struct Small {
  std::string path;
  Props p;
  pvec_vector_desc d;
  Small(const std::string& name) : path(path_for(name)), d(make_desc(2, PVEC_FLOAT64, false)) {
    pvec_vector_t v = make_vector(d, 10, 10 * rank(), &p);
    DIST_OK(pvec_map(v, 0, nullptr));
    DIST_OK(pvec_checkpoint_write(v, path.c_str(), 1, 0.5, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                  nullptr, 0));
    pvec_vector_destroy(v);
  }
  ~Small() { remove_files(path); }
};

// pvec_checkpoint_restart must fail with want on every rank, naming `words` in the message, and
// leave out alone.
void expect_restart_fails(const std::string& path, const pvec_vector_desc& d, pvec_schema_t s,
                          pvec_status want, const std::string& words, Failures& f);

}  // namespace ckpt_test
