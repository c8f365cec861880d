# Load balance at 1-4 ranks, host and device paths.
pvec_add_dist_test(imbalance ${CMAKE_CURRENT_LIST_DIR}/test_imbalance.cpp)
pvec_add_dist_test(rebalance ${CMAKE_CURRENT_LIST_DIR}/test_rebalance.cpp)
pvec_add_dist_test(follow ${CMAKE_CURRENT_LIST_DIR}/test_follow.cpp)
if(PVEC_HAVE_CUDA)
  target_compile_definitions(dist_follow PRIVATE PVEC_TEST_CUDA=1)
  target_link_libraries(dist_follow PRIVATE CUDA::cudart)
endif()
