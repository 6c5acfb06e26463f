/*
 * A bounded run of the LLM response fuzz target (testsuite/fuzz/
 * fuzz-llm-response.c) for `make check`: seeds from
 * $srcdir/testsuite/fuzz/corpus/llm-response, then random mutations
 * (byte flips, insertions of the tokens the parsers care about, deletions,
 * splices) for ASTRA_FUZZ_SECONDS (default 3).  It passes when nothing
 * crashes or hangs.  When the generic driver (testsuite/fuzz/driver.c)
 * is on main, this test can give way to it.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra-cc/buf.h"
#include "astra-cc/util.h"
#include "testsuite/unit/unit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const dict[] = {
	"```", "```cuda\n", "\n```\n", "~~~", "__global__ ", "__device__ ", "__host__ ",
	"void scale(", "(", ")", "{", "}", "<", ">", ",", ";", "\"", "'", "\\", "\n", "#pragma astra launch(",
	"grid=", "block=", "#include <x>\n", "template <typename T, int VEC>\n", "R\"x(", ")x\"",
	"/*", "*/", "//", "T *y", "const T *__restrict__ x", "float a", "int n", "\"content\":",
	"{\"choices\":[{\"message\":{\"content\":\"", "\"}}]}", "Authorization: ", "Bearer ",
	"://u:p@", "sk-fuzz-secret-key", "\\u0000", "\\n",
};

static unsigned long long rng = 88172645463325252ULL;

static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void mutate(struct astra_buf *b, const struct astra_buf *other)
{
	int rounds = 1 + (int)(next() % 8), r;
	for (r = 0; r < rounds; r++) {
		size_t at = b->len ? next() % (b->len + 1) : 0;
		struct astra_buf t = ASTRA_BUF_INIT;
		switch (next() % 5) {
		case 0: /* flip a byte */
			if (b->len)
				b->buf[at % b->len] ^= (char)(1u << (next() % 8));
			break;
		case 1: { /* insert a token */
			const char *w = dict[next() % ARRAY_SIZE(dict)];
			astra_buf_add(&t, b->buf, at);
			astra_buf_adds(&t, w);
			astra_buf_add(&t, b->buf + at, b->len - at);
			astra_buf_release(b);
			*b = t;
			break;
		}
		case 2: { /* delete a run */
			size_t n = next() % 16;
			if (at + n > b->len)
				n = b->len - at;
			memmove(b->buf + at, b->buf + at + n, b->len - at - n);
			astra_buf_setlen(b, b->len - n);
			break;
		}
		case 3: /* random byte */
			if (b->len)
				b->buf[at % b->len] = (char)next();
			break;
		default: /* splice with another seed */
			if (other->len) {
				size_t from = next() % other->len, n = next() % 256;
				if (from + n > other->len)
					n = other->len - from;
				astra_buf_add(&t, b->buf, at);
				astra_buf_add(&t, other->buf + from, n);
				astra_buf_add(&t, b->buf + at, b->len - at);
				astra_buf_release(b);
				*b = t;
			}
			break;
		}
	}
	if (b->len > (64u << 10))
		astra_buf_setlen(b, 64u << 10);
}

int main(void)
{
	struct astra_buf seeds[64];
	size_t nr = 0, i;
	const char *src = getenv("srcdir");
	const char *secs = getenv("ASTRA_FUZZ_SECONDS");
	double limit = astra_now() + (secs ? atof(secs) : 3.0);
	unsigned long runs = 0;
	char *dir = xasprintf("%s/testsuite/fuzz/corpus/llm-response", src ? src : ".");
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL && nr < ARRAY_SIZE(seeds)) {
		char *p;
		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		astra_buf_init(&seeds[nr], 0);
		if (astra_buf_read_file(&seeds[nr], p, 1 << 20) == 0)
			nr++;
		free(p);
	}
	if (d)
		closedir(d);
	CHECK(nr >= 3);
	if (!nr) {
		astra_buf_init(&seeds[0], 0);
		astra_buf_adds(&seeds[0], "```cuda\n__global__ void scale() {}\n```\n");
		nr = 1;
	}
	for (i = 0; i < nr; i++)
		LLVMFuzzerTestOneInput((const uint8_t *)seeds[i].buf, seeds[i].len);
	while (astra_now() < limit) {
		struct astra_buf b = ASTRA_BUF_INIT;
		const struct astra_buf *s = &seeds[next() % nr];
		astra_buf_add(&b, s->buf, s->len);
		mutate(&b, &seeds[next() % nr]);
		LLVMFuzzerTestOneInput((const uint8_t *)b.buf, b.len);
		astra_buf_release(&b);
		runs++;
	}
	printf("%lu mutated inputs from %zu seeds\n", runs, nr);
	for (i = 0; i < nr; i++)
		astra_buf_release(&seeds[i]);
	free(dir);
	return unit_done();
}
