#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (CTest).
#
# A test that fails is run once more (CTest's --repeat until-pass:2): the
# end-to-end tests run real processes on a shared 2-core machine, where a
# rare timing can fail one attempt. A test fails the suite only if both
# attempts fail; every failed attempt's output is printed where it happened
# and listed again at the end, so a flaky test stays visible to be fixed.
source "$(dirname "$0")/common.sh"

install_missing_packages
build_volador
cd "$BUILD_DIR"
set -o pipefail
status=0
ctest --output-on-failure --parallel "$(nproc)" --timeout 300 --repeat until-pass:2 2>&1 | tee ctest-output.log ||
  status=$?
if grep -qE '\*\*\*(Failed|Timeout|Exception)|\*\*\*Not Run' ctest-output.log; then
  echo
  echo "Failed attempts (a test passes only when its second attempt passed; see above for the output):"
  grep -E '\*\*\*(Failed|Timeout|Exception)|\*\*\*Not Run' ctest-output.log
fi
exit "$status"
