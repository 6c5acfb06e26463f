# case.sh - sourced by the cases in testsuite/cases/llm/: a stub
# chat-completions server on the loopback interface, the LLM optimizer's
# rounds against it, a build, and the statistics.
#
# A case writes ./script (one line per request, see testsuite/lib/stub-chat.c),
# calls start_stub, run_llm, build and llm_stats, and the runner compares
# what they print with the case's expected.out (the counters, the log lines,
# the candidate): every case here must have one, and sourcing this file
# without it is a hard error (exit 99), so that no LLM case can pass on the
# status of its last command alone.  The fixtures (k.cu, the recorded
# answers *.md) are copied into the scratch directory unless the case has
# its own.
#
# run_llm drives the optimizer through testsuite/lib/llm-propose, which runs
# several rounds and stores the verdict and transcript as the loop does on
# a GPU host; without a GPU, `astra-cc --warmup` runs one propose-and-compile
# round and stores nothing, so only llm/0021-warmup goes through it.

set -u
if [ -n "${CASE_DIR:-}" ] && [ ! -f "$CASE_DIR/expected.out" ]; then
	echo "case.sh: $CASE_DIR has no expected.out: this case would assert nothing" >&2
	exit 99
fi
fixtures=$srcdir/testsuite/lib/llm
STUB=${LLM_STUB:-$builddir/testsuite/lib/stub-chat}
PROPOSE=${LLM_PROPOSE:-$builddir/testsuite/lib/llm-propose}

for f in "$fixtures"/k.cu "$fixtures"/*.md; do
	[ -e "$(basename "$f")" ] || cp "$f" .
done

# Hermetic: no proxy between us and the stub, no key from the caller.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
unset OPENAI_API_KEY ASTRA_CC_LLM_API_KEY ASTRA_CC_LLM_URL ASTRA_CC_LLM_EXTRA
export ASTRA_CC_LLM_MODEL=stub-model
export ASTRA_CC_LLM_RETRIES=${ASTRA_CC_LLM_RETRIES:-2}
export ASTRA_CC_LLM_TIMEOUT=${ASTRA_CC_LLM_TIMEOUT:-20}
export ASTRA_CC_LOG_FILE=$PWD/astra.log
export ASTRA_CC_OPTIMIZER=llm

stub_pid=
stop_stub() {
	if [ -n "$stub_pid" ]; then
		kill "$stub_pid" 2>/dev/null
		wait "$stub_pid" 2>/dev/null
		stub_pid=
	fi
}
trap stop_stub EXIT

# start_stub: serve ./script on an ephemeral port; sets ASTRA_CC_LLM_URL.
start_stub() {
	rm -f port
	"$STUB" -p port -d . -t 90 script > /dev/null 2> stub.err &
	stub_pid=$!
	for _ in $(seq 200); do
		[ -s port ] && break
		sleep 0.05
	done
	[ -s port ] || { echo "the stub server did not start" >&2; cat stub.err >&2; exit 99; }
	export ASTRA_CC_LLM_URL="http://127.0.0.1:$(cat port)/v1"
}

# run_llm [llm-propose options]: the optimizer's rounds on k.cu.
run_llm() {
	"$PROPOSE" "$@" k.cu -- -arch=sm_90
}

# build: the user's build with astra-cc in it must succeed whatever the LLM did.
build() {
	rm -f k.o
	if "$ASTRA_CC" "$NVCC" -arch=sm_90 -c k.cu -o k.o && [ -s k.o ]; then
		echo "build: ok"
	else
		echo "build: FAILED"
	fi
}

# llm_stats: the LLM counters of `astra-cc -s --json` (tokens only as
# counted or not).
llm_stats() {
	# The counters' machine names and values, from the JSON form of -s.
	"$ASTRA_CC" -s --json | tr -d '\t",' | awk -F: '
		/^llm_tokens_(in|out):/ { print $1, ($2 > 0 ? "counted" : "0"); next }
		/^llm_/ { print $1, $2 + 0 }'
}

# requests: how many requests the stub received.
requests() {
	ls request-*.json 2>/dev/null | wc -l | tr -d ' '
}

# log_lines [PATTERN]: astra-cc's log lines (matching PATTERN), without the
# timestamp and pid, with the stub's port replaced by PORT.
log_lines() {
	grep -e "${1:-.}" astra.log 2>/dev/null |
		sed -e 's/^\[[^]]*\] //' -e 's/127\.0\.0\.1:[0-9]*/127.0.0.1:PORT/g'
}
