# Neighbour search (cell lists, locality sort, Verlet lists) at 1-4 ranks on the host and the
# device path, against brute-force references.
set(_here ${CMAKE_CURRENT_LIST_DIR})
pvec_add_dist_test(neighbors ${_here}/test_neighbors.cpp)
if(PVEC_HAVE_CUDA)
  target_compile_definitions(dist_neighbors PRIVATE PVEC_TEST_CUDA=1)
  target_link_libraries(dist_neighbors PRIVATE CUDA::cudart)
endif()
unset(_here)

# White box (pvec_static): the device bucket sort's two-level path against the host's sort.
# GPU only; its main skips (77) without a device. Not through pvec_add_test, whose main links
# libpvec.so (two copies of the library state).
if(PVEC_HAVE_CUDA)
  set(_sup ${PROJECT_SOURCE_DIR}/tests/support)
  add_executable(two_level_sort ${CMAKE_CURRENT_LIST_DIR}/test_two_level_sort.cpp
                                ${_sup}/test_main.cpp ${_sup}/test_support.cpp ${_sup}/snapshot.cpp)
  target_link_libraries(two_level_sort PRIVATE pvec_static Catch2::Catch2 CUDA::cudart)
  target_include_directories(two_level_sort PRIVATE ${_sup} ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(two_level_sort PRIVATE PVEC_TEST_NEEDS_GPU=1)
  if(PVEC_HAVE_MPI)
    target_link_libraries(two_level_sort PRIVATE MPI::MPI_C)
    target_compile_definitions(two_level_sort PRIVATE PVEC_TEST_HAVE_MPI=1 OMPI_SKIP_MPICXX=1
                                                      MPICH_SKIP_MPICXX=1)
  endif()
  add_test(NAME two_level_sort COMMAND two_level_sort)
  set_tests_properties(two_level_sort PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}" LABELS "gpu"
                                                 SKIP_RETURN_CODE 77 TIMEOUT 300)
  unset(_sup)
endif()
