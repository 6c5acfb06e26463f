/* Unit tests for config.c: precedence, origins, parsing. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/util.h"
#include "testsuite/unit/unit.h"

int main(void)
{
	long long n;
	FILE *f;
	const char *const *p;
	int bad = 0;

	CHECK_INT(astra_parse_size("1G", &n), 0);
	CHECK_INT(n, 1024LL * 1024 * 1024);
	CHECK_INT(astra_parse_size("500M", &n), 0);
	CHECK_INT(n, 500LL * 1024 * 1024);
	CHECK_INT(astra_parse_size("1.5k", &n), 0);
	CHECK_INT(n, 1536);
	CHECK_INT(astra_parse_size("12", &n), 0);
	CHECK_INT(n, 12);
	CHECK_INT(astra_parse_size("x", &n), -1);
	CHECK_INT(astra_parse_size("5Q", &n), -1);
	CHECK_INT(astra_parse_bool("yes"), 1);
	CHECK_INT(astra_parse_bool("Off"), 0);
	CHECK_INT(astra_parse_bool("maybe"), -1);

	unsetenv("ASTRA_CC_MODE");
	unsetenv("ASTRA_CC_MAX_SIZE");
	unsetenv("ASTRA_CC_DIR");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	setenv("ASTRA_CC_CONFIGPATH", "test-config.conf", 1);
	f = fopen("test-config.conf", "w");
	CHECK(f != NULL);
	if (!f)
		return unit_done();
	fputs("# comment\nmode = optimize\nmax_size=2G\nbogus = 1\nmode_typo\nstrict = perhaps\n", f);
	fclose(f);

	astra_config_load();
	CHECK_STR(astra_config_str(ASTRA_CFG_DIR), "/xdg/astra-cc");
	CHECK_STR(astra_config_origin(ASTRA_CFG_DIR), "default");
	CHECK_INT(astra_config_mode(), ASTRA_MODE_OPTIMIZE);
	CHECK_STR(astra_config_origin(ASTRA_CFG_MODE), "test-config.conf:2");
	CHECK_INT(astra_config_int(ASTRA_CFG_MAX_SIZE), 2LL << 30);
	CHECK_INT(astra_config_bool(ASTRA_CFG_STRICT), 0);
	for (p = astra_config_problems(); *p; p++)
		bad++;
	CHECK_INT(bad, 2);
	CHECK(strstr(astra_config_problems()[0], "test-config.conf:4") != NULL);
	/* A value that does not parse is an error that stops the command (issue 28). */
	CHECK_STR(astra_config_errors()[0], "test-config.conf:6: error: strict: 'perhaps' is not true or false");
	CHECK(astra_config_errors()[1] == NULL);

	/* The environment wins over the file. */
	setenv("ASTRA_CC_MODE", "off", 1);
	setenv("ASTRA_CC_DIR", "/somewhere", 1);
	astra_config_load();
	CHECK_INT(astra_config_mode(), ASTRA_MODE_OFF);
	CHECK_STR(astra_config_origin(ASTRA_CFG_MODE), "environment: ASTRA_CC_MODE");
	CHECK_STR(astra_config_str(ASTRA_CFG_DIR), "/somewhere");

	/* An invalid environment value is an error naming the variable. */
	setenv("ASTRA_CC_MODE", "sometimes", 1);
	setenv("ASTRA_CC_MAX_SIZE", "lots", 1);
	astra_config_load();
	CHECK_INT(astra_config_mode(), ASTRA_MODE_OPTIMIZE);
	CHECK_STR(astra_config_errors()[1], "astra-cc: error: ASTRA_CC_MODE: 'sometimes' is not use, optimize or off");
	CHECK_STR(astra_config_errors()[2],
		  "astra-cc: error: ASTRA_CC_MAX_SIZE: 'lots' is not a size (such as 500M or 2G)");
	unsetenv("ASTRA_CC_MODE");
	unsetenv("ASTRA_CC_MAX_SIZE");

	/* A boolean variable is true unless it says false (ccache's rule). */
	{
		static const char *const yes[] = { "maybe", "1", "true", "Yes", "on", "disable" };
		static const char *const no[] = { "0", "false", "No", "OFF", "" };
		size_t i;
		for (i = 0; i < ARRAY_SIZE(yes); i++) {
			setenv("ASTRA_CC_DISABLE", yes[i], 1);
			astra_config_load();
			CHECK_INT(astra_config_bool(ASTRA_CFG_DISABLE), 1);
		}
		for (i = 0; i < ARRAY_SIZE(no); i++) {
			setenv("ASTRA_CC_DISABLE", no[i], 1);
			astra_config_load();
			CHECK_INT(astra_config_bool(ASTRA_CFG_DISABLE), 0);
		}
		unsetenv("ASTRA_CC_DISABLE");
	}

	unlink("test-config.conf");
	astra_config_release();
	return unit_done();
}
