# Neighbour search (cell lists, locality sort, Verlet lists) at 1-4 ranks on the host and the
# device path, against brute-force references: one program (one launch per rank count), a
# source per concept, the shared boxes and references in neighbors_util.
set(_here ${CMAKE_CURRENT_LIST_DIR})
pvec_add_dist_test(neighbors ${_here}/test_neighbor_lists.cpp ${_here}/test_locality_sort.cpp
                   ${_here}/test_build_methods.cpp ${_here}/test_verlet_options.cpp
                   ${_here}/neighbors_util.cpp)
if(PVEC_HAVE_CUDA)
  target_compile_definitions(dist_neighbors PRIVATE PVEC_TEST_CUDA=1)
  target_link_libraries(dist_neighbors PRIVATE CUDA::cudart)
endif()
unset(_here)


# White box (pvec_static): the tiled bucket sort (src/neighbors/tile_sort.hpp). tile_sort checks
# its plan everywhere; tile_sort_gpu (CUDA builds) also sorts on the device against the host's
# sort and skips (77) without a device. Not through pvec_add_test, whose main links libpvec.so
# (two copies of the library state).
foreach(_t tile_sort tile_sort_gpu)
  if(_t STREQUAL tile_sort_gpu AND NOT PVEC_HAVE_CUDA)
    continue()
  endif()
  pvec_whitebox_program(${_t} ${CMAKE_CURRENT_LIST_DIR}/test_tile_sort.cpp)
  set(_labels neighbors)
  if(_t STREQUAL tile_sort_gpu)
    target_link_libraries(${_t} PRIVATE CUDA::cudart)
    target_compile_definitions(${_t} PRIVATE PVEC_TEST_CUDA=1 PVEC_TEST_NEEDS_GPU=1)
    set(_labels gpu)
  endif()
  add_test(NAME ${_t} COMMAND ${_t})
  set_tests_properties(${_t} PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}" LABELS "${_labels}"
                                        SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
unset(_labels)

# The locality sort's work memory on long thin grids (O(rows + cells) for every order).
pvec_add_test(sort_memory SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sort_memory.cpp RANKS 1 2
              LABELS neighbors LIBS pvec_capi_test_util)
target_compile_definitions(sort_memory PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)

# White box: the Morton rank of a cell against sorting the grid's cells by their codes.
pvec_whitebox_program(morton_rank ${CMAKE_CURRENT_LIST_DIR}/test_morton_rank.cpp)
add_test(NAME morton_rank COMMAND morton_rank)
set_tests_properties(morton_rank PROPERTIES ENVIRONMENT "${PVEC_TEST_ENV}" LABELS neighbors
                                            TIMEOUT 300)
