# map at 1-4 ranks on the host and the device path: conservation of count, ids and values
# over random steps, periodic wrap, removal of particles outside, failure atomicity.
set(_here ${CMAKE_CURRENT_LIST_DIR})
pvec_add_dist_test(map ${_here}/test_dist_map.cpp)
pvec_add_dist_test(map_errors ${_here}/test_dist_map_errors.cpp)
pvec_add_dist_staged(map)
unset(_here)
