# Creation over a communicator, the decomposition and pvec's own MPI at 1-4 ranks; the
# fallbacks from CUDA IPC and from shared memory to MPI.
set(_here ${CMAKE_CURRENT_LIST_DIR})
pvec_add_dist_test(comm ${_here}/test_dist_comm.cpp)

# map, ghost_get and ghost_put with rank 1 refusing CUDA IPC: on a GPU the first device
# exchange that moves bytes turns IPC off on every rank and the calls go through MPI (staged);
# run_on checks the transport of every call.
pvec_add_dist_whitebox(dist_ipc_refused ${_here}/refuse_ipc.cpp "2;3"
                       ${_here}/../migrate/test_dist_map.cpp ${_here}/../halo/test_dist_ghost_get.cpp
                       ${_here}/../halo/test_dist_ghost_put.cpp)

# The same with rank 1 refusing shared memory: a vector's first host call turns it off on every
# rank (the window is freed everywhere) and host calls go through MPI; run_on checks that.
pvec_add_dist_whitebox(dist_shm_refused ${_here}/refuse_shm.cpp "2;3"
                       ${_here}/../migrate/test_dist_map.cpp ${_here}/../halo/test_dist_ghost_get.cpp
                       ${_here}/../halo/test_dist_ghost_put.cpp)
unset(_here)
