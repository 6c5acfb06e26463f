#!/bin/bash
# bench/dispatch.sh - what the per-launch choice of a shape-dispatched
# kernel costs on the host, against the same launcher without it.
#
# bench/dispatch/launch-bench.cu launches an annotated kernel in a loop,
# with arguments that change at every launch.  It is compiled by astra-cc
# from a cache holding, for the kernel's key:
#   single  one variant (v_vec.cu / r_warp.cu): the launcher as before
#           shape dispatch, which launches that variant directly
#   set     a variant set (silu: two variants and the original, chosen by
#           the nearest of six measured shapes in (t, d) log space, one
#           log() per parameter; rowsum: two variants and the original by
#           rows, thresholds): the same launcher with the choice
#   plain   plain nvcc: the launch as the user wrote it
# and linked with bench/dispatch/launch-shim.cpp, which ends each launch in
# the host (no GPU, no driver): what is timed is the host code between the
# call and the driver, where the choice sits, as the thread's CPU time (on
# a shared machine the wall clock counts the waits for a core too; it is
# recorded beside).  Runs are interleaved; each figure is the median of
# RUNS runs of N launches.  The target (issue 16):
# the choice adds less than 0.1 us per launch.
#
# Usage: bench/dispatch.sh [OUT.json]   (from a built tree; builds
# testsuite/helpers/put-variant if needed; RUNS, N, NVCC)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${builddir:-$top}
astra=$build/astra-cc/astra-cc
put=$build/testsuite/helpers/put-variant
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=${1:-$build/bench/out/dispatch.json}
runs=${RUNS:-9}
n=${N:-2000000}
src=$top/bench/dispatch
[ -x "$put" ] || make -C "$build" testsuite/helpers/put-variant > /dev/null
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$src/launch-bench.cu" .
g++ -O2 -I"$(dirname "$nvcc")/../include" -c "$src/launch-shim.cpp" -o shim.o
flags=(-O3 -std=c++17 -arch=sm_90)

keys() { # KERNEL: its sm_90 key for these flags
	"$astra" --list-kernels launch-bench.cu "${flags[@]}" |
		awk -v k="$1" '/: kernel /{n=$3} /^  key sm_90:/{ if (n == k) print $3 }'
}

make_prog() { # NAME: compile with the current cache (or plain nvcc) and link with the shim
	if [ "$1" = plain ]; then
		"$nvcc" "${flags[@]}" -c launch-bench.cu -o "$1.o"
	else
		"$astra" "${flags[@]}" -c launch-bench.cu -o "$1.o"
	fi
	"$nvcc" "${flags[@]}" -cudart shared "$1.o" shim.o -o "$1" -ldl
}

silu=$(keys silu)
rowsum=$(keys rowsum)
[ ${#silu} = 32 ] && [ ${#rowsum} = 32 ] || { echo "dispatch.sh: no keys from --list-kernels" >&2; exit 1; }

export ASTRA_CC_DIR=$work/cache-single
"$put" "$ASTRA_CC_DIR" "$silu" 90 silu "$src/v_vec.cu" > /dev/null
"$put" "$ASTRA_CC_DIR" "$rowsum" 90 rowsum "$src/r_warp.cu" > /dev/null
make_prog single
export ASTRA_CC_DIR=$work/cache-set
"$put" "$ASTRA_CC_DIR" "$silu" 90 silu --set t,d "$src/v_vec.cu" "$src/v_fast.cu" -- \
	2048,14336=1 128,11008=1 16,4096=2 7,5120=2 1,4096=0 3,1001=0 > /dev/null
"$put" "$ASTRA_CC_DIR" "$rowsum" 90 rowsum --set rows,cols "$src/r_warp.cu" "$src/r_block.cu" -- \
	1,4096=0 8,4096=0 64,4096=1 512,4096=1 4096,4096=2 65536,4096=2 > /dev/null
make_prog set
make_prog plain
# The substitutions took place: the single variant, and every variant of the sets.
for f in single:__astra_v_silu single:__astra_v_rowsum set:__astra_v1_silu set:__astra_v2_silu \
	set:__astra_v1_rowsum set:__astra_v2_rowsum; do
	nm -C "${f%%:*}" | grep -q "${f#*:}" || { echo "dispatch.sh: ${f#*:} is not in ${f%%:*}" >&2; exit 1; }
done

export LD_LIBRARY_PATH=$(dirname "$nvcc")/../lib64:${LD_LIBRARY_PATH:-} SHIM_QUIET=1
: > samples.txt
for r in $(seq "$runs"); do
	for k in silu rowsum; do
		for p in plain single set; do
			echo "$k $p $(./$p $k "$n" 2> shim.err)" >> samples.txt
			grep -q "^shim: $n launches" shim.err || { echo "dispatch.sh: the shim saw $(cat shim.err)" >&2; exit 1; }
		done
	done
done

commit=${ASTRA_COMMIT:-$(cd "$top" && git rev-parse --short HEAD 2>/dev/null || echo unknown)}
python3 - "$out" "$commit" "$n" "$runs" "$("$nvcc" --version | sed -n 's/.*, V\([0-9.]*\)$/\1/p')" \
	"$(g++ --version | head -n1)" samples.txt <<'EOP'
import json, statistics, sys, platform
out, commit, n, runs, nvcc, gxx, samples = sys.argv[1:]
s, wall = {}, {}
for line in open(samples):
    k, p, v, w = line.split()
    s.setdefault(k, {}).setdefault(p, []).append(float(v))
    wall.setdefault(k, {}).setdefault(p, []).append(float(w))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
res = {"what": "host-side cost of the per-launch choice of a shape-dispatched kernel (bench/dispatch.sh)",
       "measure": "thread CPU time per launch (CLOCK_THREAD_CPUTIME_ID); wall clock beside",
       "load_average": open("/proc/loadavg").read().split()[:3],
       "cpu": cpu, "nvcc": nvcc, "host_compiler": gxx, "commit": commit, "launches_per_run": int(n),
       "runs": int(runs), "target_added_ns": 100, "kernels": {}}
for k, ps in s.items():
    med = {p: statistics.median(v) for p, v in ps.items()}
    res["kernels"][k] = {
        "choice": "nearest of 6 measured shapes in log(t), log(d)" if k == "silu" else "thresholds on rows (6 measured shapes)",
        "ns_per_launch_median": med, "ns_per_launch_samples": ps,
        "wall_ns_per_launch_median": {p: statistics.median(v) for p, v in wall[k].items()},
        "added_by_choice_ns": med["set"] - med["single"],
        "launcher_vs_plain_ns": med["single"] - med["plain"]}
json.dump(res, open(out, "w"), indent=1)
for k, r in res["kernels"].items():
    m = r["ns_per_launch_median"]
    print("%-7s plain %6.1f ns  one variant %6.1f ns  variant set %6.1f ns  -> the choice adds %5.1f ns per launch (target < 100)"
          % (k, m["plain"], m["single"], m["set"], r["added_by_choice_ns"]))
EOP
echo "results: $out"
