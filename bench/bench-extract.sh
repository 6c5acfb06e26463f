#!/bin/sh
# bench-extract.sh - time extraction and the kernel key on an annotated
# 2,000-line TU (the target is <= 30 ms).  Run from the build directory
# after `make bench/bench-extract`:
#
#   sh bench/bench-extract.sh [RUNS]
#
# Prints the in-process figures (median and minimum of RUNS) from
# bench-extract, then the wall time of a whole `astra-cc --list-kernels`
# process (which adds process start-up and loading libclang).
set -e
runs=${1:-50}
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
tu=${TMPDIR:-/tmp}/astra-bench-tu.$$.cu
trap 'rm -f "$tu"' EXIT

"$srcdir/bench/gen-tu2000" "$tu"

echo "TU: $(wc -l < "$tu") lines, $(grep -c '^#pragma astra launch' "$tu") annotated kernels"
./bench/bench-extract "$tu" "$runs" -arch=sm_90
start=$(date +%s%N)
n=0
while [ $n -lt 10 ]; do
	ASTRA_CC_DIR=${TMPDIR:-/tmp}/astra-bench-cache.$$ ./astra-cc/astra-cc --list-kernels "$tu" -arch=sm_90 > /dev/null
	n=$((n + 1))
done
end=$(date +%s%N)
echo "whole astra-cc --list-kernels process: $(( (end - start) / 10000000 )) ms (mean of 10, including start-up and the nvcc --version memo)"
rm -rf "${TMPDIR:-/tmp}/astra-bench-cache.$$"
