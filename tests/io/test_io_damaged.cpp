// Longer than 500 lines because it is one catalogue: every field of the header, each damaged
// every way it can be.
// Damaged checkpoints, structure-aware (issue 20: "a truncated or corrupted file is a clear
// error, never a crash"): a good checkpoint's root attributes and datasets, the header pvec
// parses, are rewritten with the HDF5 C library on rank 0 (deleted, retyped, resized, given
// values no writer writes: NaN, negative counts, overflowing sums, extents of 2^40, reserved or
// repeated names; the recorded decomposition: a rank grid of another rank count, cuts out of
// order, outside the domain or NaN), one catalogue of 133 edits and up to 4 of the
// decomposition, then 300 seeded random combinations of
// them (the first 100 under PVEC_TEST_LIGHT). After each edit every rank calls
// pvec_checkpoint_describe and pvec_checkpoint_restart: an edit that damages the file must give
// PVEC_ERROR_IO from both, with a message, no schema and the output handle untouched; a harmless
// one (step, time) must still describe and restart. Under the sanitizer step of
// scripts/hardening.sh this is the reader's fuzz test. (Byte-level damage:
// test_io_checkpoint_errors.cpp.)
#include "dist_util.hpp"
#include "test_support.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <unistd.h>

using namespace dist;

namespace {

using Edit = std::function<void(hid_t file)>;

struct Mutation {
  std::string what;
  Edit edit;
  bool damages;  // the file no longer describes a vector: both calls must fail with IO
};

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

void drop_attr(hid_t f, const char* name) {
  if (H5Aexists(f, name) > 0) H5Adelete(f, name);
}

// Attribute name of f replaced by n values of type t from data (scalar when n < 0).
void put_attr(hid_t f, const char* name, hid_t t, const void* data, int64_t n) {
  drop_attr(f, name);
  hsize_t len = static_cast<hsize_t>(n < 0 ? 1 : n);
  const hid_t space = n < 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &len, nullptr);
  const hid_t a = H5Acreate2(f, name, t, space, H5P_DEFAULT, H5P_DEFAULT);
  if (len > 0) H5Awrite(a, t, data);
  H5Aclose(a);
  H5Sclose(space);
}
void put_i64(hid_t f, const char* name, std::vector<int64_t> v, bool scalar = true) {
  put_attr(f, name, H5T_NATIVE_INT64, v.data(), scalar ? -1 : static_cast<int64_t>(v.size()));
}
void put_f64(hid_t f, const char* name, std::vector<double> v, bool scalar = true) {
  put_attr(f, name, H5T_NATIVE_DOUBLE, v.data(), scalar ? -1 : static_cast<int64_t>(v.size()));
}
void put_strings(hid_t f, const char* name, const std::vector<std::string>& v, bool scalar) {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  std::vector<const char*> p;
  for (const std::string& s : v) p.push_back(s.c_str());
  put_attr(f, name, t, p.data(), scalar ? -1 : static_cast<int64_t>(p.size()));
  H5Tclose(t);
}
void put_fixed_string(hid_t f, const char* name, const char* text) {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, std::strlen(text) + 1);
  put_attr(f, name, t, text, -1);
  H5Tclose(t);
}

// Dataset path of f replaced by one of type t and dims (no data written: chunked and
// extendible, so even huge or empty dims cost nothing on disk; it reads as the fill value).
void put_dataset(hid_t f, const std::string& path, hid_t t, std::vector<hsize_t> dims) {
  if (H5Lexists(f, path.c_str(), H5P_DEFAULT) > 0) H5Ldelete(f, path.c_str(), H5P_DEFAULT);
  const std::vector<hsize_t> unlimited(dims.size(), H5S_UNLIMITED);
  const hid_t space =
      H5Screate_simple(static_cast<int>(dims.size()), dims.data(), unlimited.data());
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  std::vector<hsize_t> chunk(dims.size(), 1);
  for (size_t k = 0; k < dims.size(); ++k)
    chunk[k] = std::max<hsize_t>(1, std::min<hsize_t>(dims[k], 64));
  H5Pset_chunk(dcpl, static_cast<int>(dims.size()), chunk.data());
  const hid_t d = H5Dcreate2(f, path.c_str(), t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
}
// /rank_counts replaced by these counts (and n_ranks by their number).
void put_counts(hid_t f, const std::vector<int64_t>& c) {
  const std::string path = "/rank_counts";
  H5Ldelete(f, path.c_str(), H5P_DEFAULT);
  hsize_t n = c.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t d =
      H5Dcreate2(f, path.c_str(), H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n > 0) H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, c.data());
  H5Dclose(d);
  H5Sclose(space);
  put_i64(f, "n_ranks", {static_cast<int64_t>(c.size())});
}

// Dataset path of f rewritten with the same type, shape and values, deflate-compressed in one
// chunk; nothing when it is gone or not a small dataset (another edit of the same round).
void compress_dataset(hid_t f, const std::string& path) {
  if (H5Lexists(f, "/properties", H5P_DEFAULT) <= 0 || H5Lexists(f, path.c_str(), H5P_DEFAULT) <= 0)
    return;
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  if (d < 0) return;
  const hid_t t = H5Dget_type(d), space = H5Dget_space(d);
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  const int nd = H5Sget_simple_extent_ndims(space);
  std::vector<unsigned char> bytes;
  bool ok = t >= 0 && space >= 0 && count >= 1 && count <= (1 << 20) && nd >= 1 && nd <= 4;
  if (ok) {
    bytes.resize(static_cast<size_t>(count) * H5Tget_size(t));
    ok = H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) >= 0;
  }
  H5Dclose(d);
  if (ok) {
    H5Ldelete(f, path.c_str(), H5P_DEFAULT);
    std::vector<hsize_t> dims(static_cast<size_t>(nd));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, nd, dims.data());
    H5Pset_deflate(dcpl, 9);
    const hid_t z = H5Dcreate2(f, path.c_str(), t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(z, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    H5Dclose(z);
    H5Pclose(dcpl);
  }
  if (space >= 0) H5Sclose(space);
  if (t >= 0) H5Tclose(t);
}

struct Good {
  int dim = 2;
  int64_t n_global = 0;
  int n_ranks = 1;
  std::vector<std::string> names;
};

// The catalogue: every attribute and dataset read_info parses, each damaged every way it can
// be, plus the harmless edits.
std::vector<Mutation> catalogue(const Good& g) {
  std::vector<Mutation> m;
  auto add = [&](std::string what, Edit e, bool damages = true) {
    m.push_back({std::move(what), std::move(e), damages});
  };
  const char* attrs[] = {"format",    "complete",  "format_version", "dim",           "pos_dtype",
                         "domain_lo", "domain_hi", "boundary",       "ghost_width",   "step",
                         "time",      "n_global",  "n_ranks",        "property_names"};
  for (const char* a : attrs) {
    const std::string n = a;
    add(n + " deleted", [n](hid_t f) { drop_attr(f, n.c_str()); });
    const bool text = n == "format" || n == "pos_dtype" || n == "property_names";
    if (text) {
      add(n + " as an integer", [n](hid_t f) { put_i64(f, n.c_str(), {1}); });
      add(n + " as a double", [n](hid_t f) { put_f64(f, n.c_str(), {0.5}); });
    } else {
      add(n + " as a string", [n](hid_t f) { put_strings(f, n.c_str(), {"1"}, true); });
      add(n + " as a fixed-length string", [n](hid_t f) { put_fixed_string(f, n.c_str(), "1"); });
      add(n + " as an empty array", [n](hid_t f) { put_i64(f, n.c_str(), {}, false); });
      add(n + " with one value too many", [n, g](hid_t f) {
        const bool per_dim = n == "domain_lo" || n == "domain_hi" || n == "boundary";
        put_f64(f, n.c_str(), std::vector<double>(per_dim ? g.dim + 1 : 2, 0.0), false);
      });
    }
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{5}, kMin, kMax})
    add("dim " + std::to_string(v), [v](hid_t f) { put_i64(f, "dim", {v}); });
  add("format_version 2", [](hid_t f) { put_i64(f, "format_version", {2}); });
  add("complete 0", [](hid_t f) { put_i64(f, "complete", {0}); });
  add("format another", [](hid_t f) { put_strings(f, "format", {"other"}, true); });
  add("pos_dtype float16", [](hid_t f) { put_strings(f, "pos_dtype", {"float16"}, true); });
  add("pos_dtype empty", [](hid_t f) { put_strings(f, "pos_dtype", {""}, true); });
  for (double v : {kNaN, kInf, -kInf})
    add("domain_lo " + std::to_string(v),
        [v, g](hid_t f) { put_f64(f, "domain_lo", std::vector<double>(g.dim, v), false); });
  add("domain_hi equal to domain_lo", [g](hid_t f) {
    std::vector<double> lo(g.dim);
    const hid_t a = H5Aopen(f, "domain_lo", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, lo.data());
    H5Aclose(a);
    put_f64(f, "domain_hi", lo, false);
  });
  for (int64_t v : {int64_t{2}, int64_t{-1}, kMax})
    add("boundary " + std::to_string(v),
        [v, g](hid_t f) { put_i64(f, "boundary", std::vector<int64_t>(g.dim, v), false); });
  for (double v : {kNaN, kInf, -1.0})
    add("ghost_width " + std::to_string(v), [v](hid_t f) { put_f64(f, "ghost_width", {v}); });
  for (double v : {kNaN, kInf})
    add("time " + std::to_string(v), [v](hid_t f) { put_f64(f, "time", {v}); });
  add(
      "time 1e300", [](hid_t f) { put_f64(f, "time", {1e300}); }, false);
  add(
      "step -5", [](hid_t f) { put_i64(f, "step", {-5}); }, false);
  add(
      "step max", [](hid_t f) { put_i64(f, "step", {kMax}); }, false);
  for (int64_t v : {int64_t{-1}, g.n_global + 1, kMax, kMin})
    add("n_global " + std::to_string(v), [v](hid_t f) { put_i64(f, "n_global", {v}); });
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{g.n_ranks} + 1, int64_t{1} << 31, kMax})
    add("n_ranks " + std::to_string(v), [v](hid_t f) { put_i64(f, "n_ranks", {v}); });
  // The recorded decomposition: a rank grid of n_ranks slabs along dimension 0 and its cuts.
  auto with_cuts = [g](int64_t slabs, std::vector<double> fractions) {
    return [g, slabs, fractions](hid_t f) {
      double lo[4] = {0, 0, 0, 0}, hi[4] = {1, 1, 1, 1};
      const hid_t a = H5Aopen(f, "domain_lo", H5P_DEFAULT),
                  b = H5Aopen(f, "domain_hi", H5P_DEFAULT);
      H5Aread(a, H5T_NATIVE_DOUBLE, lo);
      H5Aread(b, H5T_NATIVE_DOUBLE, hi);
      H5Aclose(a);
      H5Aclose(b);
      std::vector<int64_t> grid(static_cast<size_t>(g.dim), 1);
      grid[0] = slabs;
      std::vector<double> cuts;
      for (double x : fractions) cuts.push_back(lo[0] + x * (hi[0] - lo[0]));
      if (cuts.empty()) cuts.push_back(lo[0]);  // an attribute holds one value at least
      put_i64(f, "rank_grid", grid, false);
      put_f64(f, "decomposition_cuts", cuts, false);
    };
  };
  // Each edit damages (the combinations below need every edit of these two attributes to): a
  // rank grid of another rank count; cuts out of order, outside the domain or NaN where there
  // are cuts to damage (the valid cuts of a rebalanced grid are test_rebalance.cpp's).
  std::vector<double> even, decreasing, outside, nan_cut;
  for (int k = 1; k < g.n_ranks; ++k) {
    even.push_back(0.5 * k / g.n_ranks);
    decreasing.push_back(1.0 - 0.5 * k / g.n_ranks);
    outside.push_back(k == 1 ? -0.5 : 0.5 + 0.1 * k / g.n_ranks);
    nan_cut.push_back(k == 1 ? kNaN : 0.5 + 0.1 * k / g.n_ranks);
  }
  add("rank_grid of another rank count", with_cuts(g.n_ranks + 1, even));
  if (g.n_ranks > 2) add("decomposition_cuts decreasing", with_cuts(g.n_ranks, decreasing));
  if (g.n_ranks > 1) {
    add("decomposition_cuts outside the domain", with_cuts(g.n_ranks, outside));
    add("decomposition_cuts NaN", with_cuts(g.n_ranks, nan_cut));
  }
  // Names.
  auto with_names = [g](std::vector<std::string> extra, bool replace_first) {
    return [g, extra, replace_first](hid_t f) {
      std::vector<std::string> names = g.names;
      if (replace_first && !names.empty()) names.erase(names.begin());
      names.insert(names.end(), extra.begin(), extra.end());
      put_strings(f, "property_names", names, false);
    };
  };
  add("a name without its dataset", with_names({"nope"}, false));
  add("an empty name", with_names({""}, false));
  add("a repeated name", with_names({g.names.empty() ? "x" : g.names[0]}, false));
  add("the name pos", with_names({"pos"}, true));
  add("a 200-byte name", with_names({std::string(200, 'a')}, true));
  add("a name with a slash", with_names({"a/b"}, true));
  add("a name of the group", with_names({"."}, true));
  // Datasets.
  const std::string prop = "/properties/" + (g.names.empty() ? std::string("id") : g.names[0]);
  const hsize_t n = static_cast<hsize_t>(g.n_global), dim = static_cast<hsize_t>(g.dim);
  for (const char* ds : {"/positions", "/rank_counts"}) {
    const std::string d = ds;
    add(d + " deleted", [d](hid_t f) { H5Ldelete(f, d.c_str(), H5P_DEFAULT); });
  }
  add(prop + " deleted", [prop](hid_t f) { H5Ldelete(f, prop.c_str(), H5P_DEFAULT); });
  add("/properties deleted", [](hid_t f) { H5Ldelete(f, "/properties", H5P_DEFAULT); });
  add("/positions int32", [n, dim](hid_t f) {
    put_dataset(f, "/positions", H5T_NATIVE_INT32, {n, dim});
  });
  add("/positions float32", [n, dim](hid_t f) {
    put_dataset(f, "/positions", H5T_NATIVE_FLOAT, {n, dim});
  });
  add("/positions one column more", [n, dim](hid_t f) {
    put_dataset(f, "/positions", H5T_NATIVE_DOUBLE, {n, dim + 1});
  });
  add("/positions one row more", [n, dim](hid_t f) {
    put_dataset(f, "/positions", H5T_NATIVE_DOUBLE, {n + 1, dim});
  });
  add("/positions 1-D", [n](hid_t f) { put_dataset(f, "/positions", H5T_NATIVE_DOUBLE, {n + 1}); });
  add("/positions 3-D", [n, dim](hid_t f) {
    put_dataset(f, "/positions", H5T_NATIVE_DOUBLE, {n, dim, 1});
  });
  add(prop + " one row more",
      [prop, n](hid_t f) { put_dataset(f, prop, H5T_NATIVE_INT64, {n + 1}); });
  add(prop + " of int8", [prop, n](hid_t f) { put_dataset(f, prop, H5T_NATIVE_INT8, {n}); });
  add(prop + " of strings", [prop, n](hid_t f) {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 8);
    put_dataset(f, prop, t, {n});
    H5Tclose(t);
  });
  add(prop + " of a compound", [prop, n](hid_t f) {
    const hid_t t = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(t, "a", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "b", 8, H5T_NATIVE_DOUBLE);
    put_dataset(f, prop, t, {n});
    H5Tclose(t);
  });
  add(prop + " with an extent 0", [prop, n](hid_t f) {
    put_dataset(f, prop, H5T_NATIVE_INT64, {n, 0});
  });
  add(prop + " with an extent 2^40", [prop, n](hid_t f) {
    put_dataset(f, prop, H5T_NATIVE_INT64, {n, hsize_t{1} << 40});
  });
  add(prop + " with extents 2^31 x 2^20", [prop, n](hid_t f) {
    put_dataset(f, prop, H5T_NATIVE_INT64, {n, hsize_t{1} << 31, hsize_t{1} << 20});
  });
  add(prop + " of the right shape, never written",
      [prop, n](hid_t f) { put_dataset(f, prop, H5T_NATIVE_INT64, {n}); });
  add("/positions of the right shape, never written", [n, dim](hid_t f) {
    put_dataset(f, "/positions", H5T_NATIVE_DOUBLE, {n, dim});
  });
  add(prop + " of 4 dimensions", [prop, n](hid_t f) {
    put_dataset(f, prop, H5T_NATIVE_INT64, {n, 1, 1, 1});
  });
  add("/rank_counts of another length", [g](hid_t f) {
    H5Ldelete(f, "/rank_counts", H5P_DEFAULT);
    hsize_t len = static_cast<hsize_t>(g.n_ranks) + 1;
    const hid_t s = H5Screate_simple(1, &len, nullptr);
    H5Dclose(
        H5Dcreate2(f, "/rank_counts", H5T_NATIVE_INT64, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(s);
  });
  add("/rank_counts negative", [g](hid_t f) { put_counts(f, {-1, g.n_global + 1}); });
  add("/rank_counts overflowing", [g](hid_t f) { put_counts(f, {kMax, kMax, g.n_global + 2}); });
  add("/rank_counts with a minimum", [g](hid_t f) { put_counts(f, {kMin, kMin, g.n_global}); });
  add("/rank_counts that do not add up", [g](hid_t f) { put_counts(f, {g.n_global + 1}); });
  add("/rank_counts as doubles", [](hid_t f) {
    H5Ldelete(f, "/rank_counts", H5P_DEFAULT);
    hsize_t len = 1;
    const hid_t s = H5Screate_simple(1, &len, nullptr);
    const double v = 0.5;
    const hid_t d =
        H5Dcreate2(f, "/rank_counts", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
    H5Dclose(d);
    H5Sclose(s);
    put_i64(f, "n_ranks", {1});
  });
  // The dataset rewritten compressed, as h5repack -f GZIP does: fewer bytes stored, the same
  // values: harmless.
  if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
    add(
        prop + " compressed", [prop](hid_t f) { compress_dataset(f, prop); }, false);
  // The per-rank counts of one more writing rank, which still add up: each dataset's
  // checksums are per writing rank, and no longer match the counts.
  std::vector<int64_t> more(static_cast<size_t>(g.n_ranks) + 1, 0);
  more[0] = g.n_global;
  add(
      "/rank_counts of one more rank", [more](hid_t f) { put_counts(f, more); }, true);
  return m;
}

Good read_good(const std::string& path) {
  Good g;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  auto i64 = [&](const char* name) {
    int64_t v = 0;
    const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
    return v;
  };
  g.dim = static_cast<int>(i64("dim"));
  g.n_global = i64("n_global");
  g.n_ranks = static_cast<int>(i64("n_ranks"));
  const hid_t a = H5Aopen(f, "property_names", H5P_DEFAULT);
  const hid_t space = H5Aget_space(a);
  const hssize_t k = H5Sget_simple_extent_npoints(space);
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  std::vector<char*> p(static_cast<size_t>(k), nullptr);
  H5Aread(a, t, p.data());
  for (char* s : p) g.names.emplace_back(s ? s : "");
  H5Dvlen_reclaim(t, space, H5P_DEFAULT, p.data());
  H5Tclose(t);
  H5Sclose(space);
  H5Aclose(a);
  H5Fclose(f);
  return g;
}

// Both calls on the edited file `copy`; what they must give.
void check_file(const std::string& copy, const std::string& what, bool damages,
                const pvec_vector_desc& good_desc, pvec_schema_t good_schema, int64_t n_global,
                Failures& f) {
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  pvec_schema_t s = nullptr;
  int64_t step = 0;
  double time = 0;
  const pvec_status ds = pvec_checkpoint_describe(copy.c_str(), &d, &s, &step, &time);
  const std::string dmsg = pvec_last_error();
  // The caller's desc and schema (what a restart without describe passes).
  pvec_vector_t out = reinterpret_cast<pvec_vector_t>(0x1234);
  const pvec_status rs = pvec_checkpoint_restart(copy.c_str(), &good_desc, good_schema, 0, &out);
  const std::string rmsg = pvec_last_error();
  if (damages) {
    if (ds != PVEC_ERROR_IO)
      f.addf(what, ": describe gave ", pvec_status_string(ds), " (", dmsg, "), want IO");
    if (rs != PVEC_ERROR_IO)
      f.addf(what, ": restart gave ", pvec_status_string(rs), " (", rmsg, "), want IO");
    if (ds != PVEC_SUCCESS && dmsg.find(copy) == std::string::npos)
      f.addf(what, ": describe's message '", dmsg, "' does not name the file");
    if (ds != PVEC_SUCCESS && s != nullptr) f.addf(what, ": a failed describe made a schema");
    if (rs != PVEC_SUCCESS && out != reinterpret_cast<pvec_vector_t>(0x1234))
      f.addf(what, ": a failed restart wrote its output handle");
  } else {
    if (ds != PVEC_SUCCESS) f.addf(what, ": describe of a harmless edit failed: ", dmsg);
    if (rs != PVEC_SUCCESS) f.addf(what, ": restart of a harmless edit failed: ", rmsg);
  }
  // A restart that succeeded holds every particle of the file (collective: every rank has
  // the same status).
  int64_t n = 0;
  const bool made = rs == PVEC_SUCCESS && out != reinterpret_cast<pvec_vector_t>(0x1234);
  if (made) DIST_OK(pvec_vector_get_size(out, &n));
  if (made && sum(n) != n_global)
    f.addf(what, ": the restarted vector holds ", sum(n), " particles, the file ", n_global);
  if (made) pvec_vector_destroy(out);
  if (s != nullptr) pvec_schema_destroy(s);
}

}  // namespace

TEST_CASE("a checkpoint's header rewritten every way is an IO status, never a crash",
          "[io][errors]") {
  int has = 0;
  REQUIRE(pvec_has_hdf5(&has) == PVEC_SUCCESS);
  if (has != 1) {
    WARN("pvec built without parallel HDF5: damaged-checkpoint cases not run");
    return;
  }
  int64_t pid = rank() == 0 ? static_cast<int64_t>(getpid()) : 0;
  pid = sum(pid);
  const std::string path = "io_damaged_" + std::to_string(pid) + ".h5";
  const std::string copy = "io_damaged_" + std::to_string(pid) + "_copy.h5";
  Props p;
  pvec_schema_t schema = make_full_schema(&p);
  pvec_vector_desc desc = PVEC_VECTOR_DESC_INIT;
  desc.dim = 2;
  desc.domain_hi[0] = desc.domain_hi[1] = 1.0;
  desc.boundary[0] = PVEC_PERIODIC;
  desc.ghost_width = 0.1;
  desc.n_particles = 7 + 2 * rank();
  desc.placement = PVEC_PLACE_LOCAL;
  desc.backend = PVEC_BACKEND_HOST;
  {
    pvec_vector_t v = nullptr;
    DIST_OK(pvec_vector_create(&desc, schema, &v));
    const Column pos = column(v, PVEC_POS);
    Rng rng(11 + rank());
    for (int64_t i = 0; i < n_local(v); ++i)
      for (int k = 0; k < 2; ++k) set_pos(pos, i, k, rng.uniform(0.0, 0.99));
    fill_values(v, p, 0, n_local(v), 3);
    DIST_OK(pvec_map(v, 0, nullptr));
    DIST_OK(pvec_checkpoint_write(v, path.c_str(), 4, 0.25, nullptr, 0, 0, nullptr, nullptr,
                                  nullptr, nullptr, 0));
    DIST_OK(pvec_vector_destroy(v));
  }
  desc.n_particles = 0;
  Good g;
  std::vector<char> whole;
  if (rank() == 0) {
    g = read_good(path);
    whole = read_all(path);
  }
  // Every rank builds the same catalogue (its closures use only g's numbers).
  std::vector<int64_t> shape{g.dim, g.n_global, g.n_ranks};
  shape = allgather(shape);
  g.dim = static_cast<int>(shape[0]), g.n_global = shape[1], g.n_ranks = static_cast<int>(shape[2]);
  const std::vector<Mutation> all = catalogue(g);
  Failures f;
  auto apply = [&](const std::vector<const Mutation*>& ms) {
    if (rank() == 0) {
      write_all(copy, whole);
      const hid_t file = H5Fopen(copy.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      REQUIRE(file >= 0);
      for (const Mutation* m : ms) m->edit(file);
      H5Fclose(file);
    }
    barrier();
  };
  check_file(path, "the good file", false, desc, schema, g.n_global, f);
  for (const Mutation& m : all) {
    apply({&m});
    check_file(copy, m.what, m.damages, desc, schema, g.n_global, f);
    barrier();
  }
  f.require("each edit alone");
  // Random combinations of two or three edits: damaged when any one damages. PVEC_TEST_LIGHT
  // (the sanitizer runs): the first 100 of the same sequence.
  Rng rng(20261203);
  const int rounds = pvec_test::light() ? 100 : 300;
  for (int round = 0; round < rounds; ++round) {
    std::vector<const Mutation*> ms;
    bool damages = false;
    const int k = 2 + static_cast<int>(rng.below(2));
    std::string what = "round " + std::to_string(round) + ":";
    for (int j = 0; j < k; ++j) {
      const Mutation* m = &all[static_cast<size_t>(rng.below(static_cast<int64_t>(all.size())))];
      ms.push_back(m);
      damages = damages || m->damages;
      what += " [" + m->what + "]";
    }
    apply(ms);
    check_file(copy, what, damages, desc, schema, g.n_global, f);
    barrier();
  }
  f.require("random combinations");
  if (rank() == 0) {
    std::remove(path.c_str());
    std::remove(copy.c_str());
    std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());
  }
  pvec_schema_destroy(schema);
  INFO(all.size() << " edits");
  CHECK(all.size() >= 130);
}
