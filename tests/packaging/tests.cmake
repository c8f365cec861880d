# Packaging: install the built tree into a fresh prefix and build two outside programs
# against it, one through pkg-config and one through find_package(pvec); both must run.
set(_pkg ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME packaging_install
         COMMAND bash ${_pkg}/run_packaging_test.sh ${PROJECT_BINARY_DIR} ${_pkg}/consumer
                 ${CMAKE_CURRENT_BINARY_DIR}/packaging_work ${CMAKE_COMMAND} ${CMAKE_C_COMPILER}
                 $<CONFIG>)
# 77: pkg-config is missing on this machine (the find_package half still ran and passed).
set_tests_properties(packaging_install PROPERTIES LABELS packaging ENVIRONMENT "${PVEC_TEST_ENV}"
                                                  SKIP_RETURN_CODE 77 TIMEOUT 600)
unset(_pkg)
