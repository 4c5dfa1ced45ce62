#!/usr/bin/env bash
# The checks issue 11 asks for on a GPU, in one run (see bench/README.md, "GPU checks"):
#
#   bench/gpu_checks.sh KIT OUT
#
# Run from the repository root on a machine with a CUDA GPU. KIT holds what a
# build with NCCL made (collective_tests, volador-allreduce-bench,
# nccl-direct-allreduce-bench); the Python parts run from this checkout under
# $PYTHON (default python3), which must have torch. Results go to the folder OUT:
#   gpu.txt                 the GPU, driver, torch and NCCL versions
#   nccl_tests.txt          the NCCL and device-group tests on device buffers
#   nccl-results.txt        bench/allreduce's volador-nccl and nccl-direct rows
#   python_cuda.txt         the Python trial tests with the model on the GPU
#   training-results.txt    bench/training on CUDA with AMP against plain PyTorch
# A step that fails is reported and the next one still runs; the exit status
# counts the failed steps.
set -uo pipefail
kit=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
failed=0
python=${PYTHON:-python3}  # the interpreter with torch

step() {  # step NAME COMMAND...: runs the command, counting a failure
  local name=$1 status=0
  shift
  echo "== $name" >&2
  "$@" || status=$?
  [[ $status -eq 0 ]] || { echo "gpu_checks: $name failed (exit $status)" >&2; failed=$((failed + 1)); }
}

# NCCL and the CUDA runtime: the loader's, else pip's nvidia packages, else the toolkit's.
for lib in libnccl.so.2 libcudart.so.13; do
  ldconfig -p | grep -q "$lib" && continue
  for dir in $(python3 -c 'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null | sed 's|$|/*/lib|') \
             /usr/local/cuda/lib64; do
    for found in $dir/$lib; do
      [[ -e "$found" ]] && export LD_LIBRARY_PATH="$(dirname "$found")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    done
  done
done

{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
} >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

nccl_tests() { timeout 180 "$kit/collective_tests" '*nccl*' 2>&1 | tee "$out/nccl_tests.txt"; }
nccl_rows() {
  timeout 240 bench/allreduce/run_nccl.sh --bin-dir "$kit" --rounds 5 --ranks 1 --max-bytes 256M \
    --out "$out/nccl-results.txt"
}
python_cuda() {
  (cd python/tests && timeout 180 env PYTHONPATH=.. PYTHONDONTWRITEBYTECODE=1 "$python" -m unittest -v test_distributed) \
    2>&1 | tee "$out/python_cuda.txt"
}
training() {
  timeout 300 "$python" bench/training/bench_training.py --device cuda --amp on --out "$out/training-results.txt"
}

step "NCCL tests on device buffers" nccl_tests
step "NCCL rows of bench/allreduce" nccl_rows
step "Python trial tests on the GPU" python_cuda
step "MNIST PyTorchTrial on CUDA with AMP against plain PyTorch" training
exit "$failed"
