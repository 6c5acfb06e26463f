/*
 * driver.c - a small stand-in for libFuzzer's main(), so that every fuzz
 * target (testsuite/fuzz/fuzz-*.c, each defining LLVMFuzzerTestOneInput)
 * also runs where libFuzzer is not available: with gcc, under ASan/UBSan,
 * for a bounded time in `make check`.
 *
 * It has no coverage feedback.  Inputs are random bytes or mutations of the
 * seed corpus (bit flips, structural bytes, insertions, deletions, copies
 * and splices between seeds), which is enough to shake a hand-written
 * parser.  The command line is a subset of libFuzzer's, so the same
 * command works with either build (see testsuite/fuzz/run-fuzzer):
 *
 *   fuzz-X [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=N]
 *          [-artifact_prefix=P] DIR|FILE...
 *
 * A FILE argument runs that input once (reproducing a crash); DIR
 * arguments are read as the seed corpus.  On a crash the input is saved to
 * <artifact_prefix>crash-<seed>-<run> before the process dies, and the
 * sanitizer's death callback does the same when a sanitizer reports.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

struct input {
	uint8_t *data;
	size_t size;
};

static struct input *corpus;
static size_t nr_corpus, alloc_corpus;
static uint64_t rng;

/* The input being run, for the crash handlers. */
static const uint8_t *cur_data;
static size_t cur_size;
static char crash_path[4096];

static uint64_t next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

static void *xalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "fuzz driver: out of memory\n");
		exit(99);
	}
	return p;
}

static void save_input(void)
{
	int fd;
	static const char msg[] = "fuzz driver: crashing input saved to ";
	if (!cur_data)
		return;
	fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		ssize_t w = write(fd, cur_data, cur_size);
		(void)w;
		close(fd);
	}
	if (write(2, msg, sizeof(msg) - 1) < 0 || write(2, crash_path, strlen(crash_path)) < 0 ||
	    write(2, "\n", 1) < 0)
		return;
}

static void on_signal(int sig)
{
	save_input();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_corpus(const uint8_t *data, size_t size)
{
	struct input *in;
	if (nr_corpus == alloc_corpus) {
		alloc_corpus = alloc_corpus ? alloc_corpus * 2 : 64;
		corpus = realloc(corpus, alloc_corpus * sizeof(*corpus));
		if (!corpus) {
			fprintf(stderr, "fuzz driver: out of memory\n");
			exit(99);
		}
	}
	in = &corpus[nr_corpus++];
	in->data = xalloc(size);
	memcpy(in->data, data, size);
	in->size = size;
}

static int read_file(const char *path, uint8_t **data, size_t *size, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;
	if (!f)
		return -1;
	*data = xalloc(max);
	n = fread(*data, 1, max, f);
	fclose(f);
	*size = n;
	return 0;
}

static void load_dir(const char *dir, size_t max_len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		uint8_t *data;
		size_t size;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (read_file(path, &data, &size, max_len) == 0) {
			add_corpus(data, size);
			free(data);
		}
	}
	closedir(d);
}

/* Bytes that matter to most text parsers. */
static const char interesting[] = "()[]{}<>,:;=.\"'\\/*#\n\t -+0123456789azAZ_\x01\xff";

/* Mutate buf (size *size, capacity cap) in place. */
static void mutate(uint8_t *buf, size_t *size, size_t cap)
{
	size_t n = *size, i, len, at;
	int rounds = 1 + (int)below(4), r;
	for (r = 0; r < rounds; r++) {
		switch (below(8)) {
		case 0: /* flip a bit */
			if (n)
				buf[below(n)] ^= (uint8_t)(1u << below(8));
			break;
		case 1: /* a structural byte */
			if (n)
				buf[below(n)] = (uint8_t)interesting[below(sizeof(interesting) - 1)];
			break;
		case 2: /* insert a byte */
			if (n < cap) {
				at = below(n + 1);
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = below(2) ? (uint8_t)interesting[below(sizeof(interesting) - 1)] : (uint8_t)next();
				n++;
			}
			break;
		case 3: /* delete a range */
			if (n) {
				at = below(n);
				len = 1 + below(n - at < 16 ? n - at : 16);
				memmove(buf + at, buf + at + len, n - at - len);
				n -= len;
			}
			break;
		case 4: /* duplicate a range */
			if (n && n < cap) {
				at = below(n);
				len = 1 + below(n - at);
				if (len > cap - n)
					len = cap - n;
				memmove(buf + at + len, buf + at, n - at);
				n += len;
			}
			break;
		case 5: /* splice a piece of another seed */
		case 6:
			if (nr_corpus) {
				const struct input *o = &corpus[below(nr_corpus)];
				if (o->size) {
					size_t from = below(o->size);
					len = 1 + below(o->size - from);
					if (len > cap - n)
						len = cap - n;
					at = below(n + 1);
					memmove(buf + at + len, buf + at, n - at);
					memcpy(buf + at, o->data + from, len);
					n += len;
				}
			}
			break;
		default: /* truncate */
			if (n)
				n = below(n + 1);
			break;
		}
	}
	for (i = n; i < *size && i < cap; i++)
		buf[i] = 0;
	*size = n;
}

static void run_one(const uint8_t *data, size_t size)
{
	/* A private copy, exactly size bytes, so ASan sees overreads. */
	uint8_t *copy = xalloc(size);
	memcpy(copy, data, size);
	cur_data = copy;
	cur_size = size;
	LLVMFuzzerTestOneInput(copy, size);
	/* No input is current after this one: a leak report at exit must not
	 * save (and read) a freed one. */
	cur_data = NULL;
	cur_size = 0;
	free(copy);
}

int main(int argc, char **argv)
{
	double max_time = 10;
	unsigned long long runs = 0, done = 0;
	unsigned long long seed = 0;
	size_t max_len = 4096, i;
	const char *prefix = "";
	int nr_files = 0;
	struct timespec t0, t;
	uint8_t *buf;
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < (size_t)argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "-max_total_time=", 16))
			max_time = atof(a + 16);
		else if (!strncmp(a, "-runs=", 6))
			runs = strtoull(a + 6, NULL, 10);
		else if (!strncmp(a, "-seed=", 6))
			seed = strtoull(a + 6, NULL, 10);
		else if (!strncmp(a, "-max_len=", 9))
			max_len = (size_t)strtoull(a + 9, NULL, 10);
		else if (!strncmp(a, "-artifact_prefix=", 17))
			prefix = a + 17;
		else if (a[0] == '-')
			fprintf(stderr, "%s: ignoring option %s\n", name, a);
	}
	if (max_len < 16)
		max_len = 16;
	if (!seed)
		seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
	rng = seed ? seed : 1;

	signal(SIGSEGV, on_signal);
	signal(SIGABRT, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGILL, on_signal);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(save_input);

	/* FILE arguments: run each once. */
	for (i = 1; i < (size_t)argc; i++) {
		struct stat st;
		uint8_t *data;
		size_t size;
		if (argv[i][0] == '-' || stat(argv[i], &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (read_file(argv[i], &data, &size, 1 << 24) < 0)
			continue;
		snprintf(crash_path, sizeof(crash_path), "%scrash-repro", prefix);
		run_one(data, size);
		free(data);
		nr_files++;
		printf("%s: ran %s\n", name, argv[i]);
	}
	if (nr_files)
		return 0;

	for (i = 1; i < (size_t)argc; i++)
		if (argv[i][0] != '-')
			load_dir(argv[i], max_len);

	buf = xalloc(max_len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Every seed once as it is, then mutations. */
	for (i = 0; i < nr_corpus; i++, done++) {
		snprintf(crash_path, sizeof(crash_path), "%scrash-%llu-%llu", prefix, seed, done);
		run_one(corpus[i].data, corpus[i].size);
	}
	for (;;) {
		size_t size;
		if (runs && done >= runs)
			break;
		if ((done & 63) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >= max_time)
				break;
		}
		if (!nr_corpus || below(10) == 0) {
			size = below(max_len < 256 ? max_len : 256);
			for (i = 0; i < size; i++)
				buf[i] = below(2) ? (uint8_t)interesting[below(sizeof(interesting) - 1)] : (uint8_t)next();
		} else {
			const struct input *in = &corpus[below(nr_corpus)];
			size = in->size < max_len ? in->size : max_len;
			memcpy(buf, in->data, size);
			mutate(buf, &size, max_len);
		}
		snprintf(crash_path, sizeof(crash_path), "%scrash-%llu-%llu", prefix, seed, done);
		run_one(buf, size);
		done++;
	}
	printf("%s: %llu runs (%zu seeds, seed=%llu), no crash\n", name, done, nr_corpus, seed);
	free(buf);
	for (i = 0; i < nr_corpus; i++)
		free(corpus[i].data);
	free(corpus);
	return 0;
}
