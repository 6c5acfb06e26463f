/*
 * interim-driver.c - a small standalone driver for libFuzzer targets, so a
 * target runs under `make check` with gcc (and ASan) without libFuzzer.
 *
 * Interim: the generic driver (testsuite/fuzz/driver.c) is being written on
 * another branch; when it lands, fuzz targets link with it and this file
 * goes.  It accepts the libFuzzer flags the test cases use, so the
 * command lines stay the same:
 *
 *   fuzz-TARGET [-max_total_time=SECONDS] [-runs=N] [-seed=N] [CORPUS_DIR|FILE]...
 *
 * Every corpus file runs once as is, then mutated copies (bit flips, byte
 * changes, insertions, deletions, duplications, splices of two inputs,
 * truncations) of corpus files run until the time or run limit.  A crash leaves the input
 * that caused it in ./crash-<pid> and the process dies with the signal.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "astra-cc/buf.h"
#include "astra-cc/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	unsigned char *data;
	size_t len;
};

static struct input *corpus;
static size_t nr_corpus, alloc_corpus;
static const unsigned char *volatile current;
static volatile size_t current_len;
static unsigned long long rng_state = 0x2545f4914f6cdd1dULL;

static unsigned long long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void add_input(const void *data, size_t len)
{
	ALLOC_GROW(corpus, nr_corpus + 1, alloc_corpus);
	corpus[nr_corpus].data = xmalloc(len + 1);
	memcpy(corpus[nr_corpus].data, data, len);
	corpus[nr_corpus].len = len;
	nr_corpus++;
}

static void load(const char *path)
{
	struct stat st;
	struct astra_buf b = ASTRA_BUF_INIT;
	if (stat(path, &st) < 0) {
		perror(path);
		exit(2);
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d)) != NULL) {
			char *p;
			if (de->d_name[0] == '.')
				continue;
			p = xasprintf("%s/%s", path, de->d_name);
			load(p);
			free(p);
		}
		if (d)
			closedir(d);
		return;
	}
	if (astra_buf_read_file(&b, path, 1 << 20) == 0)
		add_input(b.buf, b.len);
	astra_buf_release(&b);
}

static void on_crash(int sig)
{
	char name[64];
	int fd;
	snprintf(name, sizeof(name), "crash-%ld", (long)getpid());
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && current) {
		if (write(fd, (const void *)current, current_len) < 0) {
			/* Nothing more to do in a signal handler. */
		}
		close(fd);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void run(const unsigned char *data, size_t len)
{
	/* A copy of exactly len bytes, so ASan sees reads past the end. */
	unsigned char *copy = xmalloc(len ? len : 1);
	memcpy(copy, data, len);
	current = copy;
	current_len = len;
	LLVMFuzzerTestOneInput(copy, len);
	current = NULL;
	free(copy);
}

static const char *const tokens[] = {
	"{", "}", "[", "]", "\"", ":", ",", "null", "true", "-1", "0", "1e999", "9999999999999999999",
	"\"verdict\"", "\"faster\"", "\"format\"", "\"variant\"", "\"bytes\"", "\"checksum\"", "\\u0000",
	"\n", " ", "astra-cc entry ", "xxh3-64:",
};

static void mutate(struct astra_buf *b)
{
	int n = 1 + (int)below(3), i;
	for (i = 0; i < n; i++) {
		size_t pos = below(b->len + 1);
		/* Destructive mutations (deletion, truncation, splice) are rarer. */
		switch (below(16) < 10 ? (int[]){ 0, 1, 3, 5, 7 }[below(5)] : (int)below(8)) {
		case 0: /* flip a bit */
			if (b->len)
				b->buf[below(b->len)] ^= (char)(1 << below(8));
			break;
		case 1: /* set a byte */
			if (b->len)
				b->buf[below(b->len)] = (char)rnd();
			break;
		case 2: { /* delete a range */
			size_t len = below(b->len - (pos < b->len ? pos : b->len) + 1);
			if (pos < b->len) {
				memmove(b->buf + pos, b->buf + pos + len, b->len - pos - len);
				astra_buf_setlen(b, b->len - len);
			}
			break;
		}
		case 3: { /* insert a token */
			const char *t = tokens[below(ARRAY_SIZE(tokens))];
			struct astra_buf c = ASTRA_BUF_INIT;
			astra_buf_add(&c, b->buf, pos);
			astra_buf_adds(&c, t);
			astra_buf_add(&c, b->buf + pos, b->len - pos);
			astra_buf_release(b);
			*b = c;
			break;
		}
		case 4: /* truncate */
			astra_buf_setlen(b, pos);
			break;
		case 5: { /* duplicate a range */
			size_t len = below(64);
			if (pos + len <= b->len && b->len < (1 << 20)) {
				struct astra_buf c = ASTRA_BUF_INIT;
				astra_buf_add(&c, b->buf, pos + len);
				astra_buf_add(&c, b->buf + pos, b->len - pos);
				astra_buf_release(b);
				*b = c;
			}
			break;
		}
		case 6: { /* splice with another input */
			const struct input *o = &corpus[below(nr_corpus)];
			size_t from = below(o->len + 1);
			astra_buf_setlen(b, pos);
			astra_buf_add(b, o->data + from, o->len - from);
			break;
		}
		default: /* a digit becomes another digit */
			if (b->len) {
				size_t k = below(b->len);
				if (b->buf[k] >= '0' && b->buf[k] <= '9')
					b->buf[k] = (char)('0' + below(10));
			}
		}
	}
}

int main(int argc, char **argv)
{
	double limit = 10, start;
	long long runs = -1, done = 0;
	int i;

	signal(SIGSEGV, on_crash);
	signal(SIGABRT, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	for (i = 1; i < argc; i++) {
		if (astra_starts_with(argv[i], "-max_total_time="))
			limit = atof(argv[i] + 16);
		else if (astra_starts_with(argv[i], "-runs="))
			runs = atoll(argv[i] + 6);
		else if (astra_starts_with(argv[i], "-seed="))
			rng_state = strtoull(argv[i] + 6, NULL, 10) | 1;
		else if (argv[i][0] == '-')
			fprintf(stderr, "ignoring %s\n", argv[i]);
		else
			load(argv[i]);
	}
	if (!nr_corpus)
		add_input("", 0);
	start = astra_now();
	for (i = 0; i < (int)nr_corpus; i++, done++)
		run(corpus[i].data, corpus[i].len);
	while ((runs < 0 || done < runs) && astra_now() - start < limit) {
		struct astra_buf b = ASTRA_BUF_INIT;
		const struct input *in = &corpus[below(nr_corpus)];
		astra_buf_add(&b, in->data, in->len);
		mutate(&b);
		run((const unsigned char *)b.buf, b.len);
		/*
		 * Mutants are not kept: without coverage feedback they mostly
		 * degrade the corpus into short junk.
		 */
		astra_buf_release(&b);
		done++;
	}
	printf("fuzz: %lld runs in %.1f s, no crash (%zu inputs in the corpus)\n", done, astra_now() - start,
	       nr_corpus);
	return 0;
}
