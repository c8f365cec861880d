# The SPH dam break's determinism tests (examples/CMakeLists.txt), as a cmake -P script.
#
#   cmake -DMODE=ranks   -DMPIEXEC=... -DNP_FLAG=-n -DOVER=--oversubscribe -DEXE=sph_dambreak
#         -DARGS="--dim 2 ..." -DRANKS="1 2 3 4" -P sph_compare.cmake
#     runs EXE at each rank count; every run must pass its own checks and print the same
#     "state hash" line.
#   cmake -DMODE=restart ... -DARGS="... --steps N" -DAT=K -DFILE=path.h5 -DRANKS="2 3"
#     runs to step N at the first rank count writing a checkpoint at step K, then restarts from
#     it at the second rank count and runs to step N: the two hashes must be equal.
separate_arguments(_args UNIX_COMMAND "${ARGS}")
separate_arguments(_ranks UNIX_COMMAND "${RANKS}")

function(sph_run np out_var)
  execute_process(COMMAND ${MPIEXEC} ${NP_FLAG} ${np} ${OVER} ${EXE} ${ARGN}
                  OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
  string(REGEX MATCH "state hash: 0x[0-9a-f]+" _hash "${_out}")
  message("np ${np}: ${_hash} (exit ${_rc})")
  if(NOT _rc EQUAL 0 OR NOT _out MATCHES "sph_dambreak: all checks passed" OR _hash STREQUAL "")
    message(FATAL_ERROR "sph_dambreak at ${np} rank(s) failed:\n${_out}\n${_err}")
  endif()
  set(${out_var} "${_hash}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "ranks")
  set(_first "")
  foreach(np IN LISTS _ranks)
    sph_run(${np} _hash ${_args})
    if(_first STREQUAL "")
      set(_first "${_hash}")
    elseif(NOT _hash STREQUAL _first)
      message(FATAL_ERROR "the state differs between rank counts: ${_first} vs ${_hash} at ${np}")
    endif()
  endforeach()
  message("same ${_first} at ranks ${RANKS}")
elseif(MODE STREQUAL "restart")
  list(GET _ranks 0 _np_write)
  list(GET _ranks 1 _np_read)
  file(REMOVE "${FILE}")
  sph_run(${_np_write} _straight ${_args} --checkpoint ${FILE} --checkpoint-at ${AT})
  sph_run(${_np_read} _restarted ${_args} --restart ${FILE})
  if(NOT _straight STREQUAL _restarted)
    message(FATAL_ERROR "restart differs: ${_straight} straight, ${_restarted} restarted")
  endif()
  message("restart at step ${AT} (${_np_write} -> ${_np_read} ranks): same ${_straight}")
else()
  message(FATAL_ERROR "MODE must be ranks or restart")
endif()
