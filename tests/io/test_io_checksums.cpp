// Damage to the particle data (issue 41, defect 3): every dataset of a checkpoint carries the
// checksums of its writing ranks' blocks (io/row_checksum.hpp). One byte flipped anywhere in
// any dataset's rows makes the restart fail with PVEC_ERROR_IO on every rank, the message
// naming the dataset and the rows; the undamaged file restarts. (Blocks read in other pieces
// than written, as on another rank count: test_io_write_failures.cpp checks BlockSums.)
#include "checkpoint_util.hpp"

#include <hdf5.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace ckpt_test;

namespace {

// The byte offset in the file of dataset name's rows, and their size (rank 0, serial HDF5).
std::pair<int64_t, int64_t> rows_at(const std::string& path, const std::string& name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  REQUIRE(d >= 0);
  const haddr_t at = H5Dget_offset(d);
  const hsize_t bytes = H5Dget_storage_size(d);
  H5Dclose(d);
  H5Fclose(f);
  REQUIRE(at != HADDR_UNDEF);
  return {static_cast<int64_t>(at), static_cast<int64_t>(bytes)};
}

pvec_status restart_of(const std::string& path, const pvec_vector_desc& d, std::string* msg) {
  Props q;
  pvec_schema_t s = make_full_schema(&q);
  pvec_vector_t r = nullptr;
  const pvec_status st = pvec_checkpoint_restart(path.c_str(), &d, s, 0, &r);
  *msg = pvec_last_error();
  pvec_schema_destroy(s);
  if (r) pvec_vector_destroy(r);
  return st;
}

}  // namespace

TEST_CASE("a byte flipped in any dataset is found by the restart", "[io][errors]") {
  if (!have_hdf5()) return;
  Props p;
  const pvec_vector_desc d = make_desc(3, PVEC_FLOAT64, true);
  pvec_vector_t v = make_vector(d, 40 + 7 * rank(), 1000 * rank(), &p);
  DIST_OK(pvec_map(v, 0, nullptr));
  const std::string path = path_for("sums"), copy = path_for("sums_copy");
  DIST_OK(pvec_checkpoint_write(v, path.c_str(), 3, 0.5, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                nullptr, 0));
  pvec_vector_destroy(v);
  Failures f;
  std::string msg;
  if (restart_of(path, d, &msg) != PVEC_SUCCESS) f.addf("the undamaged file: ", msg);
  std::vector<std::string> names{"/positions"};
  for (const char* q : {"id", "f32", "f64", "i32", "u32", "u64", "v3", "vi3", "t23", "tu23", "t57"})
    names.push_back(std::string("/properties/") + q);
  for (const std::string& name : names)
    for (double where : {0.0, 0.5, 1.0}) {  // the first byte, one inside, the last
      if (rank() == 0) {
        const auto [at, bytes] = rows_at(path, name);
        std::vector<char> b = read_all(path);
        const int64_t k = at + std::min<int64_t>(bytes - 1, static_cast<int64_t>(where * bytes));
        b[static_cast<size_t>(k)] ^= 0x10;
        write_all(copy, b);
      }
      barrier();
      const pvec_status st = restart_of(copy, d, &msg);
      const std::string what = name + " flipped at " + std::to_string(where);
      if (st != PVEC_ERROR_IO)
        f.addf(what, ": ", pvec_status_string(st), ", want IO (", msg, ")");
      else if (msg.find(name) == std::string::npos || msg.find("checksum") == std::string::npos)
        f.addf(what, ": the message does not name the dataset and its checksum: ", msg);
      barrier();
    }
  f.require("flipped bytes");
  if (rank() == 0) std::remove(copy.c_str());
  remove_files(path);
}
