# weir_add_module(NAME [DEPS module ...] [LIBS external ...])
#
# Sources are src/NAME/*.cc; files ending in _test.cc form the module's GoogleTest binary, files
# ending in _main.cc or _fuzz.cc are left out (tools and fuzz targets build them).
#
# One static library per folder under src/, named weir_<NAME>. A module sees only its own headers and
# those of the modules it declares (transitively): its include path is a folder of symlinks made at
# configure time, so `#include "other/x.h"` of an undeclared module fails to compile (like velox's
# velox_add_library / redpanda's v_library, but enforced).
function(weir_add_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;LIBS" ${ARGN})
  file(GLOB all_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  set(ARG_SOURCES)
  set(ARG_TESTS)
  foreach(f ${all_sources})
    if(f MATCHES "_test\\.cc$")
      list(APPEND ARG_TESTS ${f})
    elseif(NOT f MATCHES "_(main|fuzz)\\.cc$")
      list(APPEND ARG_SOURCES ${f})
    endif()
  endforeach()
  set(closure ${name})
  foreach(dep ${ARG_DEPS})
    get_property(dep_closure GLOBAL PROPERTY WEIR_MODULE_CLOSURE_${dep})
    if(NOT dep_closure)
      message(FATAL_ERROR "module ${name} depends on ${dep}, which is not defined yet (order in src/CMakeLists.txt)")
    endif()
    list(APPEND closure ${dep_closure})
  endforeach()
  list(REMOVE_DUPLICATES closure)
  set_property(GLOBAL PROPERTY WEIR_MODULE_CLOSURE_${name} ${closure})

  set(inc ${CMAKE_BINARY_DIR}/module_include/${name})
  file(REMOVE_RECURSE ${inc})
  file(MAKE_DIRECTORY ${inc})
  foreach(m ${closure})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${m} ${inc}/${m} SYMBOLIC)
  endforeach()

  if(NOT ARG_SOURCES)  # a module whose first files are not written yet
    set(ARG_SOURCES ${CMAKE_BINARY_DIR}/module_include/empty.cc)
    file(WRITE ${ARG_SOURCES} "")
  endif()
  add_library(weir_${name} STATIC ${ARG_SOURCES})
  target_include_directories(weir_${name} PUBLIC ${inc})
  set(dep_targets)
  foreach(dep ${ARG_DEPS})
    list(APPEND dep_targets weir_${dep})
  endforeach()
  target_link_libraries(weir_${name} PUBLIC ${dep_targets} ${ARG_LIBS})

  if(ARG_TESTS AND WEIR_BUILD_TESTS)
    add_executable(weir_${name}_test ${ARG_TESTS})
    target_link_libraries(weir_${name}_test PRIVATE weir_${name} GTest::gtest GTest::gmock GTest::gtest_main)
    gtest_discover_tests(weir_${name}_test DISCOVERY_MODE PRE_TEST
      PROPERTIES ENVIRONMENT "WEIR_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  endif()
endfunction()
