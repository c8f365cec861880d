#include "runtime/options.hpp"

#include "common/error.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace pvec::impl {
namespace {

// What an option accepts. auto_ok: "auto" (stored as -1); max: the largest integer (1 for a
// switch).
struct Kind {
  bool auto_ok;
  int max;
};

struct Entry {
  OptionSpec spec;
  Kind kind;
  int default_value;
};

// The one table. Order: Option's.
const std::array<Entry, kOptionCount> kTable = {{
    {{"PVEC_DEVICE", "auto or a device ordinal", "auto",
      "CUDA device of this process; auto: node-local rank mod the device count"},
     {true, 1 << 20},
     -1},
    {{"PVEC_IPC", "0 or 1", "1",
      "device messages between ranks of one node go device to device through CUDA IPC"},
     {false, 1},
     1},
    {{"PVEC_SHM", "0 or 1", "1",
      "host messages between ranks of one node go through an MPI-3 shared-memory window"},
     {false, 1},
     1},
    {{"PVEC_MPI_CUDA_AWARE", "auto, 0 or 1", "auto",
      "hand device buffers to MPI; auto: when MPI reports CUDA support at run time"},
     {true, 1},
     -1},
    {{"PVEC_STAGED_TRANSFER", "auto, 0, 1 or 2", "auto",
      "blocking transfers of pageable mirrors through page-locked 1 MiB blocks on host threads; "
      "auto: from 16 MiB with two or more threads; 2: always, in 4 KiB blocks (a diagnostic "
      "that puts many blocks through every thread with little data)"},
     {true, 2},
     -1},
    {{"PVEC_IO_PREAD", "0 or 1", "1",
      "restart reads pvec's contiguous datasets with pread on every host thread (0: through "
      "HDF5 on one thread)"},
     {false, 1},
     1},
}};

std::mutex g_mutex;
std::array<int, kOptionCount> g_value = [] {
  std::array<int, kOptionCount> v{};
  for (int k = 0; k < kOptionCount; ++k) v[k] = kTable[k].default_value;
  return v;
}();
std::array<OptionSource, kOptionCount> g_source{};
thread_local std::string g_text;  // options_text's result, per calling thread

// The value text means for option k; throws with the variable's name when it is malformed.
int parse(int k, const char* text, const char* where) {
  const Entry& e = kTable[k];
  if (e.kind.auto_ok && std::strcmp(text, "auto") == 0) return -1;
  char* end = nullptr;
  const bool digits = *text >= '0' && *text <= '9';  // strtol would take spaces and signs
  const long v = digits ? std::strtol(text, &end, 10) : -1;
  if (!digits || *end != '\0' || v < 0 || v > e.kind.max)
    fail(PVEC_ERROR_INVALID_ARGUMENT, where, " ", e.spec.name, "=\"", text, "\": expected ",
         e.spec.values);
  return static_cast<int>(v);
}

std::string text_of(int k, int v) {
  return v < 0 && kTable[k].kind.auto_ok ? std::string("auto") : std::to_string(v);
}

}  // namespace

const OptionSpec& option_spec(Option o) { return kTable[static_cast<int>(o)].spec; }

int option_index(const char* name) {
  if (name == nullptr) return -1;
  for (int k = 0; k < kOptionCount; ++k)
    if (std::strcmp(kTable[k].spec.name, name) == 0) return k;
  return -1;
}

int option_value(Option o) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_value[static_cast<int>(o)];
}

bool option_on(Option o) { return option_value(o) != 0; }

OptionSource option_source(Option o) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_source[static_cast<int>(o)];
}

std::string option_text(Option o) {
  const int k = static_cast<int>(o);
  return text_of(k, option_value(o));
}

void options_read_environment() {
  std::array<int, kOptionCount> v{};
  std::array<OptionSource, kOptionCount> s{};
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    v = g_value;
    s = g_source;
  }
  for (int k = 0; k < kOptionCount; ++k) {
    if (s[k] == OptionSource::set) continue;  // pvec_options_set before pvec_init wins
    const char* e = std::getenv(kTable[k].spec.name);
    if (e == nullptr || *e == '\0') {
      v[k] = kTable[k].default_value;
      s[k] = OptionSource::default_value;
    } else {
      v[k] = parse(k, e, "environment:");
      s[k] = OptionSource::environment;
    }
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_value = v;
  g_source = s;
}

void options_set(const char* name, const char* value) {
  const int k = option_index(name);
  if (k < 0) {
    std::string known;
    for (const Entry& e : kTable) known += std::string(known.empty() ? "" : ", ") + e.spec.name;
    fail(PVEC_ERROR_INVALID_ARGUMENT, "no option \"", name == nullptr ? "(NULL)" : name,
         "\"; the options are ", known);
  }
  const bool reset = value == nullptr || *value == '\0';
  const int v = reset ? kTable[k].default_value : parse(k, value, "value");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_value[k] = v;
  g_source[k] = reset ? OptionSource::default_value : OptionSource::set;
}

const std::string& options_text() {
  static const char* const kSource[] = {"default", "environment", "set by pvec_options_set"};
  std::string t;
  for (int k = 0; k < kOptionCount; ++k) {
    const Option o = static_cast<Option>(k);
    const OptionSource s = option_source(o);
    t += std::string(kTable[k].spec.name) + "=" + option_text(o) + " (" +
         kSource[static_cast<int>(s)];
    if (s != OptionSource::default_value)
      t += std::string("; default ") + kTable[k].spec.default_value;
    t += std::string("): ") + kTable[k].spec.meaning + "\n";
  }
  g_text = t;
  return g_text;
}

}  // namespace pvec::impl
