# Warnings for C++ sources only (CUDA sources, when present, get their own flags).
# Records are built with designated initializers naming only the fields that
# differ from their schema defaults, so a missing initializer is not a warning.
add_library(volador_warnings INTERFACE)
target_compile_options(volador_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter -Wno-missing-field-initializers>)
