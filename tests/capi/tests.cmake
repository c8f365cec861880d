# C-ABI tests: Catch2 programs that use pvec only through pvec.h, on whatever backend a
# vector gets (host here, CUDA on a GPU machine), plus pvec.h compiled as strict C99 and a
# check that libpvec exports nothing but pvec_*.
set(_capi ${CMAKE_CURRENT_LIST_DIR})

# Shared helpers, compiled once.
add_library(pvec_capi_test_util STATIC ${_capi}/capi_util.cpp)
target_include_directories(pvec_capi_test_util PUBLIC ${_capi} ${CMAKE_CURRENT_SOURCE_DIR}/support)
target_link_libraries(pvec_capi_test_util PUBLIC pvec Catch2::Catch2)

foreach(_t schema layout growth transfer modify bad_input retention options)
  pvec_add_test(capi_${_t} SOURCES ${_capi}/test_capi_${_t}.cpp RANKS 1 LABELS capi
                LIBS pvec_capi_test_util)
  # tests/support includes <mpi.h> from C++: keep Open MPI's deprecated C++ bindings out,
  # or the program needs libmpi_cxx.
  target_compile_definitions(capi_${_t} PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
endforeach()

# White-box: the versioned-struct helpers of src/capi on a struct with three layouts, and
# every versioned struct of pvec.h at each of its layout sizes.
pvec_add_test(capi_versioned SOURCES ${_capi}/test_capi_versioned.cpp RANKS 1 LABELS capi
              LIBS pvec_capi_test_util)
target_include_directories(capi_versioned PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(capi_versioned PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)

# pvec.h must compile warning-free as C++ too; Catch2 comes in as a system header.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(
    ${_capi}/capi_util.cpp ${_capi}/test_capi_schema.cpp ${_capi}/test_capi_layout.cpp
    ${_capi}/test_capi_growth.cpp ${_capi}/test_capi_transfer.cpp ${_capi}/test_capi_modify.cpp
    ${_capi}/test_capi_bad_input.cpp ${_capi}/test_capi_retention.cpp ${_capi}/test_capi_options.cpp
    PROPERTIES COMPILE_OPTIONS "-Wall;-Wextra;-Werror")
endif()

# pvec.h as strict C99, in a small program that runs; with MPI also after <mpi.h>, which
# brings in pvec_vector_desc_set_comm.
set(_c_header_tests capi_c_header)
add_executable(capi_c_header ${_capi}/c_header.c)
target_link_libraries(capi_c_header PRIVATE pvec)
if(PVEC_HAVE_MPI)
  add_executable(capi_c_header_mpi ${_capi}/c_header.c)
  target_link_libraries(capi_c_header_mpi PRIVATE pvec MPI::MPI_C)
  target_compile_definitions(capi_c_header_mpi PRIVATE PVEC_TEST_WITH_MPI=1)
  list(APPEND _c_header_tests capi_c_header_mpi)
endif()
foreach(_t IN LISTS _c_header_tests)
  set_target_properties(${_t} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${_t} PRIVATE -std=c99 -Wall -Wextra -pedantic -Werror)
  endif()
  add_test(NAME ${_t} COMMAND ${_t})
  set_tests_properties(${_t} PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}" LABELS capi TIMEOUT 120
                                        PASS_REGULAR_EXPRESSION "c_header: capacity 128, ok")
endforeach()

# Only pvec_* may be exported from the shared library.
add_test(NAME capi_exports
         COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:pvec> -DNM=${CMAKE_NM}
                 -P ${_capi}/check_exports.cmake)
set_tests_properties(capi_exports PROPERTIES LABELS capi TIMEOUT 60)

# What pvec_init reads from the environment: one C program, three environments.
add_executable(capi_options_env ${_capi}/options_env.c)
target_link_libraries(capi_options_env PRIVATE pvec)
set_target_properties(capi_options_env PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
add_test(NAME capi_options_env COMMAND capi_options_env good)
set_tests_properties(capi_options_env PROPERTIES LABELS capi ENVIRONMENT
                     "${PVEC_TEST_ENV};PVEC_IPC=0;PVEC_STAGED_TRANSFER=2")
add_test(NAME capi_options_env_bad COMMAND capi_options_env bad)
set_tests_properties(capi_options_env_bad PROPERTIES LABELS capi ENVIRONMENT
                     "${PVEC_TEST_ENV};PVEC_SHM=maybe")
add_test(NAME capi_options_env_set COMMAND capi_options_env set)
set_tests_properties(capi_options_env_set PROPERTIES LABELS capi ENVIRONMENT
                     "${PVEC_TEST_ENV};PVEC_IPC=0")

unset(_t)
unset(_c_header_tests)
unset(_capi)

