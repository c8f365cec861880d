// Process-wide state: pvec_init / pvec_finalize, MPI initialisation, device selection.
#pragma once

namespace pvec::impl {

void environment_init(int* argc, char*** argv);
// Runs before the live vectors are destroyed? No: the C layer destroys them first.
void environment_finalize();
bool environment_initialized();
// MPI is usable (initialised and not finalised), by pvec or by the program.
bool mpi_usable();
// The MPI library can take device pointers (checked at run time, or option
// PVEC_MPI_CUDA_AWARE).
bool mpi_cuda_aware();
// Device messages between ranks of one node may go through CUDA inter-process memory (option
// PVEC_IPC, runtime/options.hpp).
bool ipc_enabled();
// Host messages between ranks of one node may go through shared memory (option PVEC_SHM).
bool shm_enabled();

}  // namespace pvec::impl
