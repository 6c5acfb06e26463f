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

# 40 annotated kernels with their helpers and macros, host code that
# launches them, and plain host code up to 2,000 lines.
{
	echo '#include <cuda_runtime.h>'
	echo '#include <cstdio>'
	echo '#define BLOCK 256'
	echo '#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))'
	i=0
	while [ $i -lt 40 ]; do
		cat <<EOT
// Kernel $i: a scaled, clamped, accumulated map.
__device__ __forceinline__ float op$i(float a, float b)
{
	return CLAMP(a * b + $i.0f, -1e4f, 1e4f);
}

#pragma astra shapes(n=1 << 20) shapes(n=1000) shapes(n=7)
#pragma astra buffers(y[n], x[n]) outputs(y) scalars(alpha=0.5f)
#pragma astra launch(grid=(n + BLOCK - 1) / BLOCK, block=BLOCK) range(x: -1 .. 1)
__global__ void __launch_bounds__(BLOCK) kernel$i(float *__restrict__ y, const float *__restrict__ x,
                                                float alpha, int n)
{
	__shared__ float tile[BLOCK];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float acc = 0.0f;
	tile[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
#pragma unroll 4
	for (int j = 0; j < 16; j++)
		acc += op$i(tile[(threadIdx.x + j) % BLOCK], alpha);
	if (i < n)
		y[i] = acc;
}

EOT
		i=$((i + 1))
	done
	echo 'void launch_all(float *y, const float *x, int n, cudaStream_t s)'
	echo '{'
	i=0
	while [ $i -lt 40 ]; do
		echo "	kernel$i<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>(y, x, 0.5f, n);"
		i=$((i + 1))
	done
	echo '}'
} > "$tu"
lines=$(wc -l < "$tu")
i=0
while [ "$lines" -lt 2000 ]; do
	printf 'static int host_table_%d[4] = {1, 2, 3, 4}; // host data\n' "$i" >> "$tu"
	lines=$((lines + 1))
	i=$((i + 1))
done

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
