# Load balance at 1-4 ranks, host and device paths.
pvec_add_dist_test(imbalance ${CMAKE_CURRENT_LIST_DIR}/test_imbalance.cpp)
pvec_add_dist_test(rebalance ${CMAKE_CURRENT_LIST_DIR}/test_rebalance.cpp)
