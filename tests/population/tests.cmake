# Removal by mark, spawns, ids and mirror coherence at 1-4 ranks, host and device paths.
pvec_add_dist_test(population ${CMAKE_CURRENT_LIST_DIR}/test_population.cpp)
pvec_add_dist_test(coherence ${CMAKE_CURRENT_LIST_DIR}/test_coherence.cpp)
if(PVEC_HAVE_CUDA)
  foreach(t population coherence)
    target_compile_definitions(dist_${t} PRIVATE PVEC_TEST_CUDA=1)
    target_link_libraries(dist_${t} PRIVATE CUDA::cudart)
  endforeach()
endif()
