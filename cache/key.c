/*
 * key.c - the kernel key (see key.h).
 *
 * Separate from extraction so that what enters the key is decided in one
 * place, readable as a list of sections; the extractor only provides the
 * material (normalized token texts, the header closure).  The only file
 * that includes xxhash.h.
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

#ifdef ASTRA_XXH_INLINE
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "astra-cc/log.h"
#include "astra-cc/toolmemo.h"
#include "cache/key.h"

void astra_key_digest(const void *data, size_t len, struct astra_key *out)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	XXH128_canonical_t c;
	size_t i;
	static const char hex[] = "0123456789abcdef";
	XXH128_canonicalFromHash(&c, h);
	memcpy(out->hash, c.digest, 16);
	for (i = 0; i < 16; i++) {
		out->hex[2 * i] = hex[out->hash[i] >> 4];
		out->hex[2 * i + 1] = hex[out->hash[i] & 15];
	}
	out->hex[32] = '\0';
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
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
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

static void add_unique(struct astra_vec *out, const char *s)
{
	if (astra_vec_find(out, s) < 0)
		astra_vec_push(out, s);
}

/* Add the sm_XX entries of a -code / -gencode code= list. */
static void add_codes(struct astra_vec *out, const char *list)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	for (tok = strtok_r(copy, ",[]", &save); tok; tok = strtok_r(NULL, ",[]", &save))
		if (astra_starts_with(tok, "sm_"))
			add_unique(out, tok);
	free(copy);
}

int astra_key_archs(const struct astra_cmdline *cl, struct astra_vec *out)
{
	size_t i;
	const char *arch = NULL;
	int have_code = 0, any = 0;
	for (i = 0; i < cl->device_flags.nr; i++) {
		const char *f = cl->device_flags.v[i];
		const char *v = strchr(f, '=');
		if (!v || !is_target_flag(f))
			continue;
		v++;
		any = 1;
		if (astra_starts_with(f, "--gpu-architecture=")) {
			arch = v;
		} else if (astra_starts_with(f, "--gpu-code=")) {
			have_code = 1;
			add_codes(out, v);
		} else if (astra_starts_with(f, "--generate-code=")) {
			const char *code = strstr(v, "code=");
			have_code = 1;
			if (code)
				add_codes(out, code + 5);
			else if (strstr(v, "arch=sm_"))
				add_codes(out, strstr(v, "arch=") + 5);
		}
	}
	if (arch && (!strcmp(arch, "native") || !strcmp(arch, "all") || !strcmp(arch, "all-major")))
		return -1;
	/* -arch=sm_XX alone means code=sm_XX,compute_XX; -arch=compute_XX alone is PTX only. */
	if (arch && !have_code)
		add_unique(out, arch);
	if (!any)
		add_unique(out, "default");
	return 0;
}

int astra_key_device_ccs(const struct astra_cmdline *cl, int *ccs, size_t max, size_t *nr)
{
	size_t i;
	*nr = 0;
	for (i = 0; i < cl->device_flags.nr; i++) {
		const char *f = cl->device_flags.v[i];
		const char *p = strchr(f, '=');
		if (!p || !is_target_flag(f))
			continue;
		p++;
		if (strstr(p, "native") || strstr(p, "all"))
			return -1;
		/* Every sm_XX, compute_XX, lto_XX: arch= and code= alike. */
		while (*p) {
			size_t skip = astra_starts_with(p, "sm_") ? 3 :
				      astra_starts_with(p, "compute_") ? 8 :
				      astra_starts_with(p, "lto_") ? 4 : 0;
			int cc, k, dup = 0;
			if (!skip || !isdigit((unsigned char)p[skip])) {
				p++;
				continue;
			}
			cc = atoi(p + skip);
			for (k = 0; k < (int)*nr; k++)
				dup |= ccs[k] == cc;
			if (!dup) {
				if (*nr == max)
					return -1;
				ccs[(*nr)++] = cc;
			}
			p += skip;
		}
	}
	return *nr ? 0 : -1;
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
