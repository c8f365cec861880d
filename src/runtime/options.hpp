// The run-time options of pvec: every switch it reads from the environment, declared once
// here (name, kind, default, one line of meaning), read once by pvec_init, changed by
// pvec_options_set and listed by pvec_options_get_info / pvec_options_get_text
// (docs/options.md). Nothing else in the library calls getenv for a PVEC_* variable.
#pragma once

#include <string>

namespace pvec::impl {

enum class Option : int {
  device,           // PVEC_DEVICE: the CUDA device of this process (auto: local rank mod count)
  ipc,              // PVEC_IPC: device messages on one node through CUDA IPC
  shm,              // PVEC_SHM: host messages on one node through shared memory
  mpi_cuda_aware,   // PVEC_MPI_CUDA_AWARE: hand device buffers to MPI (auto: ask MPI)
  staged_transfer,  // PVEC_STAGED_TRANSFER: pageable transfers through page-locked blocks
  io_pread,         // PVEC_IO_PREAD: restart reads contiguous datasets with pread
  count
};

constexpr int kOptionCount = static_cast<int>(Option::count);

// Where the value in use came from.
enum class OptionSource : int { default_value = 0, environment = 1, set = 2 };

struct OptionSpec {
  const char* name;           // the environment variable
  const char* values;         // what it accepts, for messages: "0 or 1", "auto, 0 or 1", ...
  const char* default_value;  // as text
  const char* meaning;        // one line
};

const OptionSpec& option_spec(Option o);
// -1 when no option has that name.
int option_index(const char* name);

// The value in use: -1 stands for "auto" where the option has it.
int option_value(Option o);
bool option_on(Option o);  // option_value(o) != 0 (auto counts as on)
OptionSource option_source(Option o);
// The value in use as text ("auto", "0", "1", "3").
std::string option_text(Option o);

// Reads every option from the environment (unset: the default), except those set by
// options_set. A malformed value throws PVEC_ERROR_INVALID_ARGUMENT naming the variable, and
// nothing changes. Called by pvec_init. (The launcher's local-rank variables that device
// selection falls back on, OMPI_COMM_WORLD_LOCAL_RANK and the like, are not pvec's options.)
void options_read_environment();
// Sets one option by name to a value given as text (nullptr or "": back to the default). A
// bad name or value throws PVEC_ERROR_INVALID_ARGUMENT and nothing changes.
void options_set(const char* name, const char* value);
// One line per option: "PVEC_IPC=1 (environment; default 1): meaning". The string is the
// calling thread's and stays valid until its next call.
const std::string& options_text();

}  // namespace pvec::impl
