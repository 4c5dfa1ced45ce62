# Warnings for C++ sources only (CUDA sources, when present, get their own flags).
add_library(volador_warnings INTERFACE)
target_compile_options(volador_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)
