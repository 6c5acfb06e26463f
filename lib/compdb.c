/*
 * compdb.c - reading compile_commands.json (see compdb.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/compdb.h"
#include "lib/buf.h"
#include "lib/json.h"

/* Put the real nvcc first; drop wrappers in front of it.  -1: not nvcc. */
static int normalize(struct astra_vec *args, const char *nvcc)
{
	while (args->nr) {
		const char *base = astra_basename(args->v[0]);
		if (astra_starts_with(base, "nvcc")) {
			astra_vec_set(args, 0, nvcc);
			return 0;
		}
		if (!astra_starts_with(base, "astra-cc") && strcmp(base, "ccache") && strcmp(base, "sccache"))
			return -1;
		astra_vec_remove(args, 0);
		/* `astra-cc -c k.cu`: astra-cc standing in for nvcc. */
		if (args->nr && args->v[0][0] == '-') {
			astra_vec_insert(args, 0, nvcc);
			return 0;
		}
	}
	return -1;
}

int astra_compdb_load(const char *where, const char *nvcc, struct astra_compdb_entry **out, size_t *nr,
		      size_t *alloc)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_json *db;
	struct stat st;
	char *path;
	size_t i, k;

	if (stat(where, &st) == 0 && S_ISDIR(st.st_mode))
		path = xasprintf("%s/compile_commands.json", where);
	else
		path = xstrdup(where);
	if (astra_buf_read_file(&b, path, 0) < 0) {
		fprintf(stderr, "%s: cannot read %s: %s\n", astra_progname, path, strerror(errno));
		free(path);
		return -1;
	}
	db = astra_json_parse(b.buf, b.len);
	astra_buf_release(&b);
	if (!astra_json_is_array(db)) {
		fprintf(stderr, "%s: %s: not a compilation database (a JSON array)\n", astra_progname, path);
		astra_json_free(db);
		free(path);
		return -1;
	}
	for (i = 0; i < astra_json_len(db); i++) {
		const struct astra_json *e = astra_json_at(db, i);
		const char *dir = astra_json_get_str(e, "directory"), *file = astra_json_get_str(e, "file");
		const char *command = astra_json_get_str(e, "command");
		const struct astra_json *arguments = astra_json_get(e, "arguments");
		struct astra_compdb_entry c;
		if (!dir || !file || !astra_ends_with(file, ".cu"))
			continue;
		astra_vec_init(&c.argv);
		if (command)
			astra_vec_split_shell(&c.argv, command);
		else
			for (k = 0; k < astra_json_len(arguments); k++)
				if (astra_json_str(astra_json_at(arguments, k)))
					astra_vec_push(&c.argv, astra_json_str(astra_json_at(arguments, k)));
		if (normalize(&c.argv, nvcc) < 0) {
			astra_vec_clear(&c.argv);
			continue;
		}
		c.dir = xstrdup(dir);
		c.file = xstrdup(file);
		ALLOC_GROW(*out, *nr + 1, *alloc);
		(*out)[(*nr)++] = c;
	}
	astra_json_free(db);
	free(path);
	return 0;
}

void astra_compdb_free(struct astra_compdb_entry *v, size_t nr)
{
	size_t i;
	for (i = 0; i < nr; i++) {
		free(v[i].dir);
		free(v[i].file);
		astra_vec_clear(&v[i].argv);
	}
	free(v);
}
