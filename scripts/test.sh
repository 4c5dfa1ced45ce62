#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (CTest).
source "$(dirname "$0")/common.sh"

install_missing_packages
build_volador
cd "$BUILD_DIR"
ctest --output-on-failure --parallel "$(nproc)" --timeout 300
