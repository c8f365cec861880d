# The decomposition (src/decomp): white-box tests of CartGrid.
pvec_add_test(decomp_cartesian_grid SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cartesian_grid.cpp
              LABELS decomp)
target_include_directories(decomp_cartesian_grid PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                         ${CMAKE_CURRENT_LIST_DIR})
