# sanitizers.sh - what a case does in the sanitizer run.  Source it (or
# testlib.sh, which does).
#
# CI runs make check twice: in a build with AddressSanitizer and UBSan
# (configure --enable-sanitizers; its make check sets
# ASTRA_TEST_SANITIZERS=1) and in the plain build.  The sanitizers watch
# astra-cc's own code (astra-cc, libastra and the test programs linked with
# it: rules-apply, gen-pragmas, the unit tests).  Work that is nvcc, g++ or
# a program g++ built for the CPU emulator gains nothing from them and
# costs as much as in the plain run, so a case whose time goes there runs
# that part in the plain run only:
#
#   plain_only WHY    in the sanitizer run: end the case here, a SKIP
#                     "skipped: plain run only: WHY" (exit 77); in the
#                     plain run: nothing.
#   sanitizer_run     true in the sanitizer run.
#
# Call plain_only after the part of the case that runs astra-cc's code (so
# that part still runs, and fails, under the sanitizers), or first when the
# case runs none.  Every case is still a test of each run: such a case is
# one SKIP in the sanitizer run, with its reason, and one PASS or FAIL in
# the plain run (doc/testing.md, "The sanitizer run").

sanitizer_run() { [ "${ASTRA_TEST_SANITIZERS:-0}" = 1 ]; }

plain_only() {
	sanitizer_run || return 0
	echo "plain run only: $*" >&2
	exit 77
}
