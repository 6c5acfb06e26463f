# wild.sh - what the cases of testsuite/cases/wild/ share: the wild suite
# (bench/wild/) split into groups (every Nth file), so that each case stays
# well inside the runner's time limit on a busy machine and the groups run
# side by side, and the two checks each group gets without a GPU:
#
#   wild_harness GROUP N  every kernel of group GROUP of N through the real
#                         optimization loop with no GPU (`astra-cc --warmup`
#                         from the suite's compilation database, so each
#                         file with its own flags): extracted, its test
#                         program generated and compiled by nvcc with every
#                         first-round candidate of the rules in it.  Prints
#                         "KERNEL: harnessed" or what went wrong.
#   wild_emulated GROUP N every first-round candidate of the rules (and an
#                         unchanged copy of the original) run against the
#                         original on the CPU emulator (bench/emu-check).
#                         Prints "KERNEL: ok" or one FAIL line per
#                         candidate that computes something else.  Under
#                         the sanitizers the candidates are made, not run
#                         (testsuite/lib/sanitizers.sh); wild_harness is
#                         a skip there.
#   wild_rules KERNEL RULES -- STEPS...
#                         what a rules case (testsuite/cases/rules/) asserts
#                         of one wild kernel: the --explain verdict of each
#                         rule of RULES (comma-separated), then each
#                         combination of STEPS made by the rules and run
#                         against the original on the emulator.
#
# Source it after testlib.sh; it needs srcdir, builddir, NVCC, ASTRA_CC.
wild_dir=$srcdir/bench/wild

# wild_files GROUP N: the kernel files of group GROUP (1..N), every Nth file; or all.
wild_files() {
	LC_ALL=C ls "$wild_dir"/*.cu | awk -v g="$1" -v n="${2:-1}" 'g == "all" || (NR - 1) % n == g - 1'
}

wild_flags() {
	"$wild_dir/compile-db" --flags "$1"
}

# The definition of the annotated kernel of FILE, as a variant: an unchanged copy.
wild_identity() {
	"$ASTRA_CC" --list-kernels --json "$1" -std=c++17 $(wild_flags "$1") |
		python3 -c 'import json, sys
k = json.load(sys.stdin)["files"][0]["kernels"][0]
sys.stdout.write(open(sys.argv[1], "rb").read()[k["start"]:k["end"]].decode() + "\n")' "$1"
}

wild_harness() {
	need_nvcc
	# Its time is nvcc's; astra-cc reads the same files under the sanitizers
	# in wild/0003 and makes their candidates in the wild/002x cases.
	plain_only "the test programs are compiled by nvcc; wild/0003 and wild/0020-0024 run astra-cc's parts on these files under the sanitizers"
	command -v python3 > /dev/null || skip "skipped: no python3"
	# A rotating slice of the groups compiles in each run (doc/testing.md):
	# group G when (G - 1) mod $ASTRA_TEST_WILD_SLICES (default 4) is the slice.
	local slices=${ASTRA_TEST_WILD_SLICES:-4} slice why
	read -r slice why <<< "$(rotating_slice "$slices" ASTRA_TEST_WILD_SLICE)" || exit 99
	if [ "$slice" != all ] && [ $((($1 - 1) % slices)) != "$slice" ]; then
		skip "rotating slice: this run compiles the harness groups G with (G - 1) mod $slices = $slice ($why); ASTRA_TEST_WILD_SLICE=all compiles every group"
	fi
	local list db
	list=$(wild_files "$1" "$2")
	db=$PWD/db
	NVCC=$NVCC "$wild_dir/compile-db" "$db" $list || fail "compile-db"
	# Without a GPU the loop proposes and compiles; with one, make it do the same.
	[ "${ASTRA_TEST_HAVE_GPU:-0}" = 1 ] && export ASTRA_CC_NO_GPU=1
	export ASTRA_CC_NVCC=$NVCC
	"$ASTRA_CC" --warmup -j 2 --json warmup.json -p "$db" > warmup.out 2> warmup.err
	echo "warmup exit status $?" >&2
	cat warmup.out >&2
	python3 - warmup.json $list > verdicts <<'EOP' || fail "cannot read warmup.json"
import json, os, sys
rows = {r.get("kernel"): r for r in json.load(open(sys.argv[1]))["kernels"]}
for f in sys.argv[2:]:
    n = os.path.basename(f)[:-3]
    r = rows.get(n)
    if r is None:
        print("%s: not found by warmup" % n)
        continue
    bad = []
    if r.get("status") != "not-run":
        bad.append("status %s: %s" % (r.get("status"), r.get("reason", "")))
    if r.get("compiled", 0) != r.get("tried", 0):
        bad.append("%s of %s candidates compiled" % (r.get("compiled"), r.get("tried")))
    for x in r.get("rejected", []):
        bad.append("candidate %s rejected (%s): %s" % (x["candidate"], x["check"], x["reason"]))
    if bad:
        print("%s: %s" % (n, "; ".join(bad)))
    elif r.get("tried", 0) == 0:
        print("%s: no candidates" % n)
    else:
        print("%s: harnessed" % n)
EOP
	# No candidate: the test program must still be generated and compiled
	# (here with an unchanged copy of the kernel as the candidate).
	local n f
	while read -r line; do
		case $line in
		*": no candidates")
			n=${line%%:*}
			f=$wild_dir/$n.cu
			wild_identity "$f" > "$n-copy.cu" || fail "$n: cannot copy the kernel"
			"$ASTRA_CC" --verify "$f" --kernel "$n" --candidate "$n-copy.cu" --no-run --cc 90 \
				-std=c++17 $(wild_flags "$f") > "$n-verify.out" 2>&1
			# 3: generated and compiled, not run, nothing rejected
			if [ $? = 3 ]; then
				echo "$n: harnessed (no rule applies; checked with a copy of the kernel)"
			else
				cat "$n-verify.out" >&2
				echo "$n: the test program does not build"
			fi
			;;
		*) echo "$line" ;;
		esac
	done < verdicts
}

# emulate_one FILE: the rules' first round for FILE on the emulator; prints the verdict lines.
wild_emulate_one() {
	local f=$1 n steps i=0 fl tool=$builddir/testsuite/unit/rules-apply
	n=$(basename "$f" .cu)
	fl=$(wild_flags "$f")
	mkdir -p "$n"
	"$tool" --cc 90 --plan "$f" -- -std=c++17 $fl > "$n/plan" || { echo "$n: no plan"; return; }
	wild_identity "$f" > "$n/v0.cu" || { echo "$n: cannot copy the kernel"; return; }
	local args=(--name "unchanged copy" "$n/v0.cu")
	while read -r steps; do
		i=$((i + 1))
		if ! "$tool" --cc 90 "$f" "$steps" -- -std=c++17 $fl > "$n/v$i.cu"; then
			echo "$n: FAIL [$steps]: the rules planned it but did not make it"
			continue
		fi
		# Inline PTX (tanh.approx) has no CPU form: the same steps for sm_70 instead.
		if grep -q 'asm(' "$n/v$i.cu" && ! "$tool" --cc 70 "$f" "$steps" -- -std=c++17 $fl > "$n/v$i.cu"; then
			echo "$n [$steps]: not run (inline PTX only)" >&2
			continue
		fi
		args+=(--name "$steps" "$n/v$i.cu")
	done < "$n/plan"
	# Under the sanitizers: made (by the sanitized rules-apply and astra-cc), not run.
	if [ "${ASTRA_TEST_SANITIZERS:-0}" = 1 ]; then
		echo "$n: made"
		return
	fi
	# Every candidate is made (above); a rotating slice of them runs on the
	# emulator, with the unchanged copy (doc/testing.md): candidate j when
	# (j - 1) mod $ASTRA_TEST_WILD_EMU_SLICES (default 2) is the slice.
	local slices=${ASTRA_TEST_WILD_EMU_SLICES:-2} slice why j=0 run=("${args[@]:0:3}")
	read -r slice why <<< "$(rotating_slice "$slices" ASTRA_TEST_WILD_EMU_SLICE)" || { echo "$n: bad slice"; return; }
	set -- "${args[@]:3}"
	while [ $# -ge 3 ]; do
		j=$((j + 1))
		[ "$slice" = all ] || [ $(((j - 1) % slices)) = "$slice" ] && run+=("$1" "$2" "$3")
		shift 3
	done
	"$srcdir/bench/emu-check" --astra-cc "$ASTRA_CC" --nvcc "$NVCC" --flags "-std=c++17 $fl" \
		--max-elements "${WILD_EMU_MAX:-100000}" "$f" "${run[@]}" > "$n/emu.log" 2>&1
	local rc=$?
	echo "$n: $i rule candidates made, $(((${#run[@]} - 3) / 3)) run (slice $slice of $slices: $why), $(tail -n 1 "$n/emu.log"), exit $rc" >&2
	if [ $rc = 0 ]; then
		echo "$n: ok"
	elif ! grep -q '^FAIL' "$n/emu.log"; then
		echo "$n: emu-check exit $rc:"
		tail -n 20 "$n/emu.log"
	else
		# one line per candidate that computes something else
		sed -n 's/^FAIL  .* \[\([^]]*\)\]: .*/\1/p' "$n/emu.log" | sort -u | sed "s/^/$n: FAIL [/; s/\$/]/"
		grep '^FAIL' "$n/emu.log" | head -n 5 >&2
	fi
}

wild_emulated() {
	need_nvcc
	command -v python3 > /dev/null || skip "skipped: no python3"
	command -v "${CXX:-g++}" > /dev/null || skip "skipped: no C++ compiler (${CXX:-g++})"
	local inc
	inc=$(dirname "$(readlink -f "$NVCC")")/../include
	[ -f "$inc/cuda_fp16.h" ] || skip "skipped: no CUDA headers next to $NVCC"
	export -f wild_emulate_one wild_identity wild_flags rotating_slice
	export wild_dir
	wild_files "$1" "$2" | xargs -P 2 -I{} bash -c 'wild_emulate_one {}' > verdicts
	if sanitizer_run; then
		! grep -v ': made$' verdicts || fail "candidates not made under the sanitizers (above)"
		plain_only "$(wc -l < verdicts) kernels' candidates made by rules-apply; emu-check (g++, the CPU emulator) runs in the plain run"
	fi
	LC_ALL=C sort verdicts
}

# wild_rules KERNEL RULES -- STEPS...: see the top of this file.
wild_rules() {
	local n=$1 rules=$2 f=$wild_dir/$1.cu fl steps i=0 r tool=$builddir/testsuite/unit/rules-apply
	shift 3
	fl=$(wild_flags "$f")
	"$ASTRA_CC" --explain "$f" -std=c++17 -arch=sm_90 $fl > "$n.explain" 2>&1 || fail "--explain $n failed"
	for r in ${rules//,/ }; do
		grep -E "^  $r +(applies|declines)" "$n.explain" | sed -E 's/^  ([^ ]+) +/\1 /; s/(applies):.*/\1/' |
			cut -c1-100
	done
	local args=()
	for steps in "$@"; do
		i=$((i + 1))
		"$tool" --cc 90 "$f" "$steps" -- -std=c++17 $fl > "$n.v$i.cu" || { echo "$n [$steps]: not made"; continue; }
		args+=(--name "$steps" "$n.v$i.cu")
	done
	[ $i -gt 0 ] || return 0
	"$srcdir/bench/emu-check" --astra-cc "$ASTRA_CC" --nvcc "$NVCC" --flags "-std=c++17 $fl" \
		--max-elements "${WILD_EMU_MAX:-100000}" "$f" "${args[@]}" > "$n.emu" 2>&1
	case $? in
	0) grep '^ok' "$n.emu" | sed -E 's/.*\[([^]]*)\]$/\1/' | sort | uniq -c |
		awk '{ c = $1; $1 = ""; sub(/^ /, ""); print "emulated [" $0 "]: " c " checks ok" }' ;;
	77) tail -n 1 "$n.emu" >&2; exit 77 ;;
	*) echo "$n: emu-check failed:"; grep -v '^ok' "$n.emu" | head -n 20 ;;
	esac
}
