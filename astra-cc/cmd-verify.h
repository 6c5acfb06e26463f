/*
 * verify-cmd.h - `astra-cc --verify`: the verifier as a command for people.
 *
 *   astra-cc --verify FILE.cu --kernel NAME --candidate VARIANT.cu
 *            [--candidate ...] [--json] [--no-run] [--no-timing] [--timing-only]
 *            [--no-sanitizer] [--no-screen] [--keep-workdir] [--cc N]
 *            [--seed N] [--timeout S] [--watchdog S] [--] [nvcc flags]
 *
 * Runs the whole protocol (verify/verify.h) on hand-written candidates and
 * prints a verdict per candidate with the evidence: which cases and checks
 * ran, the error figures, the timings against the original.  Exit status:
 * 0 every candidate accepted; 1 some candidate rejected; 2 usage, or the
 * original itself fails the test (the pragma does not describe it);
 * 3 the test program was generated and compiled but not run (no GPU, or
 * --no-run), with no rejection.
 */
#ifndef ASTRA_VERIFY_CMD_H
#define ASTRA_VERIFY_CMD_H

int astra_verify_command(int argc, char **argv);

/*
 * astra-cc --judge-timing FILE [--json]: the timing rule applied to a saved
 * test-program run (a tool for checking measurements; see
 * bench/verify-gpu.sh).
 */
int astra_verify_judge_command(int argc, char **argv);

#endif
