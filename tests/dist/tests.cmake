# MPI tests of the distribution calls (pvec_map, pvec_ghost_get, pvec_ghost_put, the
# decomposition and creation over a communicator), each at 1-4 ranks and on both the host
# and the device path (the device path runs on the GPU where there is one). References are
# brute force over all ranks' particles, gathered with MPI.
set(_dist ${CMAKE_CURRENT_LIST_DIR})

add_library(pvec_dist_test_util STATIC ${_dist}/dist_util.cpp)
target_include_directories(pvec_dist_test_util PUBLIC ${_dist} ${CMAKE_CURRENT_SOURCE_DIR}/support)
target_link_libraries(pvec_dist_test_util PUBLIC pvec Catch2::Catch2)
set(_dist_libs pvec_dist_test_util)
if(PVEC_HAVE_MPI)
  target_link_libraries(pvec_dist_test_util PUBLIC MPI::MPI_C)
  target_compile_definitions(pvec_dist_test_util PUBLIC PVEC_TEST_HAVE_MPI=1)
  list(APPEND _dist_libs MPI::MPI_C)
endif()

foreach(_t map ghost_get ghost_put ghost_plan map_errors comm)
  if(EXISTS ${_dist}/test_dist_${_t}.cpp)
    pvec_add_test(dist_${_t} SOURCES ${_dist}/test_dist_${_t}.cpp RANKS 1 2 3 4 LABELS dist
                  LIBS ${_dist_libs})
    # tests/support/test_support.cpp includes <mpi.h> from C++: keep Open MPI's C++
    # bindings (a library not linked) out.
    target_compile_definitions(dist_${_t} PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  endif()
endforeach()

# White-box: ghost_get's candidate count pass, fast path against general path (serial; the
# functor is header-only, so only pvec's source headers are needed).
pvec_add_test(dist_ghost_candidates SOURCES ${_dist}/test_ghost_candidates.cpp LABELS dist)
target_include_directories(dist_ghost_candidates PRIVATE ${PROJECT_SOURCE_DIR}/src)

unset(_t)
unset(_dist_libs)
unset(_dist)
