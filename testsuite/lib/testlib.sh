# testlib.sh - helpers for case `cmd` scripts.  Source it:
#   . "$srcdir/testsuite/lib/testlib.sh"
#
# Every helper prints what went wrong to stderr and returns non-zero, so a
# cmd script written with `set -e` stops at the first broken expectation.

set -u

# Tools fetched by scripts/fetch-cuda-tools (cuobjdump, nvdisasm) when the
# local CUDA lacks them.
for _d in "$srcdir/.tools/cuda/bin" "$builddir/.tools/cuda/bin" "$(dirname "${NVCC:-/x/x}")"; do
	[ -d "$_d" ] && PATH=$PATH:$_d
done
export PATH

. "$srcdir/testsuite/lib/sanitizers.sh"

fail() { echo "FAILED: $*" >&2; exit 1; }
skip() { echo "$*" >&2; exit 77; }
# rotating_slice N ENVVAR: which of N slices this run takes, as "K WHY":
# from $ENVVAR when set (a number below N, or "all"), else from the commit
# (the first 7 hex digits of git rev-parse HEAD, mod N; without git, the
# UTC day).  A case that runs one slice of its work per run uses it, and
# says which (doc/testing.md, "Rotating slices").
rotating_slice() {
	local n=$1 var=$2 k seed
	k=${!var:-}
	if [ -n "$k" ]; then
		case $k in
		all) echo "all $var=all" ;;
		*[!0-9]*) echo "$var=$k: not a number or all" >&2; exit 99 ;;
		*) [ "$k" -lt "$n" ] || { echo "$var=$k: not below $n" >&2; exit 99; }
		   echo "$k $var=$k" ;;
		esac
		return
	fi
	if seed=$(git -C "$srcdir" rev-parse --short=12 HEAD 2> /dev/null) && [ -n "$seed" ]; then
		echo "$((16#${seed:0:7} % n)) commit $seed"
	else
		seed=$(( $(date -u +%s) / 86400 ))
		echo "$((seed % n)) UTC day $seed (no git)"
	fi
}
need_nvcc() { [ -n "${NVCC:-}" ] && [ -x "$NVCC" ] || skip "skipped: no nvcc"; }
have_cuobjdump() { command -v cuobjdump >/dev/null 2>&1 && command -v nvdisasm >/dev/null 2>&1; }

# sass_part [NAME]: guard a case's SASS assertions, `if sass_part; then ...`.
# The part (default name "sass") is reported by the runner as a test of its
# own (testsuite/lib/run-tests, "Parts"): without cuobjdump and nvdisasm it
# is a SKIP with the reason and this returns 1; with them it returns 0 and
# the part passes or fails with the case.  Never `if have_cuobjdump`: that
# drops the assertions silently and the case still passes.
sass_part() {
	local name=${1:-sass}
	if have_cuobjdump; then
		[ -n "${ASTRA_TEST_PARTS:-}" ] && echo "run $name" >> "$ASTRA_TEST_PARTS"
		return 0
	fi
	if [ -n "${ASTRA_TEST_PARTS:-}" ]; then
		echo "skip $name no cuobjdump/nvdisasm: SASS not compared (scripts/fetch-cuda-tools fetches them)" >> "$ASTRA_TEST_PARTS"
	else
		echo "sass_part: no cuobjdump/nvdisasm and no runner to report the skip" >&2
		exit 77
	fi
	return 1
}

# Remove what legitimately differs between two runs of nvcc: the names of
# its temporary files.
scrub() { sed -E 's/tmpxft_[0-9a-f]+_[0-9a-f]+/tmpxft_X/g; s#/tmp/[A-Za-z0-9._-]+#/tmp/X#g'; }

# nvcc_vs_astra ARGS... : run `$NVCC ARGS` in ./plain and `$ASTRA_CC ARGS`
# in ./astra (each a copy of ./src), then compare exit status, stdout,
# stderr and every dependency file byte for byte.
# Both run in a directory named `run` (then renamed) so that paths nvcc
# prints are the same.
in_run_dir() {
	local dest=$1 out=$2; shift 2
	rm -rf run "$dest"
	cp -R src run
	(cd run && "$@" > "../$out.out" 2> "../$out.err")
	local rc=$?
	mv run "$dest"
	return $rc
}

nvcc_vs_astra() {
	local rc_p rc_a
	in_run_dir plain plain "$NVCC" "$@" && rc_p=0 || rc_p=$?
	in_run_dir astra astra "$ASTRA_CC" "$@" && rc_a=0 || rc_a=$?
	compare_trees "$*" "$rc_p" "$rc_a"
}

# Same, with astra-cc as a launcher: astra-cc nvcc ARGS
launcher_vs_nvcc() {
	local rc_p rc_a
	in_run_dir plain plain "$NVCC" "$@" && rc_p=0 || rc_p=$?
	in_run_dir astra astra "$ASTRA_CC" "$NVCC" "$@" && rc_a=0 || rc_a=$?
	compare_trees "launcher: $*" "$rc_p" "$rc_a"
}

compare_trees() {
	local what=$1 rc_p=$2 rc_a=$3 f
	[ "$rc_p" = "$rc_a" ] || { echo "[$what] exit status: nvcc $rc_p, astra-cc $rc_a" >&2; return 1; }
	scrub < plain.out > plain.out.s; scrub < astra.out > astra.out.s
	scrub < plain.err > plain.err.s; scrub < astra.err > astra.err.s
	diff -u plain.out.s astra.out.s >&2 || { echo "[$what] stdout differs" >&2; return 1; }
	diff -u plain.err.s astra.err.s >&2 || { echo "[$what] stderr differs" >&2; return 1; }
	(cd plain && find . -type f | sort) > plain.files
	(cd astra && find . -type f | sort) > astra.files
	diff -u plain.files astra.files >&2 || { echo "[$what] different files produced" >&2; return 1; }
	for f in $(cd plain && find . -name '*.d' -type f); do
		cmp -s "plain/$f" "astra/$f" || { diff -u "plain/$f" "astra/$f" | head -20 >&2; echo "[$what] $f differs" >&2; return 1; }
	done
	if sass_part; then
		for f in $(cd plain && find . -name '*.o' -type f); do
			same_sass "plain/$f" "astra/$f" || { echo "[$what] SASS of $f differs" >&2; return 1; }
		done
	fi
	return 0
}

# sass FILE: the SASS of an object, executable or library (all archs).
sass() { cuobjdump -sass "$1" 2>&1 | scrub; }
same_sass() { [ "$(sass "$1")" = "$(sass "$2")" ]; }

# sass_of_function FILE NAME: the SASS of the functions whose (mangled)
# name contains NAME, e.g. "5scale" for scale(float *, int).
sass_of_function() {
	cuobjdump -sass "$1" 2>&1 | scrub | awk -v n="$2" '/Function : /{on = index($0, n) > 0} on'
}
