#!/bin/bash
# bench/passthrough.sh - what astra-cc costs where nothing is annotated.
#
#  1. Per invocation: astra-cc wrapping a do-nothing "nvcc" (so only
#     astra-cc's own work is timed: start, config, command-line model, the
#     scan for #pragma astra, exec) versus running that program directly.
#     Target: median overhead <= 2 ms.
#  2. A 20-file project built with `make -j2`, plain nvcc versus
#     NVCC=astra-cc, alternating.  Target: <= 1 % wall time.
#
# Usage: bench/passthrough.sh [OUT.json]   (from a configured build tree)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${builddir:-$top}
astra=$build/astra-cc/astra-cc
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=$(realpath -m "${1:-$build/bench/out/passthrough.json}")
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc -O2 -o "$work/runtimes" "$top/bench/runtimes.c"
# A stand-in for nvcc that does nothing: isolates astra-cc's own cost.
printf 'int main(void){return 0;}\n' > "$work/fake.c"
cc -O2 -o "$work/fake-nvcc" "$work/fake.c"
cp "$top/testsuite/cases/driver/0001-passthrough-fidelity/src/k.cu" "$work/k.cu"
mkdir -p "$work/inc" && echo '#define SCALE 2.0f' > "$work/inc/scale.cuh"
cd "$work"
export ASTRA_CC_NVCC=$work/fake-nvcc ASTRA_CC_DIR=$work/cache
one=$("$work/runtimes" 400 -- "$work/fake-nvcc" -c k.cu -o k.o -O3 -std=c++17 -Iinc -gencode arch=compute_90,code=sm_90 \
	-- "$astra" -c k.cu -o k.o -O3 -std=c++17 -Iinc -gencode arch=compute_90,code=sm_90)
unset ASTRA_CC_NVCC

# The 20-file project.
mkdir -p proj/src
for i in $(seq -w 1 20); do
	cat > proj/src/k$i.cu <<EOC
#include <cuda_runtime.h>
__global__ void k$i(float *x, const float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * $i.0f + y[i];
}
void launch_k$i(float *x, const float *y, int n) { k$i<<<(n + 255) / 256, 256>>>(x, y, n); }
EOC
done
cat > proj/Makefile <<'EOC'
NVCC ?= nvcc
SRCS = $(wildcard src/*.cu)
OBJS = $(SRCS:src/%.cu=obj/%.o)
all: $(OBJS)
obj/%.o: src/%.cu
	@mkdir -p obj
	$(NVCC) -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -MD -c $< -o $@
clean:
	rm -rf obj
EOC
proj_plain=$("$work/runtimes" ${PROJECT_RUNS:-5} -- sh -c "make -s -C proj clean && make -s -C proj -j2 NVCC='$nvcc'" \
	-- sh -c "make -s -C proj clean && make -s -C proj -j2 NVCC='$astra'")

commit=$(cd "$top" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
cat > "$out" <<EOJ
{
  "benchmark": "passthrough",
  "commit": "$commit",
  "host": "$(uname -n)",
  "cpus": $(nproc),
  "nvcc": "$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')",
  "per_invocation_fake_nvcc_vs_astra_cc": $one,
  "project_20_files_make_j2_nvcc_vs_astra_cc": $proj_plain
}
EOJ
cat "$out"
python3 - "$out" <<'EOP' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
one = d["per_invocation_fake_nvcc_vs_astra_cc"]; proj = d["project_20_files_make_j2_nvcc_vs_astra_cc"]
print("per invocation: astra-cc adds %.2f ms (median; fake nvcc %.2f ms, through astra-cc %.2f ms)" % (one["median_diff_ms"], one["a_median_ms"], one["b_median_ms"]))
print("20-file project, make -j2: nvcc %.0f ms, astra-cc %.0f ms, ratio %.4f" % (proj["a_median_ms"], proj["b_median_ms"], proj["ratio"]))
EOP
