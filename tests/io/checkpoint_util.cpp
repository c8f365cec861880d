// The helpers of the checkpoint tests (checkpoint_util.hpp).
#include "checkpoint_util.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace ckpt_test {

bool have_hdf5() {
  int flag = -1;
  REQUIRE(pvec_has_hdf5(&flag) == PVEC_SUCCESS);
  return flag == 1;
}

// Coordinate d of particle id: a function of the id, inside [lo, lo + 0.99 L).
double coord(int64_t id, int d, int dim) {
  const double u = (mix(static_cast<uint64_t>(id) * 31 + d + 7) >> 11) * 0x1.0p-53;
  return kLo[d] + 0.99 * u * (kHi[d] - kLo[d]);
}

std::string path_for(const std::string& name) {
  // Every rank of MPI_COMM_WORLD names the same file (rank 0's pid).
  int64_t pid = rank() == 0 ? static_cast<int64_t>(getpid()) : 0;
  pid = sum(pid);
  return "io_test_" + std::to_string(pid) + "_" + name + ".h5";
}

pvec_vector_desc make_desc(int dim, pvec_dtype pos, bool periodic) {
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = dim;
  d.pos_dtype = pos;
  for (int k = 0; k < dim; ++k) {
    d.domain_lo[k] = kLo[k];
    d.domain_hi[k] = kHi[k];
    d.boundary[k] = periodic && k == 0 ? PVEC_PERIODIC : PVEC_NON_PERIODIC;
  }
  d.ghost_width = 0.1;
  d.backend = PVEC_BACKEND_HOST;
  return d;
}

// n particles with ids [first, first + n), positions and values functions of the id.
pvec_vector_t make_vector(pvec_vector_desc d, int64_t n, int64_t first, Props* p) {
  pvec_schema_t s = make_full_schema(p);
  d.n_particles = n;
  d.placement = PVEC_PLACE_LOCAL;
  pvec_vector_t v = nullptr;
  REQUIRE(pvec_vector_create(&d, s, &v) == PVEC_SUCCESS);
  pvec_schema_destroy(s);
  const Column id = column(v, p->id), pos = column(v, PVEC_POS);
  for (int64_t i = 0; i < n; ++i) {
    id.set_bits(i, 0, static_cast<uint64_t>(first + i));
    for (int k = 0; k < d.dim; ++k) set_pos(pos, i, k, coord(first + i, k, d.dim));
  }
  fill_values(v, *p, 0, n, kSalt);
  return v;
}

// Every local particle: values and coordinates those of its id; returns the local ids.
std::vector<int64_t> check_particles(pvec_vector_t v, const Props& p, Failures& f) {
  const int64_t n = n_local(v);
  check_values(v, p, 0, n, kSalt, f);
  const Column pos = column(v, PVEC_POS);
  std::vector<int64_t> ids;
  pvec_vector_desc probe = PVEC_VECTOR_DESC_INIT;
  probe.pos_dtype = pos_dtype(v);
  const int dim = dim_of(v);
  // The expected coordinate, rounded to the position type as set_pos rounds it.
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = id_of(v, p, i);
    ids.push_back(id);
    for (int k = 0; k < dim; ++k) {
      const double want = probe.pos_dtype == PVEC_FLOAT32
                              ? static_cast<double>(static_cast<float>(coord(id, k, dim)))
                              : coord(id, k, dim);
      const double got = get_pos(pos, i, k);
      if (std::memcmp(&want, &got, sizeof got) != 0)
        f.addf("particle ", id, " coordinate ", k, ": ", got, ", want ", want);
    }
  }
  return ids;
}

void check_id_set(const std::vector<int64_t>& local, int64_t n_global, Failures& f) {
  std::vector<int64_t> all = allgather(local);
  std::sort(all.begin(), all.end());
  if (static_cast<int64_t>(all.size()) != n_global) {
    f.addf("global count ", all.size(), ", want ", n_global);
    return;
  }
  for (int64_t k = 0; k < n_global; ++k)
    if (all[k] != k) {
      f.addf("id ", k, " missing or repeated (found ", all[k], ")");
      return;
    }
}

// The device mirror holds what the host mirror holds, on either backend: a copy from the
// device mirror to the host mirror changes no host byte.
void check_mirrors_agree(pvec_vector_t v, Failures& f) {
  const pvec_test::Snapshot before = pvec_test::snapshot(v);
  REQUIRE(pvec_device_to_host(v, nullptr, 0) == PVEC_SUCCESS);
  const pvec_test::Snapshot after = pvec_test::snapshot(v);
  for (size_t k = 0; k < before.cols.size(); ++k)
    if (before.cols[k] != after.cols[k]) f.addf("column ", k, ": the device mirror differs");
}

void remove_files(const std::string& path) {
  if (rank() == 0) {
    std::remove(path.c_str());
    std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());
    std::remove((path + ".tmp").c_str());
  }
  barrier();
}

void expect_restart_fails(const std::string& path, const pvec_vector_desc& d, pvec_schema_t s,
                          pvec_status want, const std::string& words, Failures& f) {
  pvec_vector_t out = reinterpret_cast<pvec_vector_t>(0x1234);
  const pvec_status st = pvec_checkpoint_restart(path.c_str(), &d, s, 0, &out);
  const std::string msg = pvec_last_error();
  if (st != want)
    f.addf("status ", pvec_status_string(st), " want ", pvec_status_string(want), ": ", msg);
  if (msg.find(words) == std::string::npos) f.addf("message '", msg, "' lacks '", words, "'");
  if (out != reinterpret_cast<pvec_vector_t>(0x1234)) f.add("out was written");
}

}  // namespace ckpt_test
