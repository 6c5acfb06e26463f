/*
 * unit.h - the smallest useful unit-test helpers.
 *
 * CHECK(expr) and CHECK_STR(a, b) record failures with file:line and go on;
 * unit_done() prints a count and returns the exit status (0, or 1 when
 * something failed).  A test that cannot run returns 77 (skip); one that
 * could run only part of its checks ends with unit_skip(why).
 */
#ifndef ASTRA_UNIT_H
#define ASTRA_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_checks, unit_failures;

#define CHECK(expr)                                                                  \
	do {                                                                         \
		unit_checks++;                                                       \
		if (!(expr)) {                                                       \
			unit_failures++;                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr); \
		}                                                                    \
	} while (0)

#define CHECK_STR(a, b)                                                              \
	do {                                                                         \
		const char *unit_a = (a), *unit_b = (b);                             \
		unit_checks++;                                                       \
		if (!unit_a || !unit_b || strcmp(unit_a, unit_b)) {                   \
			unit_failures++;                                             \
			fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, \
				__LINE__, #a, unit_a ? unit_a : "(null)", unit_b ? unit_b : "(null)"); \
		}                                                                    \
	} while (0)

#define CHECK_INT(a, b)                                                              \
	do {                                                                         \
		long long unit_x = (long long)(a), unit_y = (long long)(b);          \
		unit_checks++;                                                       \
		if (unit_x != unit_y) {                                              \
			unit_failures++;                                             \
			fprintf(stderr, "%s:%d: %s is %lld, expected %lld\n", __FILE__, \
				__LINE__, #a, unit_x, unit_y);                       \
		}                                                                    \
	} while (0)

static inline int unit_done(void)
{
	printf("%d checks, %d failed\n", unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

/*
 * unit_skip(why): end a test that could run only part of its checks.  A
 * failure in the part that ran still fails (1); otherwise print the count,
 * then WHY as the last line of stderr (the runner's skip reason), and
 * return 77.
 */
static inline int unit_skip(const char *why)
{
	if (unit_failures)
		return unit_done();
	printf("%d checks, %d failed\n", unit_checks, unit_failures);
	fflush(stdout);
	fprintf(stderr, "%s\n", why);
	return 77;
}

#endif
