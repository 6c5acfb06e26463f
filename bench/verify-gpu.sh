#!/bin/sh
# verify-gpu.sh - the verifier's batch for a GPU host (issue 5).
#
#   bench/verify-gpu.sh [RESULTS_DIR]          (from a built tree)
#
# 1. The adversarial suite: testsuite/cases/verify/*-gpu (every wrong
#    candidate rejected for its reason, every correct rewrite accepted) and
#    the benchmark references, through the test runner.
# 2. The timing protocol's own checks, on bench/verify/copy.cu (a 512 MB
#    memory-bound copy), from ONE compiled test program:
#      self   the kernel timed against itself, 20 runs: never "faster";
#      half   a variant doing half the work (timed only), 20 runs: 2x
#             within 10 %;
#      copy   the measured device-to-device copy ceiling: 2.6-3.35 TB/s on
#             an H100 SXM (read + write), else 60-100 % of the memory's
#             theoretical peak.
# Writes RESULTS_DIR/verify-gpu-<device>-<utc date>.json (default
# bench/results) with the device, driver, nvcc version and git commit, and
# prints a short table last.  Exit 0 when every check passed.
# Environment: builddir (default: the source tree), ASTRA_CC, NVCC.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
builddir=${builddir:-$root}
ASTRA_CC=${ASTRA_CC:-$builddir/astra-cc/astra-cc}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
results=${1:-$here/results}
runs=20
work=$(mktemp -d "${TMPDIR:-/tmp}/astra-verify-gpu-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$results"
export ASTRA_CC NVCC
# A private cache: the ceilings are measured afresh.
export ASTRA_CC_DIR="$work/cache"

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)
nvccv=$("$NVCC" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && ! git -C "$root" diff --quiet HEAD 2>/dev/null; then
	commit=$commit-dirty
fi
start=$(date +%s)

# ------------------------------------------------------------ 1. the suite
echo "== the adversarial suite (make check-gpu, verify cases)"
srcdir=$root builddir=$builddir "$root/testsuite/lib/run-tests" --gpu-only verify/ > "$work/suite.txt" 2>&1
suite_rc=$?
cat "$work/suite.txt"
suite_summary=$(tail -n1 "$work/suite.txt")

# ------------------------------------------------------------ 2. timing
echo "== timing checks (bench/verify/copy.cu)"
"$ASTRA_CC" --verify "$here/verify/copy.cu" --kernel copy_scale \
	--candidate "$here/verify/self.cu" --candidate "$here/verify/half.cu" \
	--timing-only --keep-workdir --json -arch=sm_90 > "$work/verify.json" 2> "$work/verify.err"
wd=$(sed -n 's/.*"workdir":[[:space:]]*"\([^"]*\)".*/\1/p' "$work/verify.json")
prog=$wd/astra-test
timing_ok=1
if [ ! -x "$prog" ]; then
	echo "the timing program was not built:"; cat "$work/verify.err" "$work/verify.json"
	timing_ok=0
fi
: > "$work/runs.txt"
r=1
while [ $timing_ok = 1 ] && [ $r -le $runs ]; do
	"$prog" --phases timing --seed $r > "$work/run$r.jsonl" 2>> "$work/verify.err"
	"$ASTRA_CC" --judge-timing "$work/run$r.jsonl" --json |
		tr '{' '\n' | sed -n 's/.*"version": \([0-9]*\).*"baseline_us": \([0-9.]*\).*"median_us": \([0-9.]*\).*"speedup": \([0-9.]*\).*"verdict": "\([a-z]*\)".*/\1 \2 \3 \4 \5/p' |
		sed "s/^/$r /" >> "$work/runs.txt"
	r=$((r + 1))
done
[ $timing_ok = 1 ] && "$prog" --ceilings > "$work/ceilings.jsonl" 2>> "$work/verify.err"
[ -n "$wd" ] && rm -rf "$wd"

# run version baseline_us median_us speedup verdict
self_not_faster=$(awk '$2 == 1 && $6 != "faster"' "$work/runs.txt" | wc -l)
self_slower=$(awk '$2 == 1 && $6 == "slower"' "$work/runs.txt" | wc -l)
self_n=$(awk '$2 == 1' "$work/runs.txt" | wc -l)
half_in=$(awk '$2 == 2 && $5 >= 1.8 && $5 <= 2.2' "$work/runs.txt" | wc -l)
half_n=$(awk '$2 == 2' "$work/runs.txt" | wc -l)
stats() { awk -v v="$1" '$2 == v { print $5 }' "$work/runs.txt" | sort -n |
	awk '{ a[NR] = $1 } END { if (NR) printf "%.3f %.3f %.3f", a[1], a[int((NR + 1) / 2)], a[NR]; else print "0 0 0" }'; }
self_stats=$(stats 1)
half_stats=$(stats 2)
base_us=$(awk '$2 == 1 { print $3 }' "$work/runs.txt" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }')
copy=$(sed -n 's/.*"copy_gbps":\([0-9.e+]*\).*/\1/p' "$work/ceilings.jsonl" 2>/dev/null | head -n1)
copy_med=$(sed -n 's/.*"copy_gbps_median":\([0-9.e+]*\).*/\1/p' "$work/ceilings.jsonl" 2>/dev/null | head -n1)
fma=$(sed -n 's/.*"fma_gflops":\([0-9.e+]*\).*/\1/p' "$work/ceilings.jsonl" 2>/dev/null | head -n1)
peak=$(sed -n 's/.*"peak_gbps":\([0-9.e+]*\).*/\1/p' "$work/ceilings.jsonl" 2>/dev/null | head -n1)
copy=${copy:-0}; copy_med=${copy_med:-0}; fma=${fma:-0}; peak=${peak:-0}
case "$device" in
*H100*HBM3*|*H100*SXM*) lo=2600; hi=3350; range_note="H100 SXM: 2.6-3.35 TB/s" ;;
*) lo=$(awk -v p="$peak" 'BEGIN { print 0.6 * p }'); hi=$peak; range_note="60-100% of the theoretical peak $peak GB/s" ;;
esac
copy_ok=$(awk -v c="$copy" -v lo="$lo" -v hi="$hi" 'BEGIN { print (c >= lo && c <= hi && c > 0) ? 1 : 0 }')
self_ok=$([ "$self_n" = $runs ] && [ "$self_not_faster" = $runs ] && echo 1 || echo 0)
half_ok=$([ "$half_n" = $runs ] && [ "$half_in" = $runs ] && echo 1 || echo 0)
# Skipped GPU cases are not a pass.
suite_ok=$([ $suite_rc = 0 ] && ! grep -q 'skipped: no GPU\|skipped: needs' "$work/suite.txt" && echo 1 || echo 0)
elapsed=$(( $(date +%s) - start ))

name=$(echo "${device:-gpu}" | tr -c 'A-Za-z0-9\n' '-' | sed 's/--*/-/g; s/-$//')
out=$results/verify-gpu-$name-$(date -u +%Y%m%dT%H%M%SZ).json
{
	echo "{"
	echo "  \"what\": \"astra-cc verifier GPU batch (bench/verify-gpu.sh)\","
	echo "  \"device\": \"$device\", \"driver\": \"$driver\", \"nvcc\": \"$nvccv\", \"commit\": \"$commit\","
	echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"seconds\": $elapsed,"
	echo "  \"suite\": { \"ok\": $([ $suite_ok = 1 ] && echo true || echo false), \"summary\": \"$suite_summary\", \"cases\": ["
	grep -E '^(PASS|FAIL|SKIP) ' "$work/suite.txt" | sed 's/"/\\"/g; s/^/    "/; s/$/",/' | sed '$ s/,$//'
	echo "  ] },"
	echo "  \"timing\": {"
	echo "    \"kernel\": \"bench/verify/copy.cu (256 MB read + 256 MB written per launch)\", \"runs\": $runs, \"baseline_median_us\": $base_us,"
	echo "    \"self\": { \"ok\": $([ $self_ok = 1 ] && echo true || echo false), \"not_faster\": $self_not_faster, \"slower\": $self_slower, \"speedup_min_median_max\": [$(echo $self_stats | tr ' ' ',')] },"
	echo "    \"half_work\": { \"ok\": $([ $half_ok = 1 ] && echo true || echo false), \"within_10_percent_of_2x\": $half_in, \"speedup_min_median_max\": [$(echo $half_stats | tr ' ' ',')] },"
	echo "    \"copy_ceiling\": { \"ok\": $([ $copy_ok = 1 ] && echo true || echo false), \"gbps_best\": $copy, \"gbps_median\": $copy_med, \"expected\": \"$range_note\", \"fma_gflops\": $fma },"
	echo "    \"runs_detail\": ["
	awk '{ printf "      {\"run\": %d, \"version\": \"%s\", \"baseline_us\": %s, \"median_us\": %s, \"speedup\": %s, \"verdict\": \"%s\"},\n", $1, $2 == 1 ? "self" : "half", $3, $4, $5, $6 }' "$work/runs.txt" | sed '$ s/,$//'
	echo "    ]"
	echo "  }"
	echo "}"
} > "$out"
# The full reports of the suite's runs, for the record.
for d in "$builddir"/testsuite/scratch/verify/*-gpu; do
	[ -d "$d" ] || continue
	echo "===== ${d##*/}"
	cat "$d/.actual.out" "$d/.actual.err" 2>/dev/null
done > "${out%.json}.txt"
cat "$work/verify.err" "$work/verify.json" >> "${out%.json}.txt" 2>/dev/null

pf() { [ "$1" = 1 ] && echo PASS || echo FAIL; }
echo
echo "device: ${device:-?}  driver: ${driver:-?}  nvcc: ${nvccv:-?}  commit: $commit  (${elapsed} s)"
printf '| %-42s | %-40s | %s |\n' "check" "measured" "result"
printf '| %-42s | %-40s | %s |\n' "adversarial suite (verify/*-gpu cases)" "$suite_summary" "$(pf $suite_ok)"
printf '| %-42s | %-40s | %s |\n' "self vs self: never faster ($runs runs)" "$self_not_faster/$self_n not faster; speedup $self_stats" "$(pf $self_ok)"
printf '| %-42s | %-40s | %s |\n' "half the work: 2x +-10% ($runs runs)" "$half_in/$half_n within; speedup $half_stats" "$(pf $half_ok)"
printf '| %-42s | %-40s | %s |\n' "copy ceiling ($range_note)" "$copy GB/s (median $copy_med)" "$(pf $copy_ok)"
echo "data: $out (reports: ${out%.json}.txt)"
[ $suite_ok = 1 ] && [ $self_ok = 1 ] && [ $half_ok = 1 ] && [ $copy_ok = 1 ]
