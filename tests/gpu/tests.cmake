# GPU tests: user CUDA kernels on pvec data. Built only with the CUDA backend; without a
# usable device at run time each program prints SKIPPED and exits 77 (CTest: skipped).
if(PVEC_HAVE_CUDA)
  set(_gpu ${CMAKE_CURRENT_LIST_DIR})
  # CMake links the CUDA runtime into targets with .cu sources (CMAKE_CUDA_RUNTIME_LIBRARY).
  pvec_add_test(gpu_kernels SOURCES ${_gpu}/test_gpu_kernels.cu RANKS 1 LABELS gpu)
  pvec_add_test(gpu_memory SOURCES ${_gpu}/test_gpu_memory.cu RANKS 1 LABELS gpu)
  pvec_add_test(gpu_population SOURCES ${_gpu}/test_gpu_population.cu RANKS 1 LABELS gpu)
  unset(_gpu)
endif()
