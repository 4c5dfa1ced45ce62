# volador_add_test(NAME SOURCES... LIBS... [RESOURCE_LOCK LOCK]): a Catch2 test
# executable whose test cases are registered one by one with CTest; tests
# sharing a RESOURCE_LOCK never run at the same time.
include(CTest)
include(Catch)

add_library(volador_catch_main STATIC "${CMAKE_SOURCE_DIR}/tests/support/catch_main.cpp")
target_link_libraries(volador_catch_main PUBLIC Catch2::Catch2)

function(volador_add_test name)
  cmake_parse_arguments(ARG "" "RESOURCE_LOCK" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE volador_catch_main volador_warnings ${ARG_LIBS})
  target_compile_definitions(${name} PRIVATE
    VOLADOR_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  # --warn NoTests: a CTest entry whose filter matches no test case fails
  # (CTest splits names at ';', which would otherwise pass silently).
  set(properties TIMEOUT 120)
  if(ARG_RESOURCE_LOCK)
    list(APPEND properties RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
  endif()
  catch_discover_tests(${name} EXTRA_ARGS --warn NoTests PROPERTIES ${properties})
endfunction()
