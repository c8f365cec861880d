# What the MPI tests of the distribution calls share (tests/migrate, tests/halo, tests/comm):
# the helpers of support/dist_util (brute-force references over all ranks' particles,
# gathered with MPI; the host/device path protocol), and the functions that register a test
# at 1-4 ranks on both paths (the device path runs on the GPU where there is one).
set(_support ${CMAKE_CURRENT_LIST_DIR})

add_library(pvec_dist_test_util STATIC ${_support}/dist_util.cpp
                                       ${_support}/dist_reference.cpp)
target_include_directories(pvec_dist_test_util PUBLIC ${_support})
target_link_libraries(pvec_dist_test_util PUBLIC pvec Catch2::Catch2)
set(_dist_libs pvec_dist_test_util)
if(PVEC_HAVE_MPI)
  target_link_libraries(pvec_dist_test_util PUBLIC MPI::MPI_C)
  target_compile_definitions(pvec_dist_test_util PUBLIC PVEC_TEST_HAVE_MPI=1)
  list(APPEND _dist_libs MPI::MPI_C)
endif()

# pvec_add_dist_test(<name> <source>...): the test program dist_<name> at 1-4 ranks.
function(pvec_add_dist_test name source)
  pvec_add_test(dist_${name} SOURCES ${source} ${ARGN} RANKS 1 2 3 4 LABELS dist
                LIBS ${_dist_libs})
  # tests/support/test_support.cpp includes <mpi.h> from C++: keep Open MPI's C++ bindings (a
  # library not linked) out.
  target_compile_definitions(dist_${name} PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
endfunction()

# pvec_add_dist_staged(<name>): dist_<name> again at 2 ranks with CUDA IPC and shared memory
# turned off (PVEC_IPC=0, PVEC_SHM=0): device messages staged through pinned host memory and
# MPI, host messages through MPI, the paths of ranks on several nodes. run_on checks each
# call's transport.
function(pvec_add_dist_staged name)
  if(PVEC_HAVE_MPI)
    add_test(NAME dist_${name}_staged_np2
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${PVEC_MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:dist_${name}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(dist_${name}_staged_np2 PROPERTIES
                         ENVIRONMENT "${PVEC_TEST_ENV};PVEC_IPC=0;PVEC_SHM=0" PROCESSORS 2
                         LABELS "dist;mpi" SKIP_RETURN_CODE 77 TIMEOUT 600)
  endif()
endfunction()

# White-box variants of the distribution tests: a hook file sets one of pvec's internal test
# switches before the tests run (pvec_whitebox_program: against the static archive).
function(pvec_add_dist_whitebox name hook ranks)
  pvec_whitebox_program(${name} ${hook} ${ARGN} ${_support}/dist_util.cpp
                        ${_support}/dist_reference.cpp)
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

