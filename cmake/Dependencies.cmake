# Every third-party dependency is found here, once, from Debian 12 packages.
find_package(Threads REQUIRED)
find_package(CAF REQUIRED)
find_package(CapnProto REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(RocksDB REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Catch2 2 REQUIRED)

# libsodium (libsodium-dev): Argon2id password hashes and random tokens (master/users).
find_package(PkgConfig REQUIRED)
pkg_check_modules(sodium REQUIRED IMPORTED_TARGET libsodium)
# cpp-httplib (libcpp-httplib-dev): the master's HTTP server (http/) and the API tests' client. A compiled
# library: its pkg-config flags (OpenSSL, zlib, brotli support) must reach every user, or it crashes.
pkg_check_modules(CPP_HTTPLIB REQUIRED IMPORTED_TARGET GLOBAL cpp-httplib)

# CUDA/NCCL are optional: collectives use them only when a toolkit is present.
include(CheckLanguage)
check_language(CUDA)
set(VOLADOR_HAVE_CUDA OFF)
if(CMAKE_CUDA_COMPILER)
  set(VOLADOR_HAVE_CUDA ON)
endif()
message(STATUS "volador: CUDA support ${VOLADOR_HAVE_CUDA}")

