/*
 * key.c - the kernel key (see key.h).
 *
 * Separate from extraction so that what enters the key is decided in one
 * place, readable as a list of sections; the extractor only provides the
 * material (normalized token texts, the header closure).
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/hash.h"
#include "lib/log.h"
#include "lib/toolmemo.h"
#include "front/key.h"

void astra_key_digest(const void *data, size_t len, struct astra_key *out)
{
	struct astra_digest d;
	astra_hash128(data, len, &d);
	memcpy(out->hash, d.hash, sizeof(out->hash));
	memcpy(out->hex, d.hex, sizeof(out->hex));
}

/* One labelled section: "== label (N bytes)\n" content "\n". */
static void section(struct astra_buf *b, const char *label, const char *content, size_t len)
{
	astra_buf_addf(b, "== %s (%zu bytes)\n", label, len);
	astra_buf_add(b, content, len);
	astra_buf_addch(b, '\n');
}

static void sections(struct astra_buf *b, const char *label, const char *content)
{
	section(b, label, content, strlen(content));
}

/* Is this normalized device flag a target option (-arch, -code, -gencode)? */
static int is_target_flag(const char *flag)
{
	const struct astra_nvcc_opt *opt;
	char *name = xstrndup(flag, strcspn(flag, "="));
	opt = astra_nvccopt_find(name);
	free(name);
	return opt && (opt->flags & OPT_ARCH);
}

int astra_key_text(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		   const char *arch, const char *nvcc_version, struct astra_buf *text)
{
	struct astra_buf tmp = ASTRA_BUF_INIT;
	char *canon;
	size_t i;

	astra_buf_addf(&tmp, "%d", ASTRA_KEY_FORMAT);
	sections(text, "format", tmp.buf);
	sections(text, "kernel", k->norm ? k->norm : "");
	canon = astra_pragma_canonical(&k->pragma);
	sections(text, "pragma", canon);
	free(canon);
	for (i = 0; i < k->nr_deps; i++) {
		char *label = xasprintf("dep %s", k->deps[i]);
		sections(text, label, k->dep_norms ? k->dep_norms[i] : k->dep_texts[i]);
		free(label);
	}
	for (i = 0; i < k->nr_headers; i++) {
		const struct astra_header *h;
		char *label;
		if (k->headers[i] >= tu->includes.nr)
			continue;
		h = &tu->includes.items[k->headers[i]];
		label = xasprintf("header %s", h->spelled);
		if (h->text) {
			struct astra_key d;
			astra_key_digest(h->text, h->len, &d);
			sections(text, label, d.hex);
		} else {
			sections(text, label, "not found");
		}
		free(label);
	}
	sections(text, "host compiler", tu->search && tu->search->host_id ? tu->search->host_id : "unknown");
	sections(text, "host compiler file", tu->search && tu->search->host_file ? tu->search->host_file : "unknown");
	astra_buf_reset(&tmp);
	for (i = 0; cl && i < cl->device_flags.nr; i++)
		if (!is_target_flag(cl->device_flags.v[i]))
			astra_buf_addf(&tmp, "%s\n", cl->device_flags.v[i]);
	sections(text, "flags", tmp.buf);
	sections(text, "arch", arch ? arch : "");
	sections(text, "nvcc", nvcc_version ? nvcc_version : "");
	astra_buf_release(&tmp);
	/*
	 * A key that does not cover every header the kernel can see must not
	 * be used: a variant could be substituted after one of them changed.
	 */
	if (!tu->search || !tu->search->host_known)
		return error("%s: the headers the kernel %s can see are not known (host compiler unknown): no key",
			     k->file, k->name);
	if (tu->includes.truncated)
		return error("%s: the kernel %s can see more headers than astra-cc follows (or one is unreadable): no key",
			     k->file, k->name);
	return 0;
}

int astra_key_compute(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		      const char *arch, const char *nvcc_version, struct astra_key *out, struct astra_buf *text)
{
	struct astra_buf own = ASTRA_BUF_INIT;
	struct astra_buf *b = text ? text : &own;
	size_t from = b->len;
	int ret = astra_key_text(tu, k, cl, arch, nvcc_version, b);
	astra_key_digest(b->buf + from, b->len - from, out);
	astra_buf_release(&own);
	return ret;
}

/* Write data to path atomically (temporary file, then rename). */
static int write_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd;
	/* Never through a link someone planted under the temporary name. */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t done = 0;
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			unlink(tmp);
			free(tmp);
			return -1;
		}
		done += (size_t)w;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int astra_key_nvcc_version(const char *nvcc, const char *cache_dir, struct astra_buf *out)
{
	char *argv[3];
	char *memo = cache_dir && *cache_dir ? xasprintf("%s/nvcc-version", cache_dir) : NULL;
	int ret;
	argv[0] = (char *)nvcc;
	argv[1] = "--version";
	argv[2] = NULL;
	ret = astra_toolmemo_run(argv, ASTRA_TOOLMEMO_STDOUT, NULL, memo, out);
	free(memo);
	return ret;
}

int astra_key_write_debug(const char *output, const char *text)
{
	char *path = xasprintf("%s.astra-key.txt", output);
	int ret = write_atomic(path, text, strlen(text));
	if (ret < 0)
		error("cannot write %s: %s", path, strerror(errno));
	free(path);
	return ret;
}
