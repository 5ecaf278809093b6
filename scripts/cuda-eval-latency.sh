#!/usr/bin/env bash
# cuda-eval-latency.sh KGB: end-to-end latency of `kgb eval` for blas/saxpy's
# CUDA solution, five runs each of the full evaluation (nvcc, link, every
# correctness check, timing of both performance cases, cuBLAS baseline) and
# of the evaluation without its timing stage. Prints every run's phase times
# and the medians. Run from the repository root.
KGB=${1:?usage: cuda-eval-latency.sh path/to/kgb}
for mode in full no-time; do
  extra=()
  [ "$mode" = no-time ] && extra=(--no-time)
  times=()
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N)
    out=$("$KGB" eval blas/saxpy --platform cuda-sm90 --kernel benchmark/tasks/blas/saxpy/solutions/cuda.cu "${extra[@]}" 2>&1)
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    times+=("$ms")
    echo "$mode run $i: $ms ms, rc $rc; $(echo "$out" | grep -E '^(outcome|seconds):' | tr '\n' ' ')"
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "median wall ($mode): $(echo "$sorted" | sed -n 3p) ms (all: $(echo $sorted))"
done
