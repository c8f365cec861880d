# Hardening tests (issue 6): the bad-input matrix and its completeness check against the
# exported symbols, calls in the wrong library state (own process), leak checks by pvec's own
# accounting, failure atomicity under injected allocation failure (white box, pvec_static),
# and concurrent use of distinct vectors. scripts/hardening.sh runs them under ASan/UBSan and
# the thread test under TSan; docs/reliability.md describes it all.
set(_hard ${CMAKE_CURRENT_LIST_DIR})
set(_capi_util ${CMAKE_CURRENT_SOURCE_DIR}/capi/capi_util.cpp)

# Bad-input matrix. The completeness test runs the same program on its [complete] case: it
# compares nm -D of libpvec with pvec.h's PVEC_API declarations and the matrix's rows.
pvec_add_test(hardening_matrix SOURCES ${_hard}/test_hardening_matrix.cpp ${_hard}/enum_shim.c
              LABELS hardening
              LIBS pvec_capi_test_util)
target_compile_definitions(hardening_matrix PRIVATE
  PVEC_NM="${CMAKE_NM}" PVEC_LIB_FILE="$<TARGET_FILE:pvec>"
  PVEC_HEADER_FILE="${PROJECT_SOURCE_DIR}/include/pvec.h")
add_test(NAME hardening_matrix_complete COMMAND hardening_matrix "[complete]")
set_tests_properties(hardening_matrix_complete PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}"
                                                          LABELS hardening TIMEOUT 120)

# Wrong state: before pvec_init and after pvec_finalize, in a program of its own.
add_executable(hardening_state ${_hard}/hardening_state.cpp)
target_link_libraries(hardening_state PRIVATE pvec)
add_test(NAME hardening_state COMMAND hardening_state)
set_tests_properties(hardening_state PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}" LABELS hardening
                                                TIMEOUT 120)

# Leak check over create/grow/map/ghost/destroy cycles, at 1-3 ranks.
pvec_add_test(hardening_leaks SOURCES ${_hard}/test_hardening_leaks.cpp RANKS 1 2 3
              LABELS hardening)

# Concurrent use of distinct handles (run under ThreadSanitizer by scripts/hardening.sh).
pvec_add_test(hardening_threads SOURCES ${_hard}/test_hardening_threads.cpp LABELS hardening)

# Failure atomicity: links the static archive of the library objects, whose allocator has the
# fault-injection hook (pvec::impl::inject_allocation_failure). Not through pvec_add_test,
# whose test main links libpvec.so: two copies of the library state would make injection
# miss. So it is a pvec_whitebox_program, against the archive.
pvec_whitebox_program(hardening_atomicity ${_hard}/test_hardening_atomicity.cpp ${_capi_util})
target_include_directories(hardening_atomicity PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/capi)
add_test(NAME hardening_atomicity COMMAND hardening_atomicity)
set_tests_properties(hardening_atomicity PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}"
                                                    LABELS hardening TIMEOUT 600)

# The same for collective calls: allocation failure on rank 1 inside map / ghost_get must
# fail the call on every rank without a hang (a hang shows as the timeout). MPI builds only.
if(PVEC_HAVE_MPI)
  pvec_whitebox_program(hardening_collective ${_hard}/test_hardening_collective.cpp ${_capi_util})
  target_include_directories(hardening_collective PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/capi)
  add_test(NAME hardening_collective_np2
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${PVEC_MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:hardening_collective> ${MPIEXEC_POSTFLAGS})
  set_tests_properties(hardening_collective_np2 PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}"
                       PROCESSORS 2 LABELS "hardening;mpi" TIMEOUT 60)
endif()

unset(_capi_util)
unset(_hard)
