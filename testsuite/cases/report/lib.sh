# lib.sh - shared by the report cases (sourced by their cmd files after
# testsuite/lib/testlib.sh).
#
# T drives the cache API (testsuite/helpers/cache-tool.c); D is the cache
# the runner gave this case.  fill_cache stores one entry of every kind
# the report must show, as warmup stores them (cache-tool put --evidence:
# per-shape timings, the evidence record, the original's text; see
# testsuite/helpers/evidence-fixture.c), plus an entry in the older form
# without the evidence record, and a corrupt one.

T="$builddir/testsuite/helpers/cache-tool"
D="$ASTRA_CC_DIR"
V="$srcdir/testsuite/verify"
[ -x "$T" ] || { echo "cache-tool is not built" >&2; exit 99; }

key() { printf '%032x' "$1"; }

# The definition of a kernel in a verifier-suite file (from its template or
# __global__ line to the end), and a right candidate without its header line.
original_of() { sed -n '/^\(template\|__global__\)/,$p' "$1"; }
variant_of() { grep -v '^// expect:' "$1"; }

# need_browser: PY (a python3 with html5lib) and chromium, or skip.
need_browser() {
	command -v chromium >/dev/null 2>&1 || skip "skipped: no chromium (Debian: apt-get install chromium)"
	PY=
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import html5lib' 2>/dev/null; then
			PY=$p
			break
		fi
	done
	[ -n "$PY" ] || skip "skipped: no python3 with html5lib (Debian: apt-get install python3-html5lib)"
	export PYTHONPATH="$srcdir/testsuite/lib${PYTHONPATH:+:$PYTHONPATH}"
}

# fill_cache: the entries below; their kernel names, one a line, in kernels.txt.
fill_cache() {
	original_of "$V/add_rmsnorm/kernel.cu" > add_rmsnorm.orig
	variant_of "$V/add_rmsnorm/right/vectorized.cu" > add_rmsnorm.var
	original_of "$V/row_softmax/kernel.cu" > row_softmax.orig
	variant_of "$V/row_softmax/right/warp_per_row.cu" > row_softmax.var
	original_of "$V/scale_bias/kernel.cu" > scale_bias.orig
	variant_of "$V/scale_bias/right/vectorized.cu" > scale_bias.var
	cat > transcript.json <<'J'
[{"purpose": "plan", "attempt": 1, "url": "http://127.0.0.1:9/v1/chat/completions",
  "headers": ["Content-Type: application/json", "Authorization: Bearer [REDACTED]"],
  "request": {"model": "gpt-test", "messages": [
    {"role": "system", "content": "You optimize CUDA kernels."},
    {"role": "user", "content": "Make scale_bias faster: it moves 8 bytes per element."}]},
  "status": 200, "outcome": "ok", "seconds": 1.5, "tokens_in": 812, "tokens_out": 96,
  "response": {"choices": [{"message": {"role": "assistant", "content": "Use 128-bit loads: float4."}}]}}]
J
	{
		"$T" put "$D" "$(key 1)" 90 --evidence --kernel add_rmsnorm --file kernels/add_rmsnorm.cu --line 21 \
			--original-file add_rmsnorm.orig --variant-file add_rmsnorm.var --speedup 2.4 \
			--origin "rules: warp-reduce,block-size=512,row-cache,fastmath,launch-bounds"
		"$T" put "$D" "$(key 1)" 80 --evidence --kernel add_rmsnorm --file kernels/add_rmsnorm.cu --line 21 \
			--original-file add_rmsnorm.orig --variant-file add_rmsnorm.var --speedup 1.9 \
			--device "NVIDIA A100-SXM4-80GB"
		"$T" put "$D" "$(key 2)" 90 --evidence --kernel row_softmax --file kernels/row_softmax.cu --line 17 \
			--original-file row_softmax.orig --variant-file row_softmax.var --speedup 30 \
			--origin "rules: warp-per-row,fastmath" --grid "(rows + 3) / 4" --block 128
		"$T" put "$D" "$(key 3)" 90 --evidence --kernel layernorm --file kernels/layernorm.cu --line 30 \
			--verdict no-faster-variant --original-file row_softmax.orig
		"$T" put "$D" "$(key 4)" 90 --kernel entropy --file kernels/entropy.cu --line 9 --verdict failed
		"$T" put "$D" "$(key 5)" 90 --kernel legacy_kernel --file kernels/old.cu --line 3 --speedup 1.3
		"$T" put "$D" "$(key 6)" 90 --evidence --kernel scale_bias --file kernels/scale_bias.cu --line 14 \
			--original-file scale_bias.orig --variant-file scale_bias.var --speedup 1.8 \
			--origin "llm: gpt-test" --model gpt-test --transcript transcript.json
		"$T" put "$D" "$(key 7)" 90 --kernel broken_entry
	} > /dev/null
	# The last one is damaged on disk: the report says so instead of failing.
	"$T" flip "$("$T" path "$D" "$(key 7)" 90)" 60 3 > /dev/null
	printf '%s\n' add_rmsnorm add_rmsnorm row_softmax layernorm entropy legacy_kernel scale_bias > kernels.txt
}
