#!/bin/bash
# bench/subst.sh - what a cache-hit compile costs: substitute + compile.
#
# For a few translation units (the substitution tests' TU, three kernels of
# the benchmark suite with host code that launches them, the 2,000-line TU
# of bench/bench-extract.sh), with the
# hand-optimized reference (bench/reference/) or a test variant stored in
# the cache as the kernel's verified variant, commands are timed,
# interleaved (bench/runtimes.c):
#   A  plain nvcc on the original TU
#   B  astra-cc on the same command: a cache hit (extract with libclang, the
#      key, the lookup, the stored variant's check, rewrite, nvcc on the
#      rewritten TU, dependency file fixed)
#   C  plain nvcc on the rewritten TU that B compiles (saved by --save)
#   D  astra-cc --with-variant with a do-nothing "nvcc" and no -MD:
#      astra-cc's own work alone, measured apart because on a busy machine
#      the compiles' noise hides it
#   E  astra-cc on a real cache hit with a do-nothing nvcc in a
#      toolkit-shaped directory: D plus the header scan and the key (every
#      header the kernel can see, by content) and the lookup
# B/A is what a user sees (it includes compiling the variant and, for a
# variant with its own geometry, the launcher next to the original); B/C is
# astra-cc's overhead.  The target (issue 3): B within 5 % of A.
#
# Usage: bench/subst.sh [OUT.json]   (from a built tree: make check builds
# testsuite/helpers/put-variant; RUNS=N)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${builddir:-$top}
astra=$build/astra-cc/astra-cc
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=${1:-$build/bench/out/subst.json}
runs=${RUNS:-7}
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/runtimes" "$top/bench/runtimes.c"
printf 'int main(void){return 0;}\n' > "$work/fake.c"
cc -O2 -o "$work/fake-nvcc" "$work/fake.c"
# A do-nothing nvcc inside a toolkit-shaped directory (its include/ and
# targets/ are the real toolkit's), answering --version: astra-cc's whole
# hit path (header scan, key, lookup, check, rewrite) with no compile after.
cuda_root=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)
mkdir -p "$work/fakecuda/bin"
ln -s "$cuda_root/include" "$work/fakecuda/include"
ln -s "$cuda_root/targets" "$work/fakecuda/targets"
"$nvcc" --version > "$work/version.txt"
{
	printf '#include <stdio.h>\n#include <string.h>\nstatic const char v[] =\n'
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$work/version.txt"
	printf ';\nint main(int c, char **a) { for (int i = 1; i < c; i++) if (!strcmp(a[i], "--version")) { fputs(v, stdout); return 0; } return 0; }\n'
} > "$work/fakecuda.c"
cc -O2 -o "$work/fakecuda/bin/nvcc" "$work/fakecuda.c"
export ASTRA_CC_DIR=$work/cache

# Host code that launches each suite kernel the way a caller would.
cat > "$work/rmsnorm.host" <<'EOH'
void launch_rmsnorm(float *o, const float *x, const float *w, int rows, int cols, cudaStream_t s)
{
	rmsnorm<float><<<(rows + 127) / 128, 128, 0, s>>>(o, x, w, 1e-6f, rows, cols);
}
void launch_rmsnorm(__nv_bfloat16 *o, const __nv_bfloat16 *x, const __nv_bfloat16 *w, int rows, int cols,
		    cudaStream_t s)
{
	rmsnorm<<<(rows + 127) / 128, 128, 0, s>>>(o, x, w, 1e-6f, rows, cols);
}
EOH
cat > "$work/softmax.host" <<'EOH'
void launch_softmax(float *o, const float *x, int rows, int cols, cudaStream_t s)
{
	softmax<<<(rows + 127) / 128, 128, 0, s>>>(o, x, rows, cols);
}
EOH
cat > "$work/silu_and_mul.host" <<'EOH'
void launch_silu_and_mul(__half *o, const __half *in, int tokens, int d, cudaStream_t s)
{
	silu_and_mul<<<(tokens * d + 255) / 256, 256, 0, s>>>(o, in, tokens, d);
}
void launch_silu_and_mul(__nv_bfloat16 *o, const __nv_bfloat16 *in, int tokens, int d, cudaStream_t s)
{
	silu_and_mul<<<(tokens * d + 255) / 256, 256, 0, s>>>(o, in, tokens, d);
}
EOH

# script FILE CMD...: a shell script that execs CMD.
script() {
	local f=$1 a
	shift
	{
		printf '#!/bin/sh\nexec'
		for a in "$@"; do printf " '%s'" "$a"; done
		printf '\n'
	} > "$f"
	chmod +x "$f"
}

results=()
# bench_tu NAME DIR FILE KERNEL VARIANT FLAGS...: time A, B and C in DIR.
bench_tu() {
	local name=$1 dir=$2 file=$3 kernel=$4 variant=$5
	shift 5
	local flags=("$@") ab cb db a key
	rm -rf "$dir/saved" && mkdir -p "$dir/saved"
	(cd "$dir" && "$astra" --with-variant "$kernel=$variant" --save saved -- "$nvcc" -c "$file" "${flags[@]}" -o b.o) \
		2> "$dir/b.err" || { cat "$dir/b.err" >&2; exit 1; }
	if grep -q 'substitution failed' "$dir/b.err"; then
		cat "$dir/b.err" >&2
		exit 1
	fi
	cp "$dir/saved/$file" "$dir/rewritten.cu"
	# One script per command (runtimes splits its arguments at "--").
	# The variant as the kernel's verified, cached variant for sm_90.
	key=$(cd "$dir" && "$astra" --list-kernels "$file" "${flags[@]}" | sed -n 's/^  key sm_90: //p' | head -n 1)
	"$build/testsuite/helpers/put-variant" "$ASTRA_CC_DIR" "$key" 90 "$kernel" "$variant"
	script "$dir/a.sh" "$nvcc" -c "$file" "${flags[@]}" -o a.o
	script "$dir/b.sh" "$astra" "$nvcc" -c "$file" "${flags[@]}" -o b.o
	"$astra" -z > /dev/null
	(cd "$dir" && ./b.sh 2> /dev/null)
	"$astra" -s | grep -Eq '^substitutions +1$' || { echo "no cache hit for $name" >&2; "$astra" -s >&2; exit 1; }
	script "$dir/c.sh" "$nvcc" -c rewritten.cu "${flags[@]}" -o c.o
	cd "$dir"
	local noMD=()
	for a in "${flags[@]}"; do case $a in -MD|-MP|-MMD) ;; *) noMD+=("$a") ;; esac; done
	script "$dir/d0.sh" "$work/fake-nvcc" -c "$file" "${noMD[@]}" -o d.o
	script "$dir/d.sh" "$astra" --with-variant "$kernel=$variant" -- "$work/fake-nvcc" -c "$file" "${noMD[@]}" -o d.o
	ab=$("$work/runtimes" "$runs" -- ./a.sh -- ./b.sh)
	cb=$("$work/runtimes" "$runs" -- ./c.sh -- ./b.sh)
	db=$("$work/runtimes" $((runs * 5)) -- ./d0.sh -- ./d.sh)
	# E: a real cache hit with the do-nothing toolkit (the key is that nvcc's).
	key=$(ASTRA_CC_NVCC="$work/fakecuda/bin/nvcc" "$astra" --list-kernels "$file" "${noMD[@]}" | sed -n 's/^  key sm_90: //p' | head -n 1)
	"$build/testsuite/helpers/put-variant" "$ASTRA_CC_DIR" "$key" 90 "$kernel" "$variant"
	script "$dir/e0.sh" "$work/fakecuda/bin/nvcc" -c "$file" "${noMD[@]}" -o e.o
	script "$dir/e.sh" env ASTRA_CC_NVCC="$work/fakecuda/bin/nvcc" "$astra" -c "$file" "${noMD[@]}" -o e.o
	"$astra" -z > /dev/null
	./e.sh
	"$astra" -s | grep -Eq '^substitutions +1$' || { echo "no cache hit with the fake toolkit for $name" >&2; "$astra" -s >&2; exit 1; }
	eb=$("$work/runtimes" $((runs * 5)) -- ./e0.sh -- ./e.sh)
	cd - > /dev/null
	results+=("\"$name\": {\"plain_vs_substituted\": $ab, \"rewritten_plain_vs_substituted\": $cb, \"own_work_fake_nvcc\": $db, \"own_work_hit\": $eb}")
}

mkdir -p "$work/common"
cp -R "$top/testsuite/cases/subst/common/src/." "$work/common/"
bench_tu test-tu "$work/common" k.cu scale "$top/testsuite/cases/subst/common/v_geom.cu" \
	-Iinc -arch=sm_90 -O3 -MD -MP
# The same TU with a variant that keeps the kernel's geometry: substituted
# in place, no launcher, the original's device code not compiled for sm_90.
mkdir -p "$work/inplace"
cp -R "$top/testsuite/cases/subst/common/src/." "$work/inplace/"
bench_tu test-tu-inplace "$work/inplace" k.cu scale "$top/testsuite/cases/subst/common/v_inplace.cu" \
	-Iinc -arch=sm_90 -O3 -MD -MP
for k in rmsnorm softmax silu_and_mul; do
	mkdir -p "$work/$k"
	cat "$top/bench/kernels/$k.cu" "$work/$k.host" > "$work/$k/$k.cu"
	bench_tu "$k" "$work/$k" "$k.cu" "$k" "$top/bench/reference/$k.cu" -arch=sm_90 -O3 -std=c++17 -MD
done

# The 2,000-line TU of the extraction benchmark (bench/gen-tu2000: 40
# annotated kernels, not templates): one of them with a variant of its own
# geometry, two tiles per block.  A kernel that is not a template keeps its
# original beside the variant (another file may launch it).
mkdir -p "$work/tu2000"
"$top/bench/gen-tu2000" "$work/tu2000/tu.cu"
cat > "$work/tu2000-v0.cu" <<'EOV'
#pragma astra launch(grid=(n + 511) / 512, block=256)
__global__ void __launch_bounds__(BLOCK) kernel0(float *__restrict__ y, const float *__restrict__ x,
                                                float alpha, int n)
{
	__shared__ float tile[BLOCK];
	for (int t = 0; t < 2; t++) {
		int i = (blockIdx.x * 2 + t) * BLOCK + threadIdx.x;
		float acc = 0.0f;
		__syncthreads();
		tile[threadIdx.x] = i < n ? x[i] : 0.0f;
		__syncthreads();
#pragma unroll 4
		for (int j = 0; j < 16; j++)
			acc += op0(tile[(threadIdx.x + j) % BLOCK], alpha);
		if (i < n)
			y[i] = acc;
	}
}
EOV
bench_tu tu-2000 "$work/tu2000" tu.cu kernel0 "$work/tu2000-v0.cu" -arch=sm_90 -O3 -MD

# A TU that includes a large third-party header library through -isystem
# (Eigen, 9.7 MB of headers, ~690 reached): the key hashes every header it
# can see by content (issue 21), so this is where that costs most.
if [ -f /usr/include/eigen3/Eigen/Core ]; then
	mkdir -p "$work/eigen"
	cat > "$work/eigen/k.cu" <<'EOE'
#include <Eigen/Core>
#include <cstdio>

#pragma astra shapes(n=1048576) shapes(n=1000)
#pragma astra buffers(x[n])
#pragma astra outputs(x)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 2.0f * x[i];
}

float norm_of(const Eigen::Vector3f &v) { return v.norm(); }
void run(float *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); }
EOE
	bench_tu eigen-isystem "$work/eigen" k.cu scale "$top/testsuite/cases/subst/common/v_inplace.cu" \
		-isystem /usr/include/eigen3 -arch=sm_90 -O3 -MD -diag-suppress 20012,20015
else
	echo "subst.sh: no /usr/include/eigen3 (apt-get install libeigen3-dev): the -isystem TU is left out" >&2
fi

commit=$(cd "$top" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "{"
	echo "  \"benchmark\": \"subst\","
	echo "  \"commit\": \"$commit\","
	echo "  \"host\": \"$(uname -n)\","
	echo "  \"cpus\": $(nproc),"
	echo "  \"runs\": $runs,"
	echo "  \"nvcc\": \"$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')\","
	for ((i = 0; i < ${#results[@]}; i++)); do
		sep=,
		[ $i = $((${#results[@]} - 1)) ] && sep=
		echo "  ${results[$i]}$sep"
	done
	echo "}"
} > "$out"
cat "$out"
python3 - "$out" <<'EOP' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
print("%-14s %9s %12s %9s %7s %7s %10s %8s %10s %8s" % ("TU", "A nvcc", "B astra-cc", "C rewr.", "B/A", "B/C",
      "own work", "own/A", "hit work", "hit/A"))
for name, r in d.items():
    if not isinstance(r, dict):
        continue
    ab, cb, db, eb = (r["plain_vs_substituted"], r["rewritten_plain_vs_substituted"], r["own_work_fake_nvcc"],
                      r["own_work_hit"])
    print("%-14s %7.0fms %10.0fms %7.0fms %7.3f %7.3f %8.1fms %7.2f%% %8.1fms %7.2f%%" % (name, ab["a_median_ms"],
          ab["b_median_ms"], cb["a_median_ms"], ab["ratio"], cb["ratio"], db["median_diff_ms"],
          100.0 * db["median_diff_ms"] / ab["a_median_ms"], eb["median_diff_ms"],
          100.0 * eb["median_diff_ms"] / ab["a_median_ms"]))
EOP
