# Packaging: install the built tree into a fresh prefix and build two outside programs
# against it, one through pkg-config and one through find_package(pvec); both must run.
# With nvcc (the CUDA compiler of this build, or one on the PATH or in /usr/local/cuda, even
# when pvec itself is built without CUDA), a .cu program is also built through pkg-config.
set(_pkg ${CMAKE_CURRENT_LIST_DIR})
if(CMAKE_CUDA_COMPILER AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")
  set(PVEC_PACKAGING_NVCC "${CMAKE_CUDA_COMPILER}" CACHE FILEPATH "nvcc for packaging_install")
else()
  find_program(PVEC_PACKAGING_NVCC nvcc HINTS ENV CUDA_PATH ENV CUDA_HOME /usr/local/cuda
               PATH_SUFFIXES bin)
endif()
if(PVEC_PACKAGING_NVCC)
  set(_pkg_nvcc "${PVEC_PACKAGING_NVCC}")
else()
  set(_pkg_nvcc "")
  message(STATUS "pvec: packaging_install will skip its nvcc consumer (no nvcc found)")
endif()
add_test(NAME packaging_install
         COMMAND bash ${_pkg}/run_packaging_test.sh ${PROJECT_BINARY_DIR} ${_pkg}/consumer
                 ${CMAKE_CURRENT_BINARY_DIR}/packaging_work ${CMAKE_COMMAND} ${CMAKE_C_COMPILER}
                 "$<CONFIG>" "${_pkg_nvcc}" ${PVEC_HAVE_CUDA})
# 77: pkg-config is missing on this machine (the find_package half still ran and passed).
set_tests_properties(packaging_install PROPERTIES LABELS packaging ENVIRONMENT "${PVEC_TEST_ENV}"
                                                  SKIP_RETURN_CODE 77 TIMEOUT 600)
unset(_pkg)
unset(_pkg_nvcc)

# A machine without Catch2: the plain configure must succeed with the tests switched off and
# one warning saying what to install (Catch2 hidden with CMAKE_DISABLE_FIND_PACKAGE_Catch2).
add_test(NAME packaging_configure_without_catch2
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/configure_without_catch2
                 -DGENERATOR=${CMAKE_GENERATOR}
                 -P ${CMAKE_CURRENT_LIST_DIR}/configure_without_catch2.cmake)
set_tests_properties(packaging_configure_without_catch2 PROPERTIES LABELS packaging TIMEOUT 300)
