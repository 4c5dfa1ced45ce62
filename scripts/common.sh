# Shared by demo.sh, test.sh and the benchmarks' run.sh: install what is
# missing (Debian 12), then configure and build. Sourced, not run.
set -euo pipefail

VOLADOR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${VOLADOR_BUILD_DIR:-$VOLADOR_ROOT/build}"
# ccache hits across clones in different folders (CI builds a fresh clone).
export CCACHE_BASEDIR="$VOLADOR_ROOT" CCACHE_NOHASHDIR=true

DEB_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libcaf-dev capnproto libcapnp-dev libssl-dev libyaml-cpp-dev librocksdb-dev libspdlog-dev
  catch2 nlohmann-json3-dev libcli11-dev libarchive-dev libsodium-dev libcpp-httplib-dev
  iproute2 openssl bubblewrap
  python3 python3-dev pybind11-dev python3-numpy python3-torch python3-sklearn
  chromium
)

# Installs those of the given Debian packages that are missing (apt, as root or with sudo).
install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing_packages() {
  install_packages "${DEB_PACKAGES[@]}"
  install_web_packages
  install_container_packages
}

# Optional: podman (and runc, which it needs on hosts whose cgroups are
# hybrid, where crun refuses to run; catatonit, the init its --init runs,
# only recommended by Debian's podman) for environment.image and its test.
# Without them agents run no images and that test is skipped (it says so);
# a failed install stops nothing.
install_container_packages() {
  install_packages podman runc catatonit || echo "podman or runc could not be installed: environment.image is refused and its test skipped"
}

# The web UI's npm packages (web/package-lock.json), installed when
# web/node_modules is missing or older than the lockfile; node and npm come
# from Debian when absent. Without npm the UI and its browser test are left
# out (the build says so) and everything else goes on.
install_web_packages() {
  command -v npm >/dev/null || install_packages nodejs npm || true
  if ! command -v npm >/dev/null; then
    echo "npm not found: the web UI and its browser test are skipped"
    return 0
  fi
  local web="$VOLADOR_ROOT/web"
  if [ ! -f "$web/node_modules/.package-lock.json" ] || [ "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]; then
    (cd "$web" && npm ci --no-audit --no-fund --loglevel=error) || echo "npm ci failed: the web UI and its browser test are skipped"
  fi
}

# Benchmarks: runs the calling script again ("$0" with the arguments given) in
# a session of its own and waits for it, so that it can raise its autogroup's
# priority (echo -19 >/proc/self/autogroup) without touching the caller's.
# Returns at once inside that session.
run_in_own_session() {
  if [[ -z "${VOLADOR_BENCH_SESSION:-}" ]]; then
    export VOLADOR_BENCH_SESSION=1
    exec setsid --wait "$0" "$@"
  fi
}

build_volador() {
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S "$VOLADOR_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  fi
  cmake --build "$BUILD_DIR" --parallel "$(nproc)"
}
