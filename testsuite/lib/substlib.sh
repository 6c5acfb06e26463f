# substlib.sh - helpers for the substitution cases (testsuite/cases/subst).
# Source it after setting nothing:  . "$srcdir/testsuite/lib/substlib.sh"
. "$srcdir/testsuite/lib/testlib.sh"

# The command that compiles with a hand-written variant:
#   $WITH_VARIANT --with-variant NAME=FILE [--cc 90] -- NVCC ARGS...
WITH_VARIANT=${WITH_VARIANT:-$ASTRA_CC}

need_cuobjdump() {
	have_cuobjdump || skip "skipped: no cuobjdump/nvdisasm (scripts/fetch-cuda-tools fetches them)"
}

# compare_observable WHAT RC_PLAIN RC_ASTRA: exit status, stdout, stderr,
# the files produced and every dependency file, byte for byte, between
# ./plain and ./astra (the object code is compared separately).
compare_observable() {
	local what=$1 rc_p=$2 rc_a=$3 f
	[ "$rc_p" = "$rc_a" ] || { echo "[$what] exit status: nvcc $rc_p, substituted $rc_a" >&2; cat astra.err >&2; return 1; }
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
	return 0
}

# subst_vs_nvcc OPTIONS... -- NVCC-ARGS...: run `$NVCC ARGS` in ./plain and
# `$WITH_VARIANT OPTIONS -- $NVCC ARGS` in ./astra (each a copy of ./src,
# both run in a directory named run), then compare_observable.  Variant
# files in OPTIONS must be absolute paths.
subst_vs_nvcc() {
	local opts=() rc_p rc_a
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	in_run_dir plain plain "$NVCC" "$@" && rc_p=0 || rc_p=$?
	in_run_dir astra astra "$WITH_VARIANT" "${opts[@]}" -- "$NVCC" "$@" && rc_a=0 || rc_a=$?
	compare_observable "$*" "$rc_p" "$rc_a"
}

# fn_sass FILE FUNCTION [ARCH]: the SASS of one (mangled) function; fails
# when the function is not in FILE.
fn_sass() {
	local out
	out=$(cuobjdump -sass -fun "$2" ${3:+-arch "$3"} "$1" 2>&1 | grep -E '^[[:space:]]+/\*') || true
	[ -n "$out" ] || { echo "no SASS for $2${3:+ ($3)} in $1" >&2; return 1; }
	printf '%s\n' "$out"
}

# same_fn FILE1 FILE2 FUNCTION [ARCH]: the function's SASS is identical.
same_fn() {
	local a b
	a=$(fn_sass "$1" "$3" ${4:+"$4"}) || return 1
	b=$(fn_sass "$2" "$3" ${4:+"$4"}) || return 1
	[ "$a" = "$b" ] || { echo "SASS of $3${4:+ ($4)} differs between $1 and $2" >&2; diff <(echo "$a") <(echo "$b") | head -10 >&2; return 1; }
}

# differ_fn FILE1 FILE2 FUNCTION [ARCH]: the function exists in both and differs.
differ_fn() {
	local a b
	a=$(fn_sass "$1" "$3" ${4:+"$4"}) || return 1
	b=$(fn_sass "$2" "$3" ${4:+"$4"}) || return 1
	[ "$a" != "$b" ] || { echo "SASS of $3${4:+ ($4)} is the same in $1 and $2" >&2; return 1; }
}

# splice_variant SRC VARIANT KERNEL [NEWNAME]: SRC with the definition of
# KERNEL (from its `__global__ void KERNEL` line to the first line that is
# just `}`) replaced by VARIANT, or, with NEWNAME, followed by VARIANT
# renamed to NEWNAME: the translation unit a person would write by hand,
# whose code the substituted build must reproduce.
splice_variant() {
	awk -v kernel="$3" -v vfile="$2" -v newname="${4:-}" '
		function emit_variant(   line) {
			while ((getline line < vfile) > 0) {
				if (line ~ /^#pragma astra/) continue
				if (newname != "") gsub("void " kernel "\\(", "void " newname "(", line)
				print line
			}
			close(vfile)
		}
		!inside && $0 ~ "^__global__ void " kernel "\\(" { inside = 1; if (newname != "") print; next }
		inside { if (newname != "") print; if ($0 == "}") { inside = 0; emit_variant() } next }
		{ print }
	' "$1"
}

# build_ref VARIANT KERNEL [NEWNAME] -- NVCC-ARGS: compile splice_variant of
# src/k.cu in ./ref (a copy of ./src) with NVCC-ARGS.
build_ref() {
	local v=$1 k=$2 n=
	shift 2
	[ "$1" != "--" ] && { n=$1; shift; }
	shift
	rm -rf ref && cp -R src ref
	splice_variant src/k.cu "$v" "$k" $n > ref/k.cu
	(cd ref && "$NVCC" "$@" 2> ../ref.err) || { cat ref.err >&2; return 1; }
}
