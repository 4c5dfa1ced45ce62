# volador_add_test(NAME SOURCES... LIBS... [RESOURCE_LOCK LOCK]): a Catch2 test
# executable whose test cases are registered one by one with CTest; tests
# sharing a RESOURCE_LOCK never run at the same time.
include(CTest)
include(Catch)

add_library(volador_catch_main STATIC "${CMAKE_SOURCE_DIR}/tests/support/catch_main.cpp")
target_link_libraries(volador_catch_main PUBLIC Catch2::Catch2)

# Fails the configuration when a test case's name in `sources` holds a ';':
# CTest would split it into two tests that each fail (a name is the first
# string of TEST_CASE / TEST_CASE_METHOD).
function(volador_check_test_names sources)
  foreach(source IN LISTS sources)
    file(STRINGS "${CMAKE_CURRENT_SOURCE_DIR}/${source}" split_names REGEX "TEST_CASE[_A-Z]*\\([^\"]*\"[^\"]*;")
    if(split_names)
      message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR}/${source}: a TEST_CASE name holds a ';' (${split_names}); "
                          "CTest splits a name there into two failing tests: use another mark")
    endif()
  endforeach()
endfunction()

function(volador_add_test name)
  cmake_parse_arguments(ARG "" "RESOURCE_LOCK" "SOURCES;LIBS" ${ARGN})
  volador_check_test_names("${ARG_SOURCES}")
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE volador_catch_main volador_warnings ${ARG_LIBS})
  target_compile_definitions(${name} PRIVATE
    VOLADOR_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  # --warn NoTests: a CTest entry whose filter matches no test case fails
  # (CTest splits names at ';', which would otherwise pass silently; see
  # volador_check_test_names).
  set(properties TIMEOUT 120)
  if(ARG_RESOURCE_LOCK)
    list(APPEND properties RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
  endif()
  catch_discover_tests(${name} EXTRA_ARGS --warn NoTests PROPERTIES ${properties})
endfunction()
