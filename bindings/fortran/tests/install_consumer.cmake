# Installs the build tree into WORK_DIR/prefix, then builds consumer/app.f90 against the
# installed files only, once through pkg-config and once through find_package, and runs both.
# Arguments (-D): BUILD_DIR WORK_DIR APP_SOURCE CONSUMER_DIR FORTRAN_COMPILER PKG_CONFIG LIBDIR
# MODULES (the binding's modules, ";"-separated: each .mod must be installed).
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run_step("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
set(expected "${prefix}/${LIBDIR}/pkgconfig/pvec-fortran.pc")
foreach(m IN LISTS MODULES)
  list(APPEND expected "${prefix}/include/pvec/fortran/${m}.mod")
endforeach()
foreach(f IN LISTS expected)
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# 1. pkg-config.
set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
run_step("pkg-config" ${PKG_CONFIG} --cflags --libs pvec-fortran)
string(STRIP "${step_output}" flags)
message(STATUS "pkg-config --cflags --libs pvec-fortran: ${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
file(MAKE_DIRECTORY "${WORK_DIR}/pkgconfig")
execute_process(COMMAND ${FORTRAN_COMPILER} "${APP_SOURCE}" ${flags} -o app
                WORKING_DIRECTORY "${WORK_DIR}/pkgconfig" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling with pkg-config flags failed:\n${out}\n${err}")
endif()
run_step("pkg-config app" "${WORK_DIR}/pkgconfig/app")
if(NOT step_output MATCHES "consumer: OK")
  message(FATAL_ERROR "pkg-config app printed: ${step_output}")
endif()
message(STATUS "pkg-config app: ${step_output}")

# 2. CMake package.
run_step("consumer configure" ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/cmake"
         "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_Fortran_COMPILER=${FORTRAN_COMPILER}")
run_step("consumer build" ${CMAKE_COMMAND} --build "${WORK_DIR}/cmake")
run_step("cmake app" "${WORK_DIR}/cmake/app")
if(NOT step_output MATCHES "consumer: OK")
  message(FATAL_ERROR "CMake app printed: ${step_output}")
endif()
message(STATUS "find_package app: ${step_output}")
