# Configures pvec with Catch2 hidden and checks that the configure succeeds, says in one warning
# what to install, and generates the library, examples and benchmarks but no test targets.
# Usage: cmake -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P configure_without_catch2.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}"
          -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON -DPVEC_ENABLE_CUDA=OFF
          -DPVEC_BUILD_FORTRAN=OFF
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure without Catch2 failed (${rc}):\n${out}\n${err}")
endif()
string(FIND "${err}" "tests are off: Catch2 was not found" at)
if(at EQUAL -1)
  message(FATAL_ERROR "configure without Catch2 did not say the tests are off:\n${err}")
endif()
string(FIND "${err}" "apt-get install catch2" at)
if(at EQUAL -1)
  message(FATAL_ERROR "configure without Catch2 did not say what to install:\n${err}")
endif()
if(EXISTS "${WORK_DIR}/CTestTestfile.cmake")
  message(FATAL_ERROR "configure without Catch2 still generated tests")
endif()
foreach(dir src examples)
  if(NOT EXISTS "${WORK_DIR}/${dir}/Makefile" AND NOT EXISTS "${WORK_DIR}/build.ninja")
    message(FATAL_ERROR "configure without Catch2 generated no ${dir}/")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "configure without Catch2: tests off with a clear warning; library configured")
