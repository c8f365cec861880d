// lj_options.hpp -- the command line of the LJ example (lj_md.cu describes each option).
#ifndef LJ_OPTIONS_HPP
#define LJ_OPTIONS_HPP

#include <pvec.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace lj {

struct Options {
  std::int64_t cells = 8;
  int steps = 1000;
  bool f32 = false, full = false, quiet = false;
  bool overlap = false;              // --overlap: split plan-replay ghost_get, forces in two passes
  std::string trace;                 // --trace FILE
  unsigned sort = PVEC_SORT_MORTON;  // --sort morton|rowmajor|halo: pvec_vector_sort's order
  // Initial temperature. The fcc start at 1.44 melts and settles near T = 0.72, the standard
  // LJ liquid (as LAMMPS's LJ benchmark starts it); a start at 0.72 stays a solid near 0.39.
  double t0 = 1.44;
  // Steps run before the measured ones (the melting of the lattice).
  int equil = 200;
};

/// Reads the options after argv[0]; false on an unknown or malformed one.
inline bool parse(int argc, char** argv, Options* o) {
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--cells" && a + 1 < argc) {
      o->cells = std::atoll(argv[++a]);
    } else if (s == "--steps" && a + 1 < argc) {
      o->steps = std::atoi(argv[++a]);
    } else if (s == "--equil" && a + 1 < argc) {
      o->equil = std::atoi(argv[++a]);
    } else if (s == "--t0" && a + 1 < argc) {
      o->t0 = std::atof(argv[++a]);
    } else if (s == "--float32") {
      o->f32 = true;
    } else if (s == "--full") {
      o->full = true;
    } else if (s == "--quiet") {
      o->quiet = true;
    } else if (s == "--overlap") {
      o->overlap = true;
    } else if (s == "--trace" && a + 1 < argc) {
      o->trace = argv[++a];
    } else if (s == "--sort" && a + 1 < argc) {
      const std::string v = argv[++a];
      if (v == "morton")
        o->sort = PVEC_SORT_MORTON;
      else if (v == "rowmajor")
        o->sort = 0;
      else if (v == "halo")
        o->sort = PVEC_SORT_HALO_FIRST;
      else
        return false;
    } else {
      return false;
    }
  }
  return o->cells >= 1 && o->steps >= 0 && o->equil >= 0 && o->t0 > 0;
}

}  // namespace lj

#endif  // LJ_OPTIONS_HPP
