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

# The device calls again with CUDA IPC turned off (PVEC_IPC=0): device messages staged through
# pinned host memory and MPI, the path of ranks on several nodes (on a machine without a GPU
# these repeat the host runs). run_on checks each call's transport.
if(PVEC_HAVE_MPI)
  foreach(_t map ghost_get ghost_put)
    add_test(NAME dist_${_t}_staged_np2
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${PVEC_MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:dist_${_t}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(dist_${_t}_staged_np2 PROPERTIES
                         ENVIRONMENT "${PVEC_TEST_ENV};PVEC_IPC=0" PROCESSORS 2
                         LABELS "dist;mpi" SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
endif()

# White-box: ghost_get's candidate count pass, fast path against general path (serial; the
# functor is header-only, so only pvec's source headers are needed).
pvec_add_test(dist_ghost_candidates SOURCES ${_dist}/test_ghost_candidates.cpp LABELS dist)
target_include_directories(dist_ghost_candidates PRIVATE ${PROJECT_SOURCE_DIR}/src)

# White-box variants of the distribution tests: a hook file sets one of pvec's internal test
# switches before the tests run. Linked against the static archive (one copy of the library
# state), so the test main and the helpers are compiled again here.
function(pvec_add_dist_whitebox name hook ranks)
  add_executable(${name} ${hook} ${ARGN} ${_dist}/dist_util.cpp
                         ${CMAKE_CURRENT_SOURCE_DIR}/support/test_main.cpp
                         ${CMAKE_CURRENT_SOURCE_DIR}/support/test_support.cpp)
  target_link_libraries(${name} PRIVATE pvec_static Catch2::Catch2)
  target_include_directories(${name} PRIVATE ${_dist} ${CMAKE_CURRENT_SOURCE_DIR}/support
                                             ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(${name} PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  if(PVEC_HAVE_MPI)
    target_link_libraries(${name} PRIVATE MPI::MPI_C)
    target_compile_definitions(${name} PRIVATE PVEC_TEST_HAVE_MPI=1)
  endif()
  foreach(n IN LISTS ranks)
    if(PVEC_HAVE_MPI)
      add_test(NAME ${name}_np${n}
               COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${PVEC_MPIEXEC_PREFLAGS}
                       $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
      set_tests_properties(${name}_np${n} PROPERTIES PROCESSORS ${n} LABELS "dist;mpi")
    elseif(n EQUAL 1)
      add_test(NAME ${name}_np${n} COMMAND ${name})
      set_tests_properties(${name}_np${n} PROPERTIES LABELS dist)
    else()
      continue()
    endif()
    set_tests_properties(${name}_np${n} PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}"
                                                    SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
endfunction()

# The ghost tests with every index list of ghost_get int64 (the path of ranks with more than
# 2^31 particles, narrow otherwise), forced at small sizes.
pvec_add_dist_whitebox(dist_ghost_wide ${_dist}/force_wide_indices.cpp "1;2;3"
                       ${_dist}/test_dist_ghost_get.cpp ${_dist}/test_dist_ghost_put.cpp
                       ${_dist}/test_dist_ghost_plan.cpp)

# map, ghost_get and ghost_put with rank 1 refusing CUDA IPC: on a GPU the first device
# exchange that moves bytes turns IPC off on every rank and the calls go through MPI (staged);
# run_on checks the transport of every call.
pvec_add_dist_whitebox(dist_ipc_refused ${_dist}/refuse_ipc.cpp "2;3"
                       ${_dist}/test_dist_map.cpp ${_dist}/test_dist_ghost_get.cpp
                       ${_dist}/test_dist_ghost_put.cpp)

unset(_t)
unset(_dist_libs)
unset(_dist)
