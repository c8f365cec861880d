# Tests of the header-only C++ layer (include/pvec.hpp, pvec_view.hpp, pvec_neighbors.hpp,
# pvec_neighbors_view.hpp).
set(_cpp ${CMAKE_CURRENT_LIST_DIR})
pvec_add_test(cpp_hpp
              SOURCES ${_cpp}/test_hpp_raii.cpp ${_cpp}/test_hpp_views.cpp ${_cpp}/test_hpp_neighbors.cpp
                      ${_cpp}/test_hpp_overlap.cpp
                      ${_cpp}/strict_header.cpp
              RANKS 1
              LABELS cpp)
# The header promises to compile warning-free under strict flags; this source holds it to that
# (the other sources keep the project defaults so that Catch2 itself cannot break the build).
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(${_cpp}/strict_header.cpp PROPERTIES
                              COMPILE_OPTIONS "-Wall;-Wextra;-Wshadow;-Wconversion;-pedantic;-Werror")
endif()
unset(_cpp)
