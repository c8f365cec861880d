// HDF5 checkpoints and restart (issue 20), the errors: every bad request, bad argument and
// damaged file gives its documented status, names what is wrong and changes nothing; a failed
// write leaves no file.
#include "checkpoint_util.hpp"

#ifndef PVEC_TEST_NO_HDF5
#include <hdf5.h>
#endif

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace ckpt_test;

TEST_CASE("restart validates the request and names the first mismatch", "[io][errors]") {
  if (!have_hdf5()) return;
  Small c("bad");
  Failures f;
  pvec_schema_t good = make_full_schema(&c.p);
  // Wrong dtype requested for one property.
  {
    pvec_schema_t s = nullptr;
    pvec_schema_create(&s);
    for (const char* name : {"id", "f32", "f64", "i32", "u32", "u64"})
      pvec_schema_add_scalar(s, name,
                             std::string(name) == "f32" ? PVEC_FLOAT64
                             : std::string(name) == "id"
                                 ? PVEC_INT64
                                 : (std::string(name) == "f64"   ? PVEC_FLOAT64
                                    : std::string(name) == "i32" ? PVEC_INT32
                                    : std::string(name) == "u32" ? PVEC_UINT32
                                                                 : PVEC_UINT64),
                             nullptr);
    pvec_schema_add_vector(s, "v3", PVEC_FLOAT64, 3, nullptr);
    pvec_schema_add_vector(s, "vi3", PVEC_INT32, 3, nullptr);
    pvec_schema_add_tensor(s, "t23", PVEC_FLOAT32, 2, 3, nullptr);
    pvec_schema_add_tensor(s, "tu23", PVEC_UINT64, 2, 3, nullptr);
    pvec_schema_add_tensor(s, "t57", PVEC_FLOAT32, 5, 7, nullptr);
    expect_restart_fails(c.path, c.d, s, PVEC_ERROR_DTYPE_MISMATCH, "'f32'", f);
    pvec_schema_destroy(s);
  }
  // Missing property in the request (the file has an extra one), and an extra one requested.
  {
    pvec_schema_t s = nullptr;
    pvec_schema_create(&s);
    pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr);
    expect_restart_fails(c.path, c.d, s, PVEC_ERROR_INVALID_ARGUMENT, "'f32'", f);
    pvec_schema_destroy(s);
    Props q;
    pvec_schema_t t = make_full_schema(&q);
    pvec_schema_add_scalar(t, "extra", PVEC_FLOAT32, nullptr);
    expect_restart_fails(c.path, c.d, t, PVEC_ERROR_INVALID_ARGUMENT, "'extra'", f);
    pvec_schema_destroy(t);
  }
  // Wrong shape.
  {
    pvec_schema_t s = nullptr;
    pvec_schema_create(&s);
    pvec_schema_add_scalar(s, "id", PVEC_INT64, nullptr);
    pvec_schema_add_scalar(s, "f32", PVEC_FLOAT32, nullptr);
    pvec_schema_add_scalar(s, "f64", PVEC_FLOAT64, nullptr);
    pvec_schema_add_scalar(s, "i32", PVEC_INT32, nullptr);
    pvec_schema_add_scalar(s, "u32", PVEC_UINT32, nullptr);
    pvec_schema_add_scalar(s, "u64", PVEC_UINT64, nullptr);
    pvec_schema_add_vector(s, "v3", PVEC_FLOAT64, 2, nullptr);
    expect_restart_fails(c.path, c.d, s, PVEC_ERROR_INVALID_ARGUMENT, "'v3' is vector[3]", f);
    pvec_schema_destroy(s);
  }
  // Wrong dimension, domain, boundary, position dtype.
  {
    pvec_vector_desc d = c.d;
    d.dim = 3;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_INVALID_ARGUMENT, "dimension", f);
    d = c.d;
    d.domain_hi[1] = 4.0;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_INVALID_ARGUMENT, "domain", f);
    d = c.d;
    d.boundary[0] = PVEC_PERIODIC;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_INVALID_ARGUMENT, "boundary", f);
    d = c.d;
    d.pos_dtype = PVEC_FLOAT32;
    expect_restart_fails(c.path, d, good, PVEC_ERROR_DTYPE_MISMATCH, "positions", f);
  }
  // Bad arguments.
  {
    pvec_vector_t out = nullptr;
    if (pvec_checkpoint_restart(nullptr, &c.d, good, 0, &out) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("path NULL");
    if (pvec_checkpoint_restart(c.path.c_str(), &c.d, good, 7, &out) != PVEC_ERROR_INVALID_ARGUMENT)
      f.add("flags");
    if (pvec_checkpoint_restart(c.path.c_str(), &c.d, good, 0, nullptr) !=
        PVEC_ERROR_INVALID_ARGUMENT)
      f.add("out NULL");
    expect_restart_fails("no_such_file.h5", c.d, good, PVEC_ERROR_IO, "no_such_file.h5", f);
  }
  f.require("mismatches");
  pvec_schema_destroy(good);
}

#ifndef PVEC_TEST_NO_HDF5
TEST_CASE("damaged checkpoints are clear errors, never a crash", "[io][errors]") {
  if (!have_hdf5()) return;
  Small c("damaged");
  Failures f;
  pvec_schema_t good = make_full_schema(&c.p);
  const std::vector<char> whole = read_all(c.path);
  const std::string copy = c.path + ".copy.h5";
  auto damaged = [&](const char* what, const std::function<void(std::vector<char>&)>& edit,
                     const std::string& words) {
    if (rank() == 0) {
      std::vector<char> b = whole;
      edit(b);
      write_all(copy, b);
    }
    barrier();
    INFO(what);
    expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, words, f);
    pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
    pvec_schema_t s = nullptr;
    if (pvec_checkpoint_describe(copy.c_str(), &d, &s, nullptr, nullptr) != PVEC_ERROR_IO)
      f.addf(what, ": describe did not fail with IO");
    if (s != nullptr) f.addf(what, ": describe created a schema");
    barrier();
  };
  damaged(
      "truncated to half", [](std::vector<char>& b) { b.resize(b.size() / 2); }, copy);
  damaged(
      "truncated to 100 bytes", [](std::vector<char>& b) { b.resize(100); }, copy);
  damaged(
      "empty", [](std::vector<char>& b) { b.clear(); }, copy);
  damaged(
      "signature flipped",
      [](std::vector<char>& b) {
        b[1] ^= 0x5a;
        b[3] ^= 0x33;
      },
      copy);
  damaged(
      "superblock flipped",
      [](std::vector<char>& b) {
        for (int k = 8; k < 48; ++k) b[k] ^= 0xff;
      },
      copy);
  // The completion attribute missing: as a crash before the end leaves the file.
  if (rank() == 0) {
    write_all(copy, whole);
    hid_t file = H5Fopen(copy.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(file, "complete");
    H5Fclose(file);
  }
  barrier();
  expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, "incomplete", f);
  // Another attribute missing.
  if (rank() == 0) {
    write_all(copy, whole);
    hid_t file = H5Fopen(copy.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(file, "domain_lo");
    H5Fclose(file);
  }
  barrier();
  expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, "'domain_lo' is missing", f);
  // Not HDF5 at all.
  if (rank() == 0) write_all(copy, std::vector<char>(4096, 'x'));
  barrier();
  expect_restart_fails(copy, c.d, good, PVEC_ERROR_IO, "not an HDF5 file", f);
  f.require("damaged files");
  if (rank() == 0) std::remove(copy.c_str());
  pvec_schema_destroy(good);
}

#endif

TEST_CASE("checkpoint write: bad arguments change nothing; a failed write leaves no file",
          "[io][errors]") {
  if (!have_hdf5()) return;
  Small c("args");
  Props p;
  pvec_vector_t v = make_vector(c.d, 5, 5 * rank(), &p);
  const pvec_test::Snapshot before = pvec_test::snapshot(v);
  const std::vector<char> file_before = read_all(c.path);
  Failures f;
  const char* keys[] = {"a", "a"};
  const char* empty_key[] = {""};
  const double nums[] = {1, 2};
  struct Bad {
    const char* what;
    pvec_status want;
    std::function<pvec_status()> call;
  };
  const char* path = c.path.c_str();
  const Bad bad[] = {{"path NULL", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, nullptr, 0, 0, nullptr, 0, 0, nullptr,
                                                     nullptr, nullptr, nullptr, 0);
                      }},
                     {"path empty", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, "", 0, 0, nullptr, 0, 0, nullptr, nullptr,
                                                     nullptr, nullptr, 0);
                      }},
                     {"time NaN", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, path, 0, NAN, nullptr, 0, 0, nullptr,
                                                     nullptr, nullptr, nullptr, 0);
                      }},
                     {"n_attrs < 0", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, path, 0, 0, nullptr, 0, -1, nullptr,
                                                     nullptr, nullptr, nullptr, 0);
                      }},
                     {"keys NULL", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, path, 0, 0, nullptr, 0, 1, nullptr, nullptr,
                                                     nums, nullptr, 0);
                      }},
                     {"repeated key", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, path, 0, 0, nullptr, 0, 2, keys, nullptr,
                                                     nums, nullptr, 0);
                      }},
                     {"empty key", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, path, 0, 0, nullptr, 0, 1, empty_key,
                                                     nullptr, nums, nullptr, 0);
                      }},
                     {"numbers NULL", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, path, 0, 0, nullptr, 0, 1, keys, nullptr,
                                                     nullptr, nullptr, 0);
                      }},
                     {"flags", PVEC_ERROR_INVALID_ARGUMENT,
                      [&] {
                        return pvec_checkpoint_write(v, path, 0, 0, nullptr, 0, 0, nullptr, nullptr,
                                                     nullptr, nullptr, 64);
                      }},
                     {"NULL handle", PVEC_ERROR_INVALID_HANDLE,
                      [&] {
                        return pvec_checkpoint_write(nullptr, path, 0, 0, nullptr, 0, 0, nullptr,
                                                     nullptr, nullptr, nullptr, 0);
                      }},
                     // A folder of the path is a file: rank 0 (which makes the folders) reports IO
                     // naming it, the others hear of it.
                     {"a folder that is a file", rank() == 0 ? PVEC_ERROR_IO : PVEC_ERROR_MPI, [&] {
                        return pvec_checkpoint_write(v, (c.path + "/x.h5").c_str(), 0, 0, nullptr,
                                                     0, 0, nullptr, nullptr, nullptr, nullptr, 0);
                      }}};
  for (const Bad& b : bad) {
    const pvec_status s = b.call();
    if (s != b.want)
      f.addf(b.what, ": ", pvec_status_string(s), ", want ", pvec_status_string(b.want), ": ",
             pvec_last_error());
    if (std::string(pvec_last_error()).empty()) f.addf(b.what, ": no message");
    if (rank() == 0 && std::string(b.what) == "a folder that is a file" &&
        std::string(pvec_last_error()).find(c.path) == std::string::npos)
      f.addf(b.what, ": the message does not name it: ", pvec_last_error());
  }
  if (!(pvec_test::snapshot(v) == before)) f.add("the vector changed");
  if (read_all(c.path) != file_before) f.add("the existing checkpoint changed");
  f.require("bad writes");
  // Missing folders are created, as mkdir -p.
  const std::string deep = c.path + ".d/a/b/x.h5";
  DIST_OK(pvec_checkpoint_write(v, deep.c_str(), 0, 0, nullptr, 0, 0, nullptr, nullptr, nullptr,
                                nullptr, 0));
  if (!std::ifstream(deep)) f.add("no checkpoint in the folders made for it");
  barrier();
  remove_files(deep);
  if (rank() == 0)
    for (const std::string& d : {c.path + ".d/a/b", c.path + ".d/a", c.path + ".d"})
      std::remove(d.c_str());
  f.require("missing folders");
  pvec_vector_destroy(v);
}
