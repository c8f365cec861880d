// Shared pieces of the pvec benchmark programs: command-line options, timing statistics, the
// "realistic particle" schema, and the two output forms every benchmark prints (an aligned
// table for people, and one `JSON {...}` line per measurement for scripts).
//
// Benchmarks are programs, not tests: they print numbers. They still fail (exit 1) when a
// pvec call fails or a result is wrong, so their --quick runs registered in CTest can catch
// breakage. Output is date-independent so two runs can be diffed.
#pragma once

#include <pvec.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// ---- Errors ---------------------------------------------------------------------------------

// Aborts the benchmark with the pvec error text; benchmarks have nothing to recover.
inline void check(pvec_status s, const char* what) {
  if (s != PVEC_SUCCESS) {
    std::fprintf(stderr, "FAIL: %s: %s (%s)\n", what, pvec_status_string(s), pvec_last_error());
    std::exit(1);
  }
}
#define BENCH_PVEC(call) ::bench::check((call), #call)

[[noreturn]] inline void die(const std::string& msg) {
  std::fprintf(stderr, "FAIL: %s\n", msg.c_str());
  std::exit(1);
}

// ---- Options --------------------------------------------------------------------------------

// Parses a count written as 1000, 1e6, 10^4, 2^20 or 1.5e6.
inline int64_t parse_count(const std::string& s) {
  const size_t caret = s.find('^');
  if (caret != std::string::npos) {
    const double base = std::atof(s.substr(0, caret).c_str());
    const double exp = std::atof(s.substr(caret + 1).c_str());
    return static_cast<int64_t>(std::llround(std::pow(base, exp)));
  }
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || v < 0) die("not a count: '" + s + "'");
  return static_cast<int64_t>(std::llround(v));
}

// Parses a comma-separated list of counts ("2^20,2^22" or "1e4,1e5").
inline std::vector<int64_t> parse_counts(const std::string& s) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) out.push_back(parse_count(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty()) die("empty list: '" + s + "'");
  return out;
}

// Parses a comma-separated list of numbers ("0.01,0.1,0.5").
inline std::vector<double> parse_reals(const std::string& s) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) out.push_back(std::atof(item.c_str()));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty()) die("empty list: '" + s + "'");
  return out;
}

// Minimal "--name value" / "--name=value" / "--flag" parser; unknown options are errors so a
// typo in a script does not silently run the default sweep.
class Args {
 public:
  Args(int argc, char** argv, std::string usage) : usage_(std::move(usage)) {
    for (int i = 1; i < argc; ++i) args_.emplace_back(argv[i]);
    used_.assign(args_.size(), false);
    if (flag("--help") || flag("-h")) {
      std::printf("%s", usage_.c_str());
      std::exit(0);
    }
  }
  // True if --name is present.
  bool flag(const char* name) {
    for (size_t i = 0; i < args_.size(); ++i)
      if (args_[i] == name) return used_[i] = true;
    return false;
  }
  // Value of --name (as "--name v" or "--name=v"), or fallback.
  std::string value(const char* name, const std::string& fallback) {
    const std::string eq = std::string(name) + "=";
    for (size_t i = 0; i < args_.size(); ++i) {
      if (args_[i] == name) {
        if (i + 1 >= args_.size()) die(std::string("option ") + name + " needs a value");
        used_[i] = used_[i + 1] = true;
        return args_[i + 1];
      }
      if (args_[i].compare(0, eq.size(), eq) == 0) {
        used_[i] = true;
        return args_[i].substr(eq.size());
      }
    }
    return fallback;
  }
  bool has(const char* name) { return value(name, "\x01") != "\x01"; }
  int64_t count(const char* name, int64_t fallback) {
    const std::string v = value(name, "");
    return v.empty() ? fallback : parse_count(v);
  }
  double real(const char* name, double fallback) {
    const std::string v = value(name, "");
    return v.empty() ? fallback : std::atof(v.c_str());
  }
  // Call after reading every option: rejects anything not consumed.
  void finish() const {
    for (size_t i = 0; i < args_.size(); ++i)
      if (!used_[i]) {
        std::fprintf(stderr, "unknown option '%s'\n%s", args_[i].c_str(), usage_.c_str());
        std::exit(2);
      }
  }

 private:
  std::string usage_;
  std::vector<std::string> args_;
  std::vector<bool> used_;
};

// The sweep a benchmark runs: --sizes replaces the default list; --min/--max filter it.
inline std::vector<int64_t> pick_sizes(Args& a, std::vector<int64_t> defaults) {
  std::vector<int64_t> sizes = a.has("--sizes") ? parse_counts(a.value("--sizes", "")) : defaults;
  const int64_t lo = a.count("--min", 0), hi = a.count("--max", INT64_MAX);
  std::vector<int64_t> out;
  for (int64_t n : sizes)
    if (n >= lo && n <= hi) out.push_back(n);
  if (out.empty()) die("no size left in the sweep after --min/--max");
  return out;
}

// ---- Timing ---------------------------------------------------------------------------------

inline double now_seconds() {
  using clk = std::chrono::steady_clock;
  return std::chrono::duration<double>(clk::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

inline double min_of(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

// Bytes / seconds in GB/s (1e9 bytes), 0 for a zero time.
inline double gbps(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds * 1e-9 : 0;
}

// ---- The realistic particle -----------------------------------------------------------------

// Positions f32[3], a f32 scalar, a f32 vector[3] and a f32 tensor[3][3]: 16 floats = 64 bytes
// per particle, the shape of an SPH or MD particle.
struct RealisticSchema {
  pvec_schema_t schema = nullptr;
  int rho = -1, vel = -1, stress = -1;
  static constexpr int kProps = 3;          // positions not counted
  static constexpr int64_t kBytes = 64;     // per particle, positions included
  static constexpr int64_t kPosBytes = 12;  // 3 x f32
  RealisticSchema() {
    BENCH_PVEC(pvec_schema_create(&schema));
    BENCH_PVEC(pvec_schema_add_scalar(schema, "rho", PVEC_FLOAT32, &rho));
    BENCH_PVEC(pvec_schema_add_vector(schema, "vel", PVEC_FLOAT32, 3, &vel));
    BENCH_PVEC(pvec_schema_add_tensor(schema, "stress", PVEC_FLOAT32, 3, 3, &stress));
  }
  ~RealisticSchema() { pvec_schema_destroy(schema); }
  RealisticSchema(const RealisticSchema&) = delete;
  RealisticSchema& operator=(const RealisticSchema&) = delete;
};

// A description for the realistic particle: 3-D unit box, f32 positions.
inline pvec_vector_desc realistic_desc(int64_t n, int backend, int host_memory) {
  pvec_vector_desc d = PVEC_VECTOR_DESC_INIT;
  d.dim = 3;
  d.pos_dtype = PVEC_FLOAT32;
  d.n_particles = n;
  d.placement = PVEC_PLACE_LOCAL;
  d.backend = backend;
  d.host_memory = host_memory;
  return d;
}

// ---- Output ---------------------------------------------------------------------------------

// One JSON object built field by field; printed on one line prefixed "JSON ".
class Json {
 public:
  explicit Json(const char* bench) { str("bench", bench); }
  Json& str(const char* k, const std::string& v) {
    key(k);
    body_ += '"';
    for (char c : v) {
      if (c == '"' || c == '\\') body_ += '\\';
      body_ += c;
    }
    body_ += '"';
    return *this;
  }
  Json& num(const char* k, double v) {
    key(k);
    char buf[64];
    if (!std::isfinite(v))
      std::snprintf(buf, sizeof buf, "null");
    else
      std::snprintf(buf, sizeof buf, "%.6g", v);
    body_ += buf;
    return *this;
  }
  Json& integer(const char* k, int64_t v) {
    key(k);
    body_ += std::to_string(v);
    return *this;
  }
  Json& boolean(const char* k, bool v) {
    key(k);
    body_ += v ? "true" : "false";
    return *this;
  }
  void print() const {
    std::printf("JSON {%s}\n", body_.c_str());
    std::fflush(stdout);
  }

 private:
  void key(const char* k) {
    if (!body_.empty()) body_ += ',';
    body_ += '"';
    body_ += k;
    body_ += "\":";
  }
  std::string body_;
};

// Aligned text table: header once, then rows of preformatted cells.
class Table {
 public:
  explicit Table(std::vector<std::pair<std::string, int>> cols) : cols_(std::move(cols)) {}
  void header() const {
    std::string line, rule;
    for (const auto& c : cols_) {
      line += pad(c.first, c.second);
      rule += std::string(static_cast<size_t>(c.second), '-') + "  ";
    }
    std::printf("%s\n%s\n", line.c_str(), rule.c_str());
  }
  void row(const std::vector<std::string>& cells) const {
    std::string line;
    for (size_t i = 0; i < cells.size() && i < cols_.size(); ++i)
      line += pad(cells[i], cols_[i].second);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }

 private:
  static std::string pad(const std::string& s, int w) {
    std::string out = s;
    if (static_cast<int>(out.size()) < w) out.insert(0, static_cast<size_t>(w) - out.size(), ' ');
    return out + "  ";
  }
  std::vector<std::pair<std::string, int>> cols_;
};

// printf into a std::string, for table cells.
template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[128];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// A count in a compact form: 2^20 for powers of two >= 1024, 1e6 for powers of ten, else digits.
inline std::string count_str(int64_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int e = 0;
    while ((int64_t{1} << e) < n) ++e;
    return "2^" + std::to_string(e);
  }
  int64_t p = 1;
  int e = 0;
  while (p < n && e < 18) {
    p *= 10;
    ++e;
  }
  if (p == n && e >= 3) return "1e" + std::to_string(e);
  return std::to_string(n);
}

}  // namespace bench
