// sph_options.hpp -- the command line of the SPH dam break, and the options a restart takes
// from its checkpoint.
#ifndef SPH_OPTIONS_HPP
#define SPH_OPTIONS_HPP

#include <pvec.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace sph {

struct Options {
  int dim = 3;
  double dp = 1.0 / 16;  // particle spacing [m] (a = 1 m)
  double width = 1.0;    // 3D: the periodic width, in units of a
  double time = -1;      // physical end time [s]; default: T = t sqrt(2g/a) = 3.4
  std::int64_t steps = -1;
  bool f32 = false, quiet = false, count_weight = false;
  bool cell_order = false;       // --order cell: lists in cell order instead of id order
  bool keep_wall_pairs = false;  // --keep-wall-pairs: no pair filter
  bool host = false;             // --host: the host backend even where a GPU is
  int rebalance_every = 100, vtk_every = 200;
  double threshold = 1.1;
  std::int64_t checkpoint_at = -1;
  std::string vtk, checkpoint, restart;
};

/// Reads the options; false on an unknown or bad one.
inline bool parse(int argc, char** argv, Options* o) {
  for (int k = 1; k < argc; ++k) {
    const std::string s = argv[k];
    const bool more = k + 1 < argc;
    if (s == "--dim" && more) {
      o->dim = std::atoi(argv[++k]);
    } else if (s == "--dp" && more) {
      o->dp = std::atof(argv[++k]);
    } else if (s == "--width" && more) {
      o->width = std::atof(argv[++k]);
    } else if (s == "--time" && more) {
      o->time = std::atof(argv[++k]);
    } else if (s == "--steps" && more) {
      o->steps = std::atoll(argv[++k]);
    } else if (s == "--float32") {
      o->f32 = true;
    } else if (s == "--quiet") {
      o->quiet = true;
    } else if (s == "--rebalance-every" && more) {
      o->rebalance_every = std::atoi(argv[++k]);
    } else if (s == "--threshold" && more) {
      o->threshold = std::atof(argv[++k]);
    } else if (s == "--rebalance-weight" && more) {
      const std::string w = argv[++k];
      if (w != "count" && w != "neighbors") return false;
      o->count_weight = w == "count";
    } else if (s == "--order" && more) {
      const std::string w = argv[++k];
      if (w != "key" && w != "cell") return false;
      o->cell_order = w == "cell";
    } else if (s == "--keep-wall-pairs") {
      o->keep_wall_pairs = true;
    } else if (s == "--host") {
      o->host = true;
    } else if (s == "--vtk" && more) {
      o->vtk = argv[++k];
    } else if (s == "--vtk-every" && more) {
      o->vtk_every = std::atoi(argv[++k]);
    } else if (s == "--checkpoint" && more) {
      o->checkpoint = argv[++k];
    } else if (s == "--checkpoint-at" && more) {
      o->checkpoint_at = std::atoll(argv[++k]);
    } else if (s == "--restart" && more) {
      o->restart = argv[++k];
    } else {
      return false;
    }
  }
  return (o->dim == 2 || o->dim == 3) && o->dp > 0 && o->dp <= 0.5 && o->width > 0 &&
         o->rebalance_every >= 0 && o->threshold >= 1 && o->vtk_every > 0;
}

// The checkpoint's geometry and precision replace the options' (metadata dim, na, ny).
inline bool restart_options(Options* o) {
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  int count = 0;
  if (pvec_checkpoint_describe(o->restart.c_str(), &desc, nullptr, nullptr, nullptr) !=
          PVEC_SUCCESS ||
      pvec_checkpoint_get_metadata_count(o->restart.c_str(), &count) != PVEC_SUCCESS)
    return false;
  double na = 0, ny = 1;
  for (int k = 0; k < count; ++k) {
    char key[64];
    double value = 0;
    if (pvec_checkpoint_get_metadata(o->restart.c_str(), k, key, sizeof key, nullptr, nullptr,
                                     &value, 1, nullptr, 0) != PVEC_SUCCESS)
      return false;
    if (std::string(key) == "na") na = value;
    if (std::string(key) == "ny") ny = value;
  }
  if (na < 1) return false;
  o->dim = desc.dim;
  o->f32 = desc.pos_dtype == PVEC_FLOAT32;
  o->dp = 1.0 / na;
  o->width = ny / na;
  return true;
}

}  // namespace sph

#endif  // SPH_OPTIONS_HPP
