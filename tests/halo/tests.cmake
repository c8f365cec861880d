# ghost_get, ghost_put and the ghost plan at 1-4 ranks on the host and the device path, against
# brute-force references; white-box tests of the candidate count and of wide index lists.
set(_here ${CMAKE_CURRENT_LIST_DIR})
pvec_add_dist_test(ghost_get ${_here}/test_dist_ghost_get.cpp)
pvec_add_dist_test(ghost_put ${_here}/test_dist_ghost_put.cpp)
pvec_add_dist_test(ghost_plan ${_here}/test_dist_ghost_plan.cpp)
pvec_add_dist_staged(ghost_get)
pvec_add_dist_staged(ghost_put)

# White-box: ghost_get's candidate count pass, fast path against general path (serial; the
# functor is header-only, so only pvec's source headers are needed).
pvec_add_test(dist_ghost_candidates SOURCES ${_here}/test_ghost_candidates.cpp LABELS dist)
target_include_directories(dist_ghost_candidates PRIVATE ${PROJECT_SOURCE_DIR}/src)

# White-box: the host path's plan builder against the device path's passes run on the host
# (force_generic_ghost_plan), ghosts and ghost_put byte for byte.
pvec_add_dist_whitebox(dist_ghost_plan_paths ${_here}/test_dist_ghost_plan_paths.cpp "1;2;3;4")

# White-box: the host ghost_put at 1, 2, 3 and 5 forced threads, byte for byte against one
# thread, and one thread against the plan order (every reduction, many copies per particle).
pvec_add_dist_whitebox(dist_ghost_put_threads ${_here}/test_dist_ghost_put_threads.cpp "1;2;3;4")

# The ghost tests with every index list of ghost_get int64 (the path of ranks with more than
# 2^31 particles, narrow otherwise), forced at small sizes.
pvec_add_dist_whitebox(dist_ghost_wide ${_here}/force_wide_indices.cpp "1;2;3"
                       ${_here}/test_dist_ghost_get.cpp ${_here}/test_dist_ghost_put.cpp
                       ${_here}/test_dist_ghost_plan.cpp ${_here}/test_dist_ghost_plan_paths.cpp)
unset(_here)

# White-box: the host path's parallel loops and host pack against their serial references
# (host_parallel.cpp compiled in, with OpenMP as in the library).
pvec_add_test(host_parallel SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_host_parallel.cpp
              ${PROJECT_SOURCE_DIR}/src/backend/host_parallel.cpp LABELS dist)
target_include_directories(host_parallel PRIVATE ${PROJECT_SOURCE_DIR}/src)
if(PVEC_HAVE_OPENMP)
  target_link_libraries(host_parallel PRIVATE OpenMP::OpenMP_CXX)
  target_compile_definitions(host_parallel PRIVATE PVEC_HAVE_OPENMP=1)
endif()

# The ghost and map tests with the host path's parallel loops on 3 threads (at 1 and 2 ranks).
pvec_add_dist_whitebox(dist_host_threads ${CMAKE_CURRENT_LIST_DIR}/force_host_threads.cpp "1;2"
                       ${CMAKE_CURRENT_LIST_DIR}/test_dist_ghost_get.cpp
                       ${CMAKE_CURRENT_LIST_DIR}/test_dist_ghost_put.cpp
                       ${CMAKE_CURRENT_LIST_DIR}/test_dist_ghost_plan.cpp
                       ${CMAKE_CURRENT_LIST_DIR}/test_dist_ghost_plan_paths.cpp
                       ${PROJECT_SOURCE_DIR}/tests/migrate/test_dist_map.cpp)
if(PVEC_HAVE_OPENMP)
  target_compile_definitions(dist_host_threads PRIVATE PVEC_TEST_HOST_OPENMP=1)
endif()

# The split-phase ghost exchange against the blocking calls, its refusals, a destroy in flight;
# again with shared memory and CUDA IPC off (MPI messages, staged on the device).
pvec_add_dist_test(split_phase ${CMAKE_CURRENT_LIST_DIR}/test_dist_split_phase.cpp)
pvec_add_dist_staged(split_phase)
