# Neighbour search (cell lists, locality sort, Verlet lists) at 1-4 ranks on the host and the
# device path, against brute-force references.
set(_here ${CMAKE_CURRENT_LIST_DIR})
pvec_add_dist_test(neighbors ${_here}/test_neighbors.cpp)
if(PVEC_HAVE_CUDA)
  target_compile_definitions(dist_neighbors PRIVATE PVEC_TEST_CUDA=1)
  target_link_libraries(dist_neighbors PRIVATE CUDA::cudart)
endif()
unset(_here)

