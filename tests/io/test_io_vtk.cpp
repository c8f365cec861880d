// The VTK writer (issue 20): one .vtp per rank, a .pvtp written by rank 0 and a .pvd series
// that grows step by step and keeps its entries across a restart of the series; the pieces'
// headers name every property with its VTK type and component count; ghosts are not written;
// the device-mirror write leaves the host mirror untouched; bad input changes nothing.
// (tests/io/test_io_vtk.py opens the files with VTK's own reader.)
#include "dist_util.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace dist;

namespace {

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("write_vtk: pieces, index and a growing time series", "[io][vtk]") {
  int64_t pid = rank() == 0 ? static_cast<int64_t>(getpid()) : 0;
  pid = sum(pid);
  const std::string dir = "vtk_test_" + std::to_string(pid);
  if (rank() == 0) ::mkdir(dir.c_str(), 0777);
  barrier();
  const std::string prefix = dir + "/run";
  Props p;
  pvec_schema_t s = make_full_schema(&p);
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 2;
  d.pos_dtype = PVEC_FLOAT32;
  d.ghost_width = 0.2;
  d.boundary[0] = PVEC_PERIODIC;
  d.n_particles = rank() == 1 ? 0 : 11 + rank();
  d.placement = PVEC_PLACE_LOCAL;
  d.backend = PVEC_BACKEND_HOST;
  pvec_vector_t v = nullptr;
  DIST_OK(pvec_vector_create(&d, s, &v));
  pvec_schema_destroy(s);
  const Column pos = column(v, PVEC_POS);
  Rng rng(7 + rank());
  for (int64_t i = 0; i < n_local(v); ++i)
    for (int k = 0; k < 2; ++k) set_pos(pos, i, k, rng.uniform(0.0, 0.999));
  fill_values(v, p, 0, n_local(v), 1);
  DIST_OK(pvec_map(v, 0, nullptr));
  DIST_OK(pvec_ghost_get(v, nullptr, 0, 0));
  const int64_t n = n_local(v);
  Failures f;

  DIST_OK(pvec_vtk_write(v, prefix.c_str(), 0, 0.0, nullptr, 0, PVEC_VTK_RANK_ARRAY));
  DIST_OK(pvec_host_to_device(v, nullptr, 0));
  const pvec_test::Snapshot before = pvec_test::snapshot(v);
  DIST_OK(pvec_vtk_write(v, prefix.c_str(), 10, 0.5, nullptr, 0, PVEC_ON_DEVICE));
  if (!(pvec_test::snapshot(v) == before)) f.add("write_vtk changed the vector");

  char piece[64];
  std::snprintf(piece, sizeof piece, "/run_000010/run_%04d.vtp", rank());
  const std::string vtp = slurp(dir + piece);
  if (vtp.find("NumberOfPoints=\"" + std::to_string(n) + "\"") == std::string::npos)
    f.addf("piece lacks NumberOfPoints=", n, " (ghosts must not be written)");
  for (const char* tag :
       {"header_type=\"UInt64\"", "encoding=\"raw\"", "Name=\"id\" NumberOfComponents=\"1\"",
        "type=\"Int64\" Name=\"id\"", "type=\"Float32\" Name=\"f32\"",
        "type=\"UInt32\" Name=\"u32\"", "type=\"UInt64\" Name=\"u64\"",
        "type=\"Int32\" Name=\"i32\"", "type=\"Float64\" Name=\"f64\"",
        "Name=\"v3\" NumberOfComponents=\"3\"", "Name=\"t23\" NumberOfComponents=\"6\"",
        "Name=\"t57\" NumberOfComponents=\"35\"",
        "type=\"Float32\" Name=\"Points\" NumberOfComponents=\"3\""})
    if (vtp.find(tag) == std::string::npos) f.addf("piece lacks ", tag);
  if (vtp.find("Name=\"rank\"") != std::string::npos) f.add("rank array without the flag");

  // A list: only those arrays (in declaration order, whatever the list's), the points always.
  const int few[] = {p.t23, PVEC_POS, p.f32};
  const std::string few_prefix = dir + "/few";
  DIST_OK(pvec_vtk_write(v, few_prefix.c_str(), 11, 0.6, few, 3, 0));
  std::snprintf(piece, sizeof piece, "/few_000011/few_%04d.vtp", rank());
  const std::string part = slurp(dir + piece);
  const size_t at_f32 = part.find("Name=\"f32\""), at_t23 = part.find("Name=\"t23\"");
  if (at_f32 == std::string::npos || at_t23 == std::string::npos || at_t23 < at_f32)
    f.add("the listed arrays are missing or out of declaration order");
  for (const char* absent : {"Name=\"id\"", "Name=\"v3\"", "Name=\"t57\""})
    if (part.find(absent) != std::string::npos) f.addf("unlisted array written: ", absent);
  if (part.find("Name=\"Points\"") == std::string::npos) f.add("no points with a list");
  DIST_OK(pvec_vtk_write(v, few_prefix.c_str(), 12, 0.7, PVEC_NO_PROPS, 0, PVEC_VTK_RANK_ARRAY));
  std::snprintf(piece, sizeof piece, "/few_000012/few_%04d.vtp", rank());
  const std::string bare = slurp(dir + piece);
  if (bare.find("Name=\"f32\"") != std::string::npos ||
      bare.find("Name=\"rank\"") == std::string::npos)
    f.add("PVEC_NO_PROPS: the positions and the rank array only");
  // Bad lists: refused on every rank, nothing written.
  const int twice[] = {p.f32, p.f32};
  CHECK(pvec_vtk_write(v, (dir + "/bad").c_str(), 0, 0.0, twice, 2, 0) ==
        PVEC_ERROR_INVALID_ARGUMENT);
  const int beyond[] = {99};
  CHECK(pvec_vtk_write(v, (dir + "/bad").c_str(), 0, 0.0, beyond, 1, 0) == PVEC_ERROR_OUT_OF_RANGE);
  if (slurp(dir + "/bad.pvd").size() != 0) f.add("a refused write left a .pvd");
  char piece0[64];
  std::snprintf(piece0, sizeof piece0, "/run_000000/run_%04d.vtp", rank());
  if (slurp(dir + piece0).find("type=\"Int32\" Name=\"rank\"") == std::string::npos)
    f.add("rank array missing with PVEC_VTK_RANK_ARRAY");
  if (rank() == 0) {
    const std::string pvtp = slurp(dir + "/run_000010.pvtp");
    if (count_of(pvtp, "<Piece Source=") != size()) f.add("pvtp: wrong number of pieces");
    const std::string pvd = slurp(prefix + ".pvd");
    if (count_of(pvd, "<DataSet") != 2) f.addf("pvd has not 2 entries:\n", pvd);
  }
  f.require("first two steps");

  // A restarted series: a new vector (as after pvec_checkpoint_restart) writes later steps, and an
  // earlier step again; the entries already there stay, the repeated step is replaced.
  DIST_OK(pvec_vtk_write(v, prefix.c_str(), 20, 1.0, nullptr, 0, 0));
  DIST_OK(pvec_vtk_write(v, prefix.c_str(), 10, 0.5, nullptr, 0, 0));
  if (rank() == 0) {
    const std::string pvd = slurp(prefix + ".pvd");
    if (count_of(pvd, "<DataSet") != 3) f.addf("pvd has not 3 entries:\n", pvd);
    const size_t a = pvd.find("run_000000.pvtp"), b = pvd.find("run_000010.pvtp"),
                 c = pvd.find("run_000020.pvtp");
    if (!(a < b && b < c && c != std::string::npos)) f.addf("pvd not in time order:\n", pvd);
    if (pvd.find("timestep=\"0.5\"") == std::string::npos) f.add("pvd lacks time 0.5");
  }
  f.require("series");

  // Bad input: a status, no file, the vector unchanged.
  const pvec_test::Snapshot snap = pvec_test::snapshot(v);
  CHECK(pvec_vtk_write(v, nullptr, 0, 0, nullptr, 0, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_vtk_write(v, "", 0, 0, nullptr, 0, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_vtk_write(v, prefix.c_str(), -1, 0, nullptr, 0, 0) == PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_vtk_write(v, prefix.c_str(), 1, INFINITY, nullptr, 0, 0) ==
        PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_vtk_write(v, prefix.c_str(), 1, 0, nullptr, 0, 1u << 9) ==
        PVEC_ERROR_INVALID_ARGUMENT);
  CHECK(pvec_vtk_write(nullptr, prefix.c_str(), 1, 0, nullptr, 0, 0) == PVEC_ERROR_INVALID_HANDLE);
  // A folder on the way that is a file: PVEC_ERROR_IO on every rank, naming it.
  const std::string blocked = prefix + ".pvd/sub/run";
  const pvec_status io = pvec_vtk_write(v, blocked.c_str(), 1, 0, nullptr, 0, 0);
  CHECK(io == PVEC_ERROR_IO);
  CHECK(std::string(pvec_last_error()).find(prefix + ".pvd") != std::string::npos);
  CHECK(std::string(pvec_last_error()).find("Not a directory") != std::string::npos);
  CHECK(pvec_test::snapshot(v) == snap);
  if (rank() == 0) CHECK(count_of(slurp(prefix + ".pvd"), "<DataSet") == 3);

  // Missing folders above the prefix are created, as mkdir -p, by ranks racing each other.
  const std::string deep = dir + "/out/a/b/run";
  DIST_OK(pvec_vtk_write(v, deep.c_str(), 3, 0.25, nullptr, 0, 0));
  std::snprintf(piece, sizeof piece, "/out/a/b/run_000003/run_%04d.vtp", rank());
  if (slurp(dir + piece).find("NumberOfPoints") == std::string::npos)
    f.add("no piece under the created folders");
  if (rank() == 0 && slurp(deep + ".pvd").find("run_000003.pvtp") == std::string::npos)
    f.add("no .pvd entry under the created folders");
  f.require("created folders");
  CHECK(pvec_test::snapshot(v) == snap);
  pvec_vector_destroy(v);
  // The folder goes when the files were right (a failed require above keeps it).
  barrier();
  if (rank() == 0) std::filesystem::remove_all(dir);
}
