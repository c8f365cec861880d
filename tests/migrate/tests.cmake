# map at 1-4 ranks on the host and the device path: conservation of count, ids and values
# over random steps, periodic wrap, removal of particles outside, failure atomicity.
set(_here ${CMAKE_CURRENT_LIST_DIR})
pvec_add_dist_test(map ${_here}/test_dist_map.cpp)
pvec_add_dist_test(map_errors ${_here}/test_dist_map_errors.cpp)
pvec_add_dist_staged(map)


# The exact periodic wrap of map, against a binary128 reference (serial, host backend).
pvec_add_test(map_wrap SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_map_wrap.cpp RANKS 1 LABELS dist)
target_include_directories(map_wrap PRIVATE ${PROJECT_SOURCE_DIR}/tests/decomp)
unset(_here)
