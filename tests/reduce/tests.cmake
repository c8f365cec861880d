# Reductions over a vector's communicator at 1-4 ranks, host and device paths.
pvec_add_dist_test(reduce ${CMAKE_CURRENT_LIST_DIR}/test_dist_reduce.cpp)
