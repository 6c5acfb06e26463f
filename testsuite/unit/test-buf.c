/* Unit tests for buf.c and vec.c. */
#include "autoconfig.h"

#include <stdlib.h>

#include "lib/buf.h"
#include "lib/vec.h"
#include "testsuite/unit/unit.h"

int main(void)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_vec v = ASTRA_VEC_INIT;
	char *s;
	size_t len;
	int i;

	CHECK_STR(b.buf, "");
	astra_buf_adds(&b, "abc");
	astra_buf_addf(&b, "-%d-%s", 42, "x");
	CHECK_STR(b.buf, "abc-42-x");
	for (i = 0; i < 1000; i++)
		astra_buf_addf(&b, "%04d", i);
	CHECK_INT(b.len, 8 + 4000);
	astra_buf_setlen(&b, 3);
	CHECK_STR(b.buf, "abc");
	s = astra_buf_detach(&b, &len);
	CHECK_STR(s, "abc");
	CHECK_INT(len, 3);
	CHECK_STR(b.buf, "");
	free(s);

	astra_buf_add_json_escaped(&b, "a\"b\\c\n\x01");
	CHECK_STR(b.buf, "a\\\"b\\\\c\\n\\u0001");
	astra_buf_reset(&b);
	astra_buf_add_shell_quoted(&b, "it's");
	CHECK_STR(b.buf, "'it'\\''s'");
	astra_buf_reset(&b);
	astra_buf_add_shell_quoted(&b, "-DX=1");
	CHECK_STR(b.buf, "-DX=1");

	/* URL credentials (issue 28: --show-config printed a refused URL's password). */
	{
		static const char *const cases[][2] = {
			{ "http://u:secretpw@cache.example.com/astra/", "http://u:[REDACTED]@cache.example.com/astra/" },
			{ "a https://tok@h:8080/x b http://v:p@ss@h2/ c", "a https://[REDACTED]@h:8080/x b http://v:[REDACTED]@h2/ c" },
			{ "`http://u:pw@h`: refused", "`http://u:[REDACTED]@h`: refused" },
			{ "http://h/path@x file:/dir@y user@host", "http://h/path@x file:/dir@y user@host" },
			{ "http://u:[REDACTED]@h/", "http://u:[REDACTED]@h/" },
			{ "http://@h/ x://", "http://@h/ x://" },
			{ "no url here", "no url here" },
		};
		size_t k;
		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			astra_buf_reset(&b);
			astra_buf_adds(&b, cases[k][0]);
			astra_buf_redact_userinfo(&b);
			CHECK_STR(b.buf, cases[k][1]);
			astra_buf_redact_userinfo(&b);
			CHECK_STR(b.buf, cases[k][1]);
		}
	}
	astra_buf_release(&b);

	astra_vec_split_shell(&v, "  -c 'a b.cu' \"x\\\"y\" z\\ w  ");
	CHECK_INT(v.nr, 4);
	CHECK_STR(v.v[0], "-c");
	CHECK_STR(v.v[1], "a b.cu");
	CHECK_STR(v.v[2], "x\"y");
	CHECK_STR(v.v[3], "z w");
	CHECK(v.v[4] == NULL);
	astra_vec_insert(&v, 0, "first");
	astra_vec_remove(&v, 2);
	CHECK_STR(v.v[0], "first");
	CHECK_STR(v.v[1], "-c");
	CHECK_STR(v.v[2], "x\"y");
	CHECK_INT(astra_vec_find(&v, "z w"), 3);
	CHECK_INT(astra_vec_find(&v, "nope"), -1);
	astra_vec_clear(&v);
	CHECK_INT(v.nr, 0);
	return unit_done();
}
