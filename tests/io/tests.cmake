# Output and restart (issue 20): HDF5 checkpoints and restart on any rank count (C++, 1-4
# ranks; the N-to-M case needs 4), the VTK writer (C++ files and .pvd series; Python: a real
# VTK reader and h5py, skipped with a message without them).
set(_here ${CMAKE_CURRENT_LIST_DIR})
# One program: round trips, and errors (test_io_checkpoint_errors.cpp), sharing checkpoint_util.
pvec_add_test(io_checkpoint
              SOURCES ${_here}/test_io_checkpoint.cpp ${_here}/test_io_checkpoint_errors.cpp
                      ${_here}/checkpoint_util.cpp
              RANKS 1 2 3 4 LABELS io LIBS ${_dist_libs})
target_compile_definitions(io_checkpoint PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
if(PVEC_HAVE_HDF5)
  # The damaged-file cases edit checkpoints with the HDF5 C library directly.
  target_link_libraries(io_checkpoint PRIVATE pvec_hdf5)
else()
  # Without parallel HDF5 only the NOT_SUPPORTED case runs; the header is not needed.
  target_compile_definitions(io_checkpoint PRIVATE PVEC_TEST_NO_HDF5=1)
endif()
if(PVEC_HAVE_HDF5)
  # Damaged checkpoints, structure-aware: every header attribute and dataset rewritten with the
  # HDF5 C library, alone and in 300 random combinations (the reader's fuzz test).
  # With them, one byte flipped in any dataset's rows (test_io_checksums.cpp).
  pvec_add_test(io_damaged SOURCES ${_here}/test_io_damaged.cpp ${_here}/test_io_checksums.cpp
                ${_here}/checkpoint_util.cpp RANKS 1 3 LABELS io
                LIBS ${_dist_libs})
  target_compile_definitions(io_damaged PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  target_link_libraries(io_damaged PRIVATE pvec_hdf5)
endif()
pvec_add_test(io_vtk SOURCES ${_here}/test_io_vtk.cpp RANKS 1 2 3 LABELS io LIBS ${_dist_libs})
target_compile_definitions(io_vtk PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)

# White-box: the file block loop (io/block_pipeline.hpp) at 1, 2 and 3 forced host threads with
# tiny blocks: checkpoint datasets, restarts and VTK pieces byte for byte against one thread;
# injected failures of a block's file call or staging are errors on every rank.
pvec_add_dist_whitebox(io_threads ${_here}/test_io_threads.cpp "1;2;3")
if(PVEC_HAVE_HDF5)
  target_link_libraries(io_threads PRIVATE pvec_hdf5)
else()
  target_compile_definitions(io_threads PRIVATE PVEC_TEST_NO_HDF5=1)
endif()
# White-box: a checkpoint write failing at each HDF5 call of the writer (every rank, one rank
# alone) and beyond a real file size limit releases every HDF5 object, leaves no temporary
# file and the previous checkpoint intact; the next write and a restart succeed.
if(PVEC_HAVE_HDF5)
  pvec_add_dist_whitebox(io_write_failures ${_here}/test_io_write_failures.cpp "1;2;3"
                         ${_here}/checkpoint_util.cpp)
  target_link_libraries(io_write_failures PRIVATE pvec_hdf5)
endif()
foreach(_n 1 2 3)
  if(TEST io_write_failures_np${_n})
    set_property(TEST io_write_failures_np${_n} APPEND PROPERTY LABELS io)
  endif()
  if(TEST io_threads_np${_n})
    set_property(TEST io_threads_np${_n} APPEND PROPERTY LABELS io)
  endif()
endforeach()
unset(_here)
