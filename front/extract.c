/*
 * extract.c - finding annotated kernels with libclang (see extract.h).
 *
 * This is the only file that includes clang-c/Index.h (and the only one
 * that loads libclang, at the first extraction): the rest of astra-cc sees
 * front/kernel.h.  It is separate from everything else
 * because libclang is the one heavy, version-dependent dependency; the
 * adapter builds against the headers of libclang 14 and runs with 14 or
 * 16 (the GPU host), using only calls both have.
 *
 * How: each file is parsed on its own (SingleFileParse | KeepGoing, so
 * #include lines are not followed and errors about undeclared names do not
 * stop anything) as CUDA host code with function bodies skipped; the CUDA
 * keywords come from a few -D definitions, since the CUDA headers are not
 * read.  The AST gives the declarations and their extents; libclang's
 * token stream of the whole file gives the rest: the pragma lines (clang
 * drops unknown pragmas), function bodies (matched braces, ignoring
 * regions the preprocessor skipped), macros, launch sites and the text
 * the key hashes.  A file with 2,000 lines takes a few milliseconds.
 */
#include "autoconfig.h"

#include <clang-c/Index.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "lib/vec.h"
#include "front/extract.h"
#include "front/lex.h"
#include "front/types.h"


/*
 * libclang is loaded with dlopen() the first time a file is extracted,
 * not linked: loading and relocating libclang and libLLVM takes tens of
 * milliseconds, and the driver starts on every compile, annotated or not
 * (DESIGN.md, invariant 6).  The calls below keep their names: each
 * clang_* is a macro for a pointer that dlsym() fills, typed from the
 * prototype in clang-c/Index.h.  The library is the one configure found
 * (ASTRA_LIBCLANG_PATH), or $ASTRA_CC_LIBCLANG.
 */
#define LIBCLANG_FUNCTIONS(X) \
	X(clang_Cursor_hasAttrs) \
	X(clang_File_isEqual) \
	X(clang_createIndex) \
	X(clang_disposeIndex) \
	X(clang_disposeSourceRangeList) \
	X(clang_disposeString) \
	X(clang_disposeTokens) \
	X(clang_disposeTranslationUnit) \
	X(clang_getCString) \
	X(clang_getCanonicalType) \
	X(clang_getCursorExtent) \
	X(clang_getCursorKind) \
	X(clang_getCursorKindSpelling) \
	X(clang_getCursorLocation) \
	X(clang_getCursorSemanticParent) \
	X(clang_getCursorSpelling) \
	X(clang_getCursorType) \
	X(clang_getExpansionLocation) \
	X(clang_getFile) \
	X(clang_getLocationForOffset) \
	X(clang_getPointeeType) \
	X(clang_getRange) \
	X(clang_getRangeEnd) \
	X(clang_getRangeStart) \
	X(clang_getSkippedRanges) \
	X(clang_getSpellingLocation) \
	X(clang_getTokenKind) \
	X(clang_getTokenLocation) \
	X(clang_getTranslationUnitCursor) \
	X(clang_getTypeSpelling) \
	X(clang_isConstQualifiedType) \
	X(clang_isPreprocessing) \
	X(clang_parseTranslationUnit2) \
	X(clang_tokenize) \
	X(clang_visitChildren)

#define DECLARE(f) static __typeof__(&f) p_##f;
LIBCLANG_FUNCTIONS(DECLARE)
#undef DECLARE

#define SLOT(f) { #f, (void **)&p_##f },
static const struct {
	const char *name;
	void **slot;
} libclang_symbols[] = { LIBCLANG_FUNCTIONS(SLOT) };
#undef SLOT

#define clang_Cursor_hasAttrs (*p_clang_Cursor_hasAttrs)
#define clang_File_isEqual (*p_clang_File_isEqual)
#define clang_createIndex (*p_clang_createIndex)
#define clang_disposeIndex (*p_clang_disposeIndex)
#define clang_disposeSourceRangeList (*p_clang_disposeSourceRangeList)
#define clang_disposeString (*p_clang_disposeString)
#define clang_disposeTokens (*p_clang_disposeTokens)
#define clang_disposeTranslationUnit (*p_clang_disposeTranslationUnit)
#define clang_getCString (*p_clang_getCString)
#define clang_getCanonicalType (*p_clang_getCanonicalType)
#define clang_getCursorExtent (*p_clang_getCursorExtent)
#define clang_getCursorKind (*p_clang_getCursorKind)
#define clang_getCursorKindSpelling (*p_clang_getCursorKindSpelling)
#define clang_getCursorLocation (*p_clang_getCursorLocation)
#define clang_getCursorSemanticParent (*p_clang_getCursorSemanticParent)
#define clang_getCursorSpelling (*p_clang_getCursorSpelling)
#define clang_getCursorType (*p_clang_getCursorType)
#define clang_getExpansionLocation (*p_clang_getExpansionLocation)
#define clang_getFile (*p_clang_getFile)
#define clang_getLocationForOffset (*p_clang_getLocationForOffset)
#define clang_getPointeeType (*p_clang_getPointeeType)
#define clang_getRange (*p_clang_getRange)
#define clang_getRangeEnd (*p_clang_getRangeEnd)
#define clang_getRangeStart (*p_clang_getRangeStart)
#define clang_getSkippedRanges (*p_clang_getSkippedRanges)
#define clang_getSpellingLocation (*p_clang_getSpellingLocation)
#define clang_getTokenKind (*p_clang_getTokenKind)
#define clang_getTokenLocation (*p_clang_getTokenLocation)
#define clang_getTranslationUnitCursor (*p_clang_getTranslationUnitCursor)
#define clang_getTypeSpelling (*p_clang_getTypeSpelling)
#define clang_isConstQualifiedType (*p_clang_isConstQualifiedType)
#define clang_isPreprocessing (*p_clang_isPreprocessing)
#define clang_parseTranslationUnit2 (*p_clang_parseTranslationUnit2)
#define clang_tokenize (*p_clang_tokenize)
#define clang_visitChildren (*p_clang_visitChildren)

static int libclang_state; /* 1: loaded, -1: cannot be loaded */

static void libclang_open(void)
{
	const char *candidates[4];
	void *h = NULL;
	size_t i, n = 0;

	libclang_state = -1;
	if (getenv("ASTRA_CC_LIBCLANG") && *getenv("ASTRA_CC_LIBCLANG"))
		candidates[n++] = getenv("ASTRA_CC_LIBCLANG");
	candidates[n++] = ASTRA_LIBCLANG_PATH;
	candidates[n++] = "libclang.so";
	candidates[n++] = "libclang.so.1";
	for (i = 0; i < n && !h; i++)
		h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		error("cannot load libclang (%s): %s", ASTRA_LIBCLANG_PATH, dlerror());
		return;
	}
	for (i = 0; i < ARRAY_SIZE(libclang_symbols); i++) {
		*libclang_symbols[i].slot = dlsym(h, libclang_symbols[i].name);
		if (!*libclang_symbols[i].slot) {
			error("libclang lacks %s", libclang_symbols[i].name);
			return;
		}
	}
	libclang_state = 1;
}

/* Load libclang once (thread-safe); 0, or -1 (logged) when it cannot be loaded. */
static int libclang_load(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, libclang_open);
	return libclang_state > 0 ? 0 : -1;
}

/* ------------------------------------------------------------ the file model */

struct ftok {
	enum astra_tok_kind kind;
	size_t off, len;
	unsigned line, col;
	long dir;       /* the directive it belongs to, or -1 */
	int skipped;    /* in a region the preprocessor skipped */
};

struct directive {
	size_t first, last;   /* token indexes, inclusive */
	size_t start, end;    /* bytes: from '#' to the end of the (continued) line */
	int is_astra;         /* #pragma astra, or the ASTRA(...) annotation macro */
	int is_macro;         /* ASTRA(...): its tokens are [first, last], no '#' */
	size_t text_start, text_end; /* bytes of the clauses (after `astra`, inside the parentheses) */
	int used;             /* attached to a kernel */
};

enum def_kind { DEF_FUNC, DEF_TYPE, DEF_VAR, DEF_MACRO };

/* A file-scope definition the kernel may depend on. */
struct def {
	char *name;
	size_t start, end;    /* bytes */
	size_t t0, t1;        /* tokens [t0, t1) */
	enum def_kind kind;
	int always;           /* a __device__ operator: no name leads to it */
	int mark;             /* in the closure being computed */
	/*
	 * Declarations get their range only when a kernel needs them:
	 * clang_getCursorExtent re-lexes the last token, and host code has
	 * many declarations no kernel uses.
	 */
	int lazy;
	CXCursor cursor;
	size_t linkage_start; /* (size_t)-1, or where its `extern "C"` starts */
};

struct nameref {
	char *name;
	size_t def;
	long next;
};

/* A __global__ function the AST shows. */
struct kcand {
	CXCursor cursor;
	size_t start, end;    /* the whole definition, bytes */
	size_t body;          /* offset of '{' */
	int extern_c;         /* as struct astra_kernel */
	int is_template;
	int from_macro;       /* its name is not written at its location */
};

struct file {
	const char *path;
	const char *text;
	size_t len;
	size_t *lines;        /* offsets of line starts */
	size_t nr_lines;
	struct ftok *toks;
	size_t nr_toks;
	struct directive *dirs;
	size_t nr_dirs, alloc_dirs;
	struct def *defs;
	size_t nr_defs, alloc_defs;
	struct nameref *refs;
	size_t nr_refs, alloc_refs;
	long buckets[1024];
	struct kcand *kc;
	size_t nr_kc, alloc_kc;
	CXTranslationUnit tu;
	CXFile cxf;
	char *patched;        /* the text libclang parsed, where it differs (find_swallowing) */
};

static void file_release(struct file *f)
{
	size_t i;
	for (i = 0; i < f->nr_defs; i++)
		free(f->defs[i].name);
	for (i = 0; i < f->nr_refs; i++)
		free(f->refs[i].name);
	free(f->defs);
	free(f->refs);
	free(f->lines);
	free(f->toks);
	free(f->dirs);
	free(f->kc);
	free(f->patched);
	if (f->tu)
		clang_disposeTranslationUnit(f->tu);
}

static void line_col(const struct file *f, size_t off, unsigned *line, unsigned *col)
{
	size_t lo = 0, hi = f->nr_lines;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (f->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (unsigned)lo + 1;
	*col = (unsigned)(off - f->lines[lo]) + 1;
}

static int tok_is(const struct file *f, size_t i, const char *s)
{
	size_t n = strlen(s);
	return i < f->nr_toks && f->toks[i].len == n && !memcmp(f->text + f->toks[i].off, s, n);
}

static char *tok_dup(const struct file *f, size_t i)
{
	return xstrndup(f->text + f->toks[i].off, f->toks[i].len);
}

/* Index of the first token at or after byte off. */
static size_t tok_at(const struct file *f, size_t off)
{
	size_t lo = 0, hi = f->nr_toks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->toks[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A token that the parser saw as code: not a comment, directive or skipped. */
static int is_code(const struct file *f, size_t i)
{
	const struct ftok *t = &f->toks[i];
	return t->kind != ASTRA_TOK_COMMENT && t->dir < 0 && !t->skipped;
}

static size_t next_code(const struct file *f, size_t i)
{
	while (i < f->nr_toks && !is_code(f, i))
		i++;
	return i;
}

static int is_ident_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

static unsigned hash_name(const char *s, size_t n)
{
	unsigned h = 2166136261u;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h % 1024;
}

static void add_ref(struct file *f, const char *name, size_t n, size_t def)
{
	unsigned h;
	if (!n)
		return;
	h = hash_name(name, n);
	ALLOC_GROW(f->refs, f->nr_refs + 1, f->alloc_refs);
	f->refs[f->nr_refs].name = xstrndup(name, n);
	f->refs[f->nr_refs].def = def;
	f->refs[f->nr_refs].next = f->buckets[h];
	f->buckets[h] = (long)f->nr_refs;
	f->nr_refs++;
}

static size_t add_def(struct file *f, const char *name, size_t start, size_t end, enum def_kind kind)
{
	struct def *d;
	ALLOC_GROW(f->defs, f->nr_defs + 1, f->alloc_defs);
	d = &f->defs[f->nr_defs];
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(name);
	d->start = start;
	d->end = end;
	d->t0 = tok_at(f, start);
	d->t1 = tok_at(f, end);
	d->kind = kind;
	d->linkage_start = (size_t)-1;
	add_ref(f, name, strlen(name), f->nr_defs);
	return f->nr_defs++;
}

/* A declaration whose range is computed when needed (resolve_def). */
static size_t add_lazy_def(struct file *f, const char *name, CXCursor c, enum def_kind kind, size_t linkage_start)
{
	size_t d = add_def(f, name, 0, 0, kind);
	f->defs[d].lazy = 1;
	f->defs[d].cursor = c;
	f->defs[d].linkage_start = linkage_start;
	return d;
}

/* ------------------------------------------------------------ tokens */

static enum astra_tok_kind tok_kind(CXTokenKind k)
{
	switch (k) {
	case CXToken_Punctuation:
		return ASTRA_TOK_PUNCT;
	case CXToken_Keyword:
		return ASTRA_TOK_KEYWORD;
	case CXToken_Identifier:
		return ASTRA_TOK_IDENT;
	case CXToken_Literal:
		return ASTRA_TOK_LITERAL;
	default:
		return ASTRA_TOK_COMMENT;
	}
}

/* Offset of a location in this file (the expansion point for macros), or -1. */
static long file_offset(const struct file *f, CXSourceLocation loc)
{
	CXFile file;
	unsigned line, col, off;
	clang_getExpansionLocation(loc, &file, &line, &col, &off);
	if (!file || !clang_File_isEqual(file, f->cxf))
		return -1;
	return (long)off;
}

/* End of a directive that starts at off: the newline not escaped by '\'. */
static size_t directive_end(const struct file *f, size_t off)
{
	const char *s = f->text;
	size_t i = off;
	for (;;) {
		const char *nl = memchr(s + i, '\n', f->len - i);
		size_t j;
		if (!nl)
			return f->len;
		j = (size_t)(nl - s);
		/* backslash, optional blanks or \r, newline: continued */
		{
			size_t k = j;
			while (k > off && (s[k - 1] == ' ' || s[k - 1] == '\t' || s[k - 1] == '\r'))
				k--;
			if (k > off && s[k - 1] == '\\') {
				i = j + 1;
				continue;
			}
		}
		return j;
	}
}

/* Is off the first non-blank of a logical line (not after a continuation)? */
static int starts_line(const struct file *f, size_t off)
{
	const char *s = f->text;
	size_t k;
	while (off > 0 && (s[off - 1] == ' ' || s[off - 1] == '\t'))
		off--;
	if (off == 0)
		return 1;
	if (s[off - 1] != '\n')
		return 0;
	k = off - 1;
	while (k > 0 && (s[k - 1] == '\r' || s[k - 1] == ' ' || s[k - 1] == '\t'))
		k--;
	return k == 0 || s[k - 1] != '\\';
}

static size_t match_close(const struct file *f, size_t i, int code_only);

/*
 * The annotation macro (doc/pragma.md): `ASTRA(clauses)` on a line of its
 * own says what `#pragma astra clauses` says.  It expands to nothing
 * (astra-cc.h), so host compilers see no pragma to warn about.  Each one
 * becomes a directive of its own (is_macro), so that everything that walks
 * directives (attaching them to kernels, telling code from the rest) treats
 * both spellings alike.  The directives stay in file order.
 */
static void add_annotation_macros(struct file *f)
{
	struct directive *add = NULL, *all;
	size_t nr_add = 0, alloc_add = 0, i, a, d, n;
	long *renum;

	for (i = 0; i + 1 < f->nr_toks; i++) {
		const struct ftok *t = &f->toks[i];
		size_t open = i + 1, close, k;
		int clean = 1;
		if (t->kind != ASTRA_TOK_IDENT || t->dir >= 0 || !tok_is(f, i, "ASTRA") || !starts_line(f, t->off))
			continue;
		while (open < f->nr_toks && f->toks[open].kind == ASTRA_TOK_COMMENT)
			open++;
		if (!tok_is(f, open, "("))
			continue;
		close = match_close(f, open, 0);
		if (close >= f->nr_toks)
			continue;
		for (k = i; k <= close; k++)
			clean &= f->toks[k].dir < 0;
		if (!clean)
			continue;
		ALLOC_GROW(add, nr_add + 1, alloc_add);
		memset(&add[nr_add], 0, sizeof(add[0]));
		add[nr_add].first = i;
		add[nr_add].last = close;
		add[nr_add].start = t->off;
		add[nr_add].end = f->toks[close].off + 1;
		add[nr_add].is_astra = add[nr_add].is_macro = 1;
		add[nr_add].text_start = f->toks[open].off + 1;
		add[nr_add].text_end = f->toks[close].off;
		nr_add++;
		i = close;
	}
	if (!nr_add)
		return;
	/* Merge by position and renumber the tokens' directives. */
	n = f->nr_dirs + nr_add;
	all = xcalloc(n, sizeof(*all));
	renum = xcalloc(f->nr_dirs + 1, sizeof(*renum));
	for (i = a = d = 0; i < n; i++) {
		if (d < f->nr_dirs && (a >= nr_add || f->dirs[d].start < add[a].start)) {
			renum[d] = (long)i;
			all[i] = f->dirs[d++];
		} else {
			all[i] = add[a++];
		}
	}
	for (i = 0; i < f->nr_toks; i++)
		if (f->toks[i].dir >= 0)
			f->toks[i].dir = renum[f->toks[i].dir];
	for (i = 0; i < n; i++) {
		size_t k;
		for (k = all[i].first; all[i].is_macro && k <= all[i].last; k++)
			f->toks[k].dir = (long)i;
	}
	free(f->dirs);
	f->dirs = all;
	f->nr_dirs = f->alloc_dirs = n;
	free(renum);
	free(add);
}

static void tokenize(struct file *f)
{
	CXSourceRange all;
	CXToken *toks = NULL;
	unsigned nr = 0, i;
	size_t l, line_idx = 0;
	CXSourceRangeList *skipped;
	long cur_dir = -1;

	/* Line starts, for offset -> line:col. */
	f->nr_lines = 1;
	for (l = 0; l < f->len; l++)
		if (f->text[l] == '\n')
			f->nr_lines++;
	f->lines = xmalloc(f->nr_lines * sizeof(*f->lines));
	f->lines[0] = 0;
	for (l = 0, i = 1; l < f->len; l++)
		if (f->text[l] == '\n')
			f->lines[i++] = l + 1;

	all = clang_getRange(clang_getLocationForOffset(f->tu, f->cxf, 0),
			     clang_getLocationForOffset(f->tu, f->cxf, (unsigned)f->len));
	clang_tokenize(f->tu, all, &toks, &nr);
	f->toks = xcalloc(nr ? nr : 1, sizeof(*f->toks));
	/*
	 * Token starts come from libclang; ends are computed as the next
	 * token's start less the blanks before it, since only blanks (and
	 * backslash-newlines) separate tokens when comments are tokens too.
	 * clang_getTokenExtent re-lexes every token and cost half the time.
	 */
	for (i = 0; i < nr; i++) {
		unsigned off0;
		struct ftok *t = &f->toks[f->nr_toks];
		clang_getSpellingLocation(clang_getTokenLocation(f->tu, toks[i]), NULL, NULL, NULL, &off0);
		if (off0 >= f->len || (f->nr_toks && off0 < f->toks[f->nr_toks - 1].off))
			continue;
		t->kind = tok_kind(clang_getTokenKind(toks[i]));
		t->off = off0;
		f->nr_toks++;
	}
	for (i = 0; i < f->nr_toks; i++) {
		struct ftok *t = &f->toks[i];
		size_t end = i + 1 < f->nr_toks ? f->toks[i + 1].off : f->len;
		while (end > t->off + 1) {
			char c = f->text[end - 1];
			if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')
				end--;
			else if (c == '\n' && end - 2 > t->off && f->text[end - 2] == '\\')
				end -= 2;
			else if (c == '\n')
				end--;
			else
				break;
		}
		t->len = end - t->off;
		if (line_idx + 1 < f->nr_lines && f->lines[line_idx + 1] <= t->off)
			line_col(f, t->off, &t->line, &t->col), line_idx = t->line - 1;
		else
			t->line = (unsigned)line_idx + 1, t->col = (unsigned)(t->off - f->lines[line_idx]) + 1;
		t->dir = -1;
		/* A '#' that starts a logical line starts a directive. */
		if (cur_dir >= 0 && t->off > f->dirs[cur_dir].end)
			cur_dir = -1;
		if (cur_dir < 0 && t->kind == ASTRA_TOK_PUNCT && t->len == 1 && f->text[t->off] == '#' &&
		    starts_line(f, t->off)) {
			struct directive *d;
			ALLOC_GROW(f->dirs, f->nr_dirs + 1, f->alloc_dirs);
			d = &f->dirs[f->nr_dirs];
			memset(d, 0, sizeof(*d));
			d->first = d->last = i;
			d->start = t->off;
			d->end = directive_end(f, t->off);
			cur_dir = (long)f->nr_dirs++;
		}
		if (cur_dir >= 0) {
			t->dir = cur_dir;
			f->dirs[cur_dir].last = i;
		}
	}
	clang_disposeTokens(f->tu, toks, nr);

	/* #pragma astra directives. */
	for (l = 0; l < f->nr_dirs; l++) {
		struct directive *d = &f->dirs[l];
		if (d->first + 2 <= d->last && tok_is(f, d->first + 1, "pragma") && tok_is(f, d->first + 2, "astra")) {
			d->is_astra = 1;
			d->text_start = f->toks[d->first + 2].off + f->toks[d->first + 2].len;
			d->text_end = d->end;
		}
	}
	add_annotation_macros(f);

	/* Regions the preprocessor skipped (#if 0, the #else of a true #if). */
	skipped = clang_getSkippedRanges(f->tu, f->cxf);
	if (skipped) {
		for (i = 0; i < skipped->count; i++) {
			unsigned a, b;
			size_t t;
			clang_getSpellingLocation(clang_getRangeStart(skipped->ranges[i]), NULL, NULL, NULL, &a);
			clang_getSpellingLocation(clang_getRangeEnd(skipped->ranges[i]), NULL, NULL, NULL, &b);
			for (t = tok_at(f, a); t < f->nr_toks && f->toks[t].off < b; t++)
				f->toks[t].skipped = 1;
		}
		clang_disposeSourceRangeList(skipped);
	}
}

/*
 * The text the key hashes for tokens [t0, t1): no comments, one blank
 * between tokens, every directive on a line of its own.
 */
static char *normalize(const struct file *f, size_t t0, size_t t1)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	long prev_dir = -1;
	size_t i;
	int first = 1;
	for (i = t0; i < t1 && i < f->nr_toks; i++) {
		const struct ftok *t = &f->toks[i];
		if (t->kind == ASTRA_TOK_COMMENT)
			continue;
		if (!first) {
			if (t->dir != prev_dir)
				astra_buf_addch(&b, '\n');
			else
				astra_buf_addch(&b, ' ');
		} else if (t->dir >= 0) {
			astra_buf_addch(&b, '\n');
		}
		first = 0;
		astra_buf_add(&b, f->text + t->off, t->len);
		prev_dir = t->dir;
	}
	if (prev_dir >= 0)
		astra_buf_addch(&b, '\n');
	return astra_buf_detach(&b, NULL);
}

/* Source text [start, end) with comments dropped and blank runs made one blank. */
static char *tokens_text(const struct file *f, size_t start, size_t end)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i = tok_at(f, start);
	size_t prev_end = 0;
	for (; i < f->nr_toks && f->toks[i].off + f->toks[i].len <= end; i++) {
		const struct ftok *t = &f->toks[i];
		if (t->kind == ASTRA_TOK_COMMENT)
			continue;
		if (b.len && t->off > prev_end)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, f->text + t->off, t->len);
		prev_end = t->off + t->len;
	}
	return astra_buf_detach(&b, NULL);
}

/* Index of the token that closes the bracket at i (same kind), or nr_toks. */
static size_t match_close(const struct file *f, size_t i, int code_only)
{
	char open = f->text[f->toks[i].off];
	char close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : '>';
	long depth = 0;
	for (; i < f->nr_toks; i++) {
		const struct ftok *t = &f->toks[i];
		if (t->kind != ASTRA_TOK_PUNCT || t->len != 1 || (code_only && !is_code(f, i)))
			continue;
		if (f->text[t->off] == open)
			depth++;
		else if (f->text[t->off] == close && --depth == 0)
			return i;
	}
	return f->nr_toks;
}

/* ------------------------------------------------------------ the AST */

struct visit {
	struct file *f;
	int extern_c;
	size_t linkage_start;
};

static enum CXChildVisitResult find_attr(CXCursor c, CXCursor parent, CXClientData data)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	(void)parent;
	if (k == CXCursor_CUDAGlobalAttr)
		*(int *)data |= 1;
	else if (k == CXCursor_CUDADeviceAttr)
		*(int *)data |= 2;
	else if (k == CXCursor_CUDAHostAttr)
		*(int *)data |= 4;
	return CXChildVisit_Continue;
}

static int cuda_attrs(CXCursor c)
{
	int attrs = 0;
	clang_visitChildren(c, find_attr, &attrs);
	return attrs;
}

static char *spelling(CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	char *r = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");
	clang_disposeString(s);
	return r;
}

/* Extent of a cursor in this file; 0 when it is elsewhere. */
static int extent(const struct file *f, CXCursor c, size_t *start, size_t *end)
{
	CXSourceRange r = clang_getCursorExtent(c);
	long a = file_offset(f, clang_getRangeStart(r));
	long b = file_offset(f, clang_getRangeEnd(r));
	if (a < 0 || b < a)
		return 0;
	*start = (size_t)a;
	*end = (size_t)b;
	return 1;
}

/* Extend the end of a declaration over the ';' that follows it. */
static size_t over_semicolon(const struct file *f, size_t end)
{
	size_t i = next_code(f, tok_at(f, end));
	if (i < f->nr_toks && tok_is(f, i, ";"))
		return f->toks[i].off + 1;
	return end;
}

/*
 * Where a function ends: after its body when the next code token is '{'
 * (bodies are skipped by the parser, so the extent stops before them).
 * *body gets the offset of the '{', or (size_t)-1 for a declaration.
 */
static size_t function_end(const struct file *f, size_t end, size_t *body)
{
	size_t i = next_code(f, tok_at(f, end)), j;
	*body = (size_t)-1;
	if (i < f->nr_toks && tok_is(f, i, "{")) {
		j = match_close(f, i, 1);
		if (j >= f->nr_toks)
			return end;
		*body = f->toks[i].off;
		return f->toks[j].off + 1;
	}
	if (i < f->nr_toks && tok_is(f, i, ";"))
		return f->toks[i].off + 1;
	return end;
}

/* Compute the range of a lazy def: the whole declaration, body or ';' included. */
static void resolve_def(struct file *f, struct def *d)
{
	size_t start, end, body;
	if (!d->lazy)
		return;
	d->lazy = 0;
	if (!extent(f, d->cursor, &start, &end)) {
		d->start = d->end = d->t0 = d->t1 = 0;
		return;
	}
	if (d->kind == DEF_FUNC)
		end = function_end(f, end, &body);
	else
		end = over_semicolon(f, end);
	if (d->linkage_start != (size_t)-1)
		start = d->linkage_start;
	d->start = start;
	d->end = end;
	d->t0 = tok_at(f, start);
	d->t1 = tok_at(f, end);
}

static enum CXChildVisitResult visit_enum(CXCursor c, CXCursor parent, CXClientData data)
{
	struct file *f = data;
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl) {
		char *n = spelling(c);
		add_ref(f, n, strlen(n), f->nr_defs - 1);
		free(n);
	}
	return CXChildVisit_Continue;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data);

/* Is this cursor `extern "C"`?  1: on one declaration, 2: a { } block. */
static int linkage_c(const struct file *f, size_t start)
{
	size_t i = tok_at(f, start);
	if (!tok_is(f, i, "extern") || !tok_is(f, i + 1, "\"C\""))
		return 0;
	return tok_is(f, next_code(f, i + 2), "{") ? 2 : 1;
}

static void add_function(struct visit *V, CXCursor c, enum CXCursorKind k)
{
	struct file *f = V->f;
	size_t body, full, d, start, end;
	char *name = spelling(c);
	/* Host code has no attributes: skip the walk over its children. */
	int attrs = k == CXCursor_FunctionTemplate || clang_Cursor_hasAttrs(c) ? cuda_attrs(c) : 0;

	d = add_lazy_def(f, name, c, DEF_FUNC, V->extern_c == 1 ? V->linkage_start : (size_t)-1);
	if (astra_starts_with(name, "operator") && !is_ident_char(name[8]))
		f->defs[d].always = (attrs & 2) != 0;
	/* Out-of-line members: reachable through their class's name too. */
	if (k == CXCursor_CXXMethod || k == CXCursor_Constructor || k == CXCursor_Destructor ||
	    k == CXCursor_ConversionFunction) {
		char *cls = spelling(clang_getCursorSemanticParent(c));
		add_ref(f, cls, strlen(cls), d);
		free(cls);
	}
	if ((k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate) && (attrs & 1) &&
	    extent(f, c, &start, &end)) {
		struct kcand *kc;
		size_t at;
		long name_off = file_offset(f, clang_getCursorLocation(c));
		int from_macro;
		full = function_end(f, end, &body);
		at = name_off >= 0 ? tok_at(f, (size_t)name_off) : f->nr_toks;
		from_macro = at >= f->nr_toks || f->toks[at].off != (size_t)name_off || !tok_is(f, at, name);
		/* A declaration is no candidate; a macro's expansion hides the body. */
		if (body == (size_t)-1 && !from_macro) {
			free(name);
			return;
		}
		ALLOC_GROW(f->kc, f->nr_kc + 1, f->alloc_kc);
		kc = &f->kc[f->nr_kc++];
		memset(kc, 0, sizeof(*kc));
		kc->cursor = c;
		kc->extern_c = V->extern_c;
		kc->start = V->extern_c == 1 ? V->linkage_start : start;
		kc->end = full;
		kc->body = body;
		kc->is_template = k == CXCursor_FunctionTemplate;
		kc->from_macro = from_macro;
		if (body == (size_t)-1)
			kc->body = full;
	}
	free(name);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct visit *V = data;
	struct file *f = V->f;
	enum CXCursorKind k = clang_getCursorKind(c);
	size_t start, end;
	char *name;
	(void)parent;

	if (clang_isPreprocessing(k) || file_offset(f, clang_getCursorLocation(c)) < 0)
		return CXChildVisit_Continue;
	switch (k) {
	case CXCursor_Namespace:
		clang_visitChildren(c, visit, V);
		break;
	case CXCursor_LinkageSpec:
	case CXCursor_UnexposedDecl: {
		struct visit inner = *V;
		int lc = extent(f, c, &start, &end) ? linkage_c(f, start) : 0;
		if (lc) {
			inner.extern_c = lc;
			inner.linkage_start = start;
		}
		clang_visitChildren(c, visit, &inner);
		break;
	}
	case CXCursor_FunctionDecl:
	case CXCursor_FunctionTemplate:
	case CXCursor_CXXMethod:
	case CXCursor_Constructor:
	case CXCursor_Destructor:
	case CXCursor_ConversionFunction:
		add_function(V, c, k);
		break;
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
	case CXCursor_ClassDecl:
	case CXCursor_ClassTemplate:
	case CXCursor_ClassTemplatePartialSpecialization:
	case CXCursor_EnumDecl:
	case CXCursor_TypedefDecl:
	case CXCursor_TypeAliasDecl:
	case CXCursor_TypeAliasTemplateDecl:
	case CXCursor_VarDecl:
		name = spelling(c);
		/* Anonymous types have names like "(unnamed struct at ...)". */
		if (strchr(name, ' ') || strchr(name, '('))
			name[0] = '\0';
		add_lazy_def(f, name, c, k == CXCursor_VarDecl ? DEF_VAR : DEF_TYPE,
			     V->extern_c == 1 ? V->linkage_start : (size_t)-1);
		if (k == CXCursor_EnumDecl)
			clang_visitChildren(c, visit_enum, f);
		free(name);
		break;
	default:
		break;
	}
	return CXChildVisit_Continue;
}

/* #define and #undef lines are definitions of their macro. */
static void add_macros(struct file *f)
{
	size_t i;
	for (i = 0; i < f->nr_dirs; i++) {
		const struct directive *d = &f->dirs[i];
		size_t n = d->first + 2;
		if (n <= d->last && (tok_is(f, d->first + 1, "define") || tok_is(f, d->first + 1, "undef")) &&
		    f->toks[n].kind == ASTRA_TOK_IDENT) {
			char *name = tok_dup(f, n);
			add_def(f, name, d->start, d->end, DEF_MACRO);
			free(name);
		}
	}
}

/* ------------------------------------------------------------ kernels */

struct children {
	CXCursor *params;
	size_t nr_params, alloc_params;
	CXCursor *tmpl;
	size_t nr_tmpl, alloc_tmpl;
};

static enum CXChildVisitResult collect_children(CXCursor c, CXCursor parent, CXClientData data)
{
	struct children *ch = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	(void)parent;
	if (k == CXCursor_ParmDecl) {
		ALLOC_GROW(ch->params, ch->nr_params + 1, ch->alloc_params);
		ch->params[ch->nr_params++] = c;
	} else if (k == CXCursor_TemplateTypeParameter || k == CXCursor_NonTypeTemplateParameter ||
		   k == CXCursor_TemplateTemplateParameter) {
		ALLOC_GROW(ch->tmpl, ch->nr_tmpl + 1, ch->alloc_tmpl);
		ch->tmpl[ch->nr_tmpl++] = c;
	}
	return CXChildVisit_Continue;
}

static int is_qualifier(const struct file *f, size_t i)
{
	return tok_is(f, i, "const") || tok_is(f, i, "volatile") || tok_is(f, i, "__restrict__") ||
	       tok_is(f, i, "__restrict") || tok_is(f, i, "restrict");
}

/* Append token i to b, with a blank if the source had one before it. */
static void add_tok(struct astra_buf *b, const struct file *f, size_t i, size_t *prev_end)
{
	if (b->len && f->toks[i].off > *prev_end)
		astra_buf_addch(b, ' ');
	astra_buf_add(b, f->text + f->toks[i].off, f->toks[i].len);
	*prev_end = f->toks[i].off + f->toks[i].len;
}

/*
 * One parameter: its type as written (without the name or a default
 * argument), and for pointers the pointee without its outermost cv and
 * restrict qualifiers.
 */
static void fill_param(const struct file *f, CXCursor c, struct astra_param *p)
{
	size_t start, end, i, t0, t1, name_tok = (size_t)-1, star = (size_t)-1, bracket = (size_t)-1;
	long name_off = file_offset(f, clang_getCursorLocation(c));
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t prev_end = 0;
	int depth = 0;
	CXType ct = clang_getCanonicalType(clang_getCursorType(c));

	memset(p, 0, sizeof(*p));
	p->name = spelling(c);
	if (!extent(f, c, &start, &end)) {
		p->type = xstrdup("");
		return;
	}
	t0 = tok_at(f, start);
	t1 = tok_at(f, end);
	/* The type's tokens: up to a top-level '=', without the name. */
	for (i = t0; i < t1; i++) {
		if (f->toks[i].kind == ASTRA_TOK_COMMENT)
			continue;
		if (tok_is(f, i, "(") || tok_is(f, i, "[") || tok_is(f, i, "<"))
			depth++;
		else if (tok_is(f, i, ")") || tok_is(f, i, "]") || tok_is(f, i, ">"))
			depth--;
		if (depth == 0 && tok_is(f, i, "="))
			break;
		if (p->name[0] && name_off >= 0 && f->toks[i].off == (size_t)name_off) {
			name_tok = i;
			continue;
		}
		if (depth == 0 && tok_is(f, i, "*"))
			star = i;
		if (depth == 1 && tok_is(f, i, "[") && bracket == (size_t)-1)
			bracket = i;
		add_tok(&b, f, i, &prev_end);
	}
	t1 = i;
	p->type = astra_buf_detach(&b, NULL);
	p->is_pointer = star != (size_t)-1 || bracket != (size_t)-1 || ct.kind == CXType_Pointer ||
			ct.kind == CXType_IncompleteArray || ct.kind == CXType_ConstantArray;
	if (!p->is_pointer)
		return;
	if (star == (size_t)-1 && bracket == (size_t)-1) {
		/* A pointer typedef: ask the AST for the pointee. */
		CXType pt = clang_getPointeeType(ct);
		CXString s = clang_getTypeSpelling(pt);
		const char *sp = clang_getCString(s);
		/* clang_getUnqualifiedType is libclang 16: strip the qualifiers by hand. */
		for (;;) {
			if (astra_starts_with(sp, "const "))
				sp += 6;
			else if (astra_starts_with(sp, "volatile "))
				sp += 9;
			else
				break;
		}
		p->elem_type = xstrdup(sp);
		clang_disposeString(s);
		p->is_const = clang_isConstQualifiedType(pt);
		return;
	}
	{
		/* The pointee: tokens before the last top-level '*' (or '['). */
		size_t stop = star != (size_t)-1 ? star : bracket, last_star = (size_t)-1;
		depth = 0;
		for (i = t0; i < stop; i++) {
			if (tok_is(f, i, "(") || tok_is(f, i, "<"))
				depth++;
			else if (tok_is(f, i, ")") || tok_is(f, i, ">"))
				depth--;
			else if (depth == 0 && tok_is(f, i, "*"))
				last_star = i;
		}
		prev_end = 0;
		for (i = t0; i < stop; i++) {
			if (f->toks[i].kind == ASTRA_TOK_COMMENT || i == name_tok)
				continue;
			/* cv on the outermost level of the pointee: after its last '*'. */
			if ((last_star == (size_t)-1 || i > last_star) && is_qualifier(f, i)) {
				if (tok_is(f, i, "const"))
					p->is_const = 1;
				continue;
			}
			add_tok(&b, f, i, &prev_end);
		}
		p->elem_type = astra_buf_detach(&b, NULL);
	}
	(void)t1;
}

/* Merge-sort-free: defs are few; insertion sort by start. */
static void sort_defs(size_t *idx, size_t n, const struct def *defs)
{
	size_t i, j;
	for (i = 1; i < n; i++) {
		size_t v = idx[i];
		for (j = i; j > 0 && defs[idx[j - 1]].start > defs[v].start; j--)
			idx[j] = idx[j - 1];
		idx[j] = v;
	}
}

struct work {
	struct file *f;
	size_t t0, t1;
};

struct closure {
	struct work *items;
	size_t nr, alloc;
	struct file *files[2];    /* where names are looked up: the kernel's file, then the main file */
	size_t kstart, kend;      /* the kernel itself, in files[0] */
};

static void push_work(struct closure *C, struct file *f, size_t t0, size_t t1)
{
	ALLOC_GROW(C->items, C->nr + 1, C->alloc);
	C->items[C->nr].f = f;
	C->items[C->nr].t0 = t0;
	C->items[C->nr].t1 = t1;
	C->nr++;
}

static void lookup(struct closure *C, const char *name, size_t n)
{
	int k;
	for (k = 0; k < 2; k++) {
		struct file *g = C->files[k];
		long r;
		if (!g || (k == 1 && g == C->files[0]))
			continue;
		for (r = g->buckets[hash_name(name, n)]; r >= 0; r = g->refs[r].next) {
			const struct nameref *ref = &g->refs[r];
			struct def *d;
			if (strlen(ref->name) != n || memcmp(ref->name, name, n))
				continue;
			d = &g->defs[ref->def];
			if (d->mark)
				continue;
			resolve_def(g, d);
			/* The kernel itself (or a def that contains it) is not a dependency. */
			if (k == 0 && d->start <= C->kstart && d->end >= C->kend)
				continue;
			d->mark = 1;
			push_work(C, g, d->t0, d->t1);
		}
	}
}

/* Mark the defs reachable from tokens [t0, t1) of the kernel's file. */
static void compute_closure(struct closure *C, size_t t0, size_t t1, const struct astra_kernel *k,
			    const size_t *pragma_dirs, size_t nr_pragma_dirs)
{
	size_t i, j;
	struct file *f = C->files[0];
	for (j = 0; j < 2; j++) {
		struct file *g = C->files[j];
		if (!g)
			continue;
		for (i = 0; i < g->nr_defs; i++)
			g->defs[i].mark = 0;
		for (i = 0; i < g->nr_defs; i++)
			if (g->defs[i].always) {
				resolve_def(g, &g->defs[i]);
				g->defs[i].mark = 1;
				push_work(C, g, g->defs[i].t0, g->defs[i].t1);
			}
	}
	push_work(C, f, t0, t1);
	for (i = 0; i < nr_pragma_dirs; i++)
		push_work(C, f, f->dirs[pragma_dirs[i]].first + (size_t)f->dirs[pragma_dirs[i]].is_macro,
			  f->dirs[pragma_dirs[i]].last + 1); /* not the macro's own name */
	(void)k;
	while (C->nr) {
		struct work w = C->items[--C->nr];
		for (i = w.t0; i < w.t1 && i < w.f->nr_toks; i++)
			if (w.f->toks[i].kind == ASTRA_TOK_IDENT)
				lookup(C, w.f->text + w.f->toks[i].off, w.f->toks[i].len);
	}
}

/* Copy the marked defs of g (outermost only, in file order) into k's deps. */
static void take_deps(struct astra_kernel *k, struct file *g)
{
	size_t *idx = NULL, n = 0, i, alloc = 0, kept = 0;
	for (i = 0; i < g->nr_defs; i++)
		if (g->defs[i].mark) {
			ALLOC_GROW(idx, n + 1, alloc);
			idx[n++] = i;
		}
	if (!n)
		return;
	sort_defs(idx, n, g->defs);
	k->deps = xrealloc(k->deps, (k->nr_deps + n) * sizeof(char *));
	k->dep_texts = xrealloc(k->dep_texts, (k->nr_deps + n) * sizeof(char *));
	k->dep_norms = xrealloc(k->dep_norms, (k->nr_deps + n) * sizeof(char *));
	k->dep_files = xrealloc(k->dep_files, (k->nr_deps + n) * sizeof(char *));
	for (i = 0; i < n; i++) {
		const struct def *d = &g->defs[idx[i]];
		size_t j;
		int nested = 0;
		/* Inside an earlier def (an anonymous struct inside its typedef): skip. */
		for (j = 0; j < kept; j++) {
			const struct def *o = &g->defs[idx[j]];
			if (o->start <= d->start && o->end >= d->end && (o->start != d->start || o->end != d->end || j < i))
				nested = 1;
		}
		if (nested)
			continue;
		idx[kept++] = idx[i];
		k->deps[k->nr_deps] = xstrdup(d->name);
		k->dep_texts[k->nr_deps] = xstrndup(g->text + d->start, d->end - d->start);
		k->dep_norms[k->nr_deps] = normalize(g, d->t0, d->t1);
		k->dep_files[k->nr_deps] = xstrdup(g->path);
		k->nr_deps++;
	}
	free(idx);
}

/* ------------------------------------------------------------ the environment */

/*
 * Text of tokens [t0, t1) without comments: one blank where the source had
 * blanks, and where it had a line break (a splice in a macro) a newline
 * with the next line's indentation.
 */
static char *env_text(const struct file *f, size_t t0, size_t t1)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i, prev_end = (size_t)-1;
	for (i = t0; i < t1 && i < f->nr_toks; i++) {
		const struct ftok *t = &f->toks[i];
		if (t->kind == ASTRA_TOK_COMMENT)
			continue;
		if (prev_end != (size_t)-1 && t->off > prev_end) {
			const char *nl = memchr(f->text + prev_end, '\n', t->off - prev_end);
			if (nl) {
				const char *ind = f->text + t->off;
				while (ind > nl + 1 && (ind[-1] == ' ' || ind[-1] == '\t'))
					ind--;
				astra_buf_addch(&b, '\n');
				astra_buf_add(&b, ind, (size_t)(f->text + t->off - ind));
			} else {
				astra_buf_addch(&b, ' ');
			}
		}
		astra_buf_add(&b, f->text + t->off, t->len);
		prev_end = t->off + t->len;
	}
	return astra_buf_detach(&b, NULL);
}

/* A `#define` directive's macro (0), or -1 when d is no definition this reader takes. */
static int env_macro(const struct file *f, const struct def *d, struct astra_macro *m)
{
	size_t t = d->t0, end = d->t1, i;
	memset(m, 0, sizeof(*m));
	if (!tok_is(f, t, "#") || !tok_is(f, t + 1, "define") || t + 2 >= end)
		return -1;
	m->name = tok_dup(f, t + 2);
	i = t + 3;
	/* function-like: a '(' right after the name, no blank between */
	if (i < end && tok_is(f, i, "(") && f->toks[i].off == f->toks[t + 2].off + f->toks[t + 2].len) {
		size_t alloc = 0;
		m->function_like = 1;
		for (i++; i < end && !tok_is(f, i, ")"); i++) {
			if (tok_is(f, i, ",") || f->toks[i].kind == ASTRA_TOK_COMMENT)
				continue;
			ALLOC_GROW(m->params, m->nr_params + 1, alloc);
			if (tok_is(f, i, "...")) {
				m->variadic = 1;
				m->params[m->nr_params++] = xstrdup("__VA_ARGS__");
			} else {
				m->params[m->nr_params++] = tok_dup(f, i);
			}
		}
		if (i >= end) {
			astra_macro_release(m);
			return -1;
		}
		i++;
	}
	m->body = env_text(f, i, end);
	return 0;
}

static const char *const decl_specifiers[] = {
	"__device__", "__host__", "__forceinline__", "__inline__", "inline", "static", "extern", "constexpr",
	"__noinline__", "__global__", "__attribute__", "template", "typename", "virtual", "friend", NULL,
};

static int is_specifier(const struct file *f, size_t i)
{
	const char *const *w;
	for (w = decl_specifiers; *w; w++)
		if (tok_is(f, i, *w))
			return 1;
	return 0;
}

/* A __device__ function (0), or -1 when it is a declaration or not one the rules could inline. */
static int env_func(const struct file *f, const struct def *d, struct astra_func *fn)
{
	enum CXCursorKind k = clang_getCursorKind(d->cursor);
	struct children ch;
	size_t s, e, body, full, i, t0, name_tok;
	long name_off;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t prev_end = 0;
	int attrs;

	memset(fn, 0, sizeof(*fn));
	if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate)
		return -1;
	attrs = cuda_attrs(d->cursor);
	if (!(attrs & 2) || (attrs & 1) || !extent(f, d->cursor, &s, &e))
		return -1;
	full = function_end(f, e, &body);
	name_off = file_offset(f, clang_getCursorLocation(d->cursor));
	if (body == (size_t)-1 || name_off < 0)
		return -1;
	name_tok = tok_at(f, (size_t)name_off);
	t0 = tok_at(f, s);
	/* the return type: the tokens before the name, template head and specifiers dropped */
	if (tok_is(f, t0, "template") && tok_is(f, next_code(f, t0 + 1), "<"))
		t0 = match_close(f, next_code(f, t0 + 1), 1) + 1;
	for (i = t0; i < name_tok && i < f->nr_toks; i++) {
		if (f->toks[i].kind == ASTRA_TOK_COMMENT)
			continue;
		if (tok_is(f, i, "__attribute__") || tok_is(f, i, "__launch_bounds__")) {
			size_t o = next_code(f, i + 1);
			if (tok_is(f, o, "("))
				i = match_close(f, o, 1);
			continue;
		}
		if (is_specifier(f, i))
			continue;
		add_tok(&b, f, i, &prev_end);
	}
	fn->ret = astra_buf_detach(&b, NULL);
	fn->name = spelling(d->cursor);
	fn->is_device = 1;
	fn->is_template = k == CXCursor_FunctionTemplate;
	fn->body = xstrndup(f->text + body, full - body);
	memset(&ch, 0, sizeof(ch));
	clang_visitChildren(d->cursor, collect_children, &ch);
	fn->nr_params = ch.nr_params;
	fn->params = xcalloc(ch.nr_params ? ch.nr_params : 1, sizeof(*fn->params));
	for (i = 0; i < ch.nr_params; i++)
		fill_param(f, ch.params[i], &fn->params[i]);
	free(ch.params);
	free(ch.tmpl);
	return 0;
}

/* A typedef or `using` alias (0), or -1 for other types and declarators this reader does not take. */
static int env_alias(const struct file *f, const struct def *d, struct astra_alias *a)
{
	enum CXCursorKind k = clang_getCursorKind(d->cursor);
	long name_off = file_offset(f, clang_getCursorLocation(d->cursor));
	size_t t = next_code(f, d->t0), n, i;
	memset(a, 0, sizeof(*a));
	if ((k != CXCursor_TypedefDecl && k != CXCursor_TypeAliasDecl) || name_off < 0)
		return -1;
	n = tok_at(f, (size_t)name_off);
	if (k == CXCursor_TypedefDecl) {
		/* typedef TYPE NAME ; */
		if (!tok_is(f, t, "typedef") || n <= t + 1 || !tok_is(f, next_code(f, n + 1), ";"))
			return -1;
		for (i = t + 1; i < n; i++)
			if (tok_is(f, i, "{") || tok_is(f, i, "("))
				return -1;
		a->type = env_text(f, t + 1, n);
		a->how = ASTRA_ALIAS_TYPEDEF;
	} else {
		/* using NAME = TYPE ; */
		size_t eq = next_code(f, n + 1), j;
		if (!tok_is(f, t, "using") || !tok_is(f, eq, "="))
			return -1;
		for (j = eq + 1; j < d->t1 && !tok_is(f, j, ";"); j++)
			if (tok_is(f, j, "{") || tok_is(f, j, "("))
				return -1;
		a->type = env_text(f, eq + 1, j);
		a->how = ASTRA_ALIAS_USING;
	}
	a->name = tok_dup(f, n);
	return 0;
}

/* A file-scope constant `[static] constexpr|const T NAME = INIT;` (0), or -1. */
static int env_const(const struct file *f, const struct def *d, struct astra_const *c)
{
	long name_off = file_offset(f, clang_getCursorLocation(d->cursor));
	size_t n, eq, i, semi;
	int constant = 0;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t prev_end = 0;
	memset(c, 0, sizeof(*c));
	if (clang_getCursorKind(d->cursor) != CXCursor_VarDecl || name_off < 0)
		return -1;
	n = tok_at(f, (size_t)name_off);
	eq = next_code(f, n + 1);
	if (n >= d->t1 || !tok_is(f, eq, "="))
		return -1;
	for (i = d->t0; i < n; i++) {
		if (tok_is(f, i, "__constant__") || tok_is(f, i, "__device__") || tok_is(f, i, "__shared__") ||
		    tok_is(f, i, "extern") || tok_is(f, i, "volatile") || tok_is(f, i, "*") || tok_is(f, i, "&"))
			return -1;
		if (tok_is(f, i, "constexpr") || tok_is(f, i, "const"))
			constant = 1;
	}
	for (semi = eq + 1; semi < d->t1 && !tok_is(f, semi, ";"); semi++)
		if (tok_is(f, semi, "[") || tok_is(f, semi, "{"))
			return -1;
	if (!constant || semi <= eq + 1)
		return -1;
	for (i = d->t0; i < n; i++)
		if (f->toks[i].kind != ASTRA_TOK_COMMENT && !is_specifier(f, i) && !tok_is(f, i, "const"))
			add_tok(&b, f, i, &prev_end);
	c->type = astra_buf_detach(&b, NULL);
	c->name = tok_dup(f, n);
	c->init = env_text(f, eq + 1, semi);
	return 0;
}

static int env_has(const struct astra_env *env, const char *name)
{
	size_t n = strlen(name);
	return astra_env_macro(env, name, n) || astra_env_alias(env, name, n) || astra_env_func(env, name, n) ||
	       astra_env_const(env, name, n);
}

/*
 * Fill k->env from the defs of f that the closure marked: for each name,
 * the definition in effect where the kernel is defined (the last #define
 * or #undef before it; in the main file of a header kernel, the last one).
 * Names already in the environment (from the kernel's own file) stay.
 */
static void fill_env(struct astra_kernel *k, struct file *f, int own_file)
{
	struct astra_env *env = &k->env, add;
	size_t i, j;
	size_t am = 0, aa = 0, af = 0, ac = 0;

	(void)aa;

	memset(&add, 0, sizeof(add));
	for (i = 0; i < f->nr_defs; i++) {
		struct def *d = &f->defs[i];
		if (!d->mark || d->lazy || !d->name[0] || env_has(env, d->name))
			continue;
		if (d->kind == DEF_MACRO) {
			struct astra_macro m;
			int later = 0;
			if (d->t0 >= f->nr_toks || f->toks[d->t0].skipped || (own_file && d->start >= k->start))
				continue;
			/* only the last #define / #undef of the name before the kernel counts */
			for (j = i + 1; j < f->nr_defs && !later; j++)
				later = f->defs[j].kind == DEF_MACRO && !strcmp(f->defs[j].name, d->name) &&
					f->defs[j].t0 < f->nr_toks && !f->toks[f->defs[j].t0].skipped &&
					(!own_file || f->defs[j].start < k->start);
			if (later || env_macro(f, d, &m) < 0)
				continue;
			ALLOC_GROW(add.macros, add.nr_macros + 1, am);
			add.macros[add.nr_macros++] = m;
		} else if (d->kind == DEF_FUNC) {
			struct astra_func fn;
			if (env_func(f, d, &fn) < 0)
				continue;
			for (j = 0; j < add.nr_funcs; j++)
				if (!strcmp(add.funcs[j].name, fn.name))
					add.funcs[j].overloaded = fn.overloaded = 1;
			ALLOC_GROW(add.funcs, add.nr_funcs + 1, af);
			add.funcs[add.nr_funcs++] = fn;
		} else if (d->kind == DEF_TYPE) {
			struct astra_alias a;
			if (env_alias(f, d, &a) < 0)
				continue;
			ALLOC_GROW(add.aliases, add.nr_aliases + 1, aa);
			add.aliases[add.nr_aliases++] = a;
		} else if (d->kind == DEF_VAR) {
			struct astra_const c;
			if (env_const(f, d, &c) < 0)
				continue;
			ALLOC_GROW(add.consts, add.nr_consts + 1, ac);
			add.consts[add.nr_consts++] = c;
		}
	}
#define ENV_APPEND(arr, nr)                                                                          \
	if (add.nr) {                                                                                \
		env->arr = xrealloc(env->arr, (env->nr + add.nr) * sizeof(*env->arr));               \
		memcpy(env->arr + env->nr, add.arr, add.nr * sizeof(*env->arr));                     \
		env->nr += add.nr;                                                                   \
	}                                                                                            \
	free(add.arr);
	ENV_APPEND(macros, nr_macros)
	ENV_APPEND(aliases, nr_aliases)
	ENV_APPEND(funcs, nr_funcs)
	ENV_APPEND(consts, nr_consts)
#undef ENV_APPEND
	/* an object-like macro that names a type is an alias too (after the typedefs it may name) */
	for (i = 0; i < env->nr_macros; i++) {
		const struct astra_macro *m = &env->macros[i];
		if (m->function_like || !m->body[0] || astra_env_alias(env, m->name, strlen(m->name)) ||
		    !astra_type_is_type(env, m->body))
			continue;
		env->aliases = xrealloc(env->aliases, (env->nr_aliases + 1) * sizeof(*env->aliases));
		env->aliases[env->nr_aliases].name = xstrdup(m->name);
		env->aliases[env->nr_aliases].type = xstrdup(m->body);
		env->aliases[env->nr_aliases].how = ASTRA_ALIAS_MACRO;
		env->nr_aliases++;
	}
}

/* Does the identifier name occur as a whole word in text [from, to)? */
static int mentions_word(const char *text, size_t from, size_t to, const char *name)
{
	size_t n = strlen(name), i;
	for (i = from; i + n <= to; i++)
		if (!memcmp(text + i, name, n) && (i == from || !is_ident_char((unsigned char)text[i - 1])) &&
		    (i + n == to || !is_ident_char((unsigned char)text[i + n])))
			return 1;
	return 0;
}

/*
 * The build's own object-like macros (-DBLOCK_SIZE=128) that kernel k or
 * its pragma names and the file does not define where the kernel is: in
 * k->env as the file's own are, so that the rules read `blockIdx.x *
 * BLOCK_SIZE` as the compiler does.  A later -U of the name drops it;
 * `-DNAME` alone is 1, as for the compiler.
 */
static void add_cmdline_macros(struct astra_kernel *k, const char *text, const struct astra_cmdline *cl)
{
	size_t i, j;
	for (i = 0; cl && i + 1 < cl->preproc_flags.nr; i++) {
		const char *o = cl->preproc_flags.v[i], *v = cl->preproc_flags.v[++i];
		if (strcmp(o, "-D"))
			continue;
		while (*v) {
			size_t n = strcspn(v, ","), nl = strcspn(v, "=(,");
			char *name = xstrndup(v, nl);
			int undone = v[nl] == '(' || !nl || env_has(&k->env, name) ||
				     !(mentions_word(text, k->start, k->end, name) ||
				       (k->pragma_end > k->pragma_start &&
					mentions_word(text, k->pragma_start, k->pragma_end, name)));
			for (j = i + 1; !undone && j + 1 < cl->preproc_flags.nr; j += 2)
				undone = !strcmp(cl->preproc_flags.v[j], "-U") &&
					 !strcmp(cl->preproc_flags.v[j + 1], name);
			if (!undone) {
				struct astra_macro m;
				memset(&m, 0, sizeof(m));
				m.name = name;
				m.body = v[nl] == '=' ? xstrndup(v + nl + 1, n - nl - 1) : xstrdup("1");
				name = NULL;
				k->env.macros = xrealloc(k->env.macros, (k->env.nr_macros + 1) * sizeof(*k->env.macros));
				k->env.macros[k->env.nr_macros++] = m;
				if (m.body[0] && !astra_env_alias(&k->env, m.name, strlen(m.name)) &&
				    astra_type_is_type(&k->env, m.body)) {
					k->env.aliases = xrealloc(k->env.aliases,
								  (k->env.nr_aliases + 1) * sizeof(*k->env.aliases));
					k->env.aliases[k->env.nr_aliases].name = xstrdup(m.name);
					k->env.aliases[k->env.nr_aliases].type = xstrdup(m.body);
					k->env.aliases[k->env.nr_aliases].how = ASTRA_ALIAS_MACRO;
					k->env.nr_aliases++;
				}
			}
			free(name);
			v += n;
			if (*v == ',')
				v++;
		}
	}
}

/* The default argument of a template parameter with extent [s, e), or NULL. */
static char *template_default(const struct file *f, size_t s, size_t e)
{
	size_t i;
	int depth = 0;
	for (i = tok_at(f, s); i < f->nr_toks && f->toks[i].off < e; i++) {
		if (tok_is(f, i, "(") || tok_is(f, i, "<") || tok_is(f, i, "["))
			depth++;
		else if (tok_is(f, i, ")") || tok_is(f, i, ">") || tok_is(f, i, "]"))
			depth--;
		else if (depth == 0 && tok_is(f, i, "=") && i + 1 < f->nr_toks)
			return tokens_text(f, f->toks[i + 1].off, e);
	}
	return NULL;
}

/*
 * The type of a non-type template parameter [s, e) whose name is at
 * name_off, as a type-id: the declaration without the name and the
 * default.  "int N = 4" gives "int"; a declarator around the name
 * ("float (*Act)(const float &)", "int (&A)[4]") keeps its parts:
 * "float (*)(const float &)".
 */
static char *nontype_kind(const struct file *f, size_t s, size_t e, long name_off)
{
	size_t i, name_end, stop = e;
	int depth = 0;
	char *head, *tail, *kind;
	if (name_off <= (long)s)
		return tokens_text(f, s, e);
	i = tok_at(f, (size_t)name_off);
	if (i >= f->nr_toks || f->toks[i].off != (size_t)name_off)
		return tokens_text(f, s, (size_t)name_off);
	name_end = f->toks[i].off + f->toks[i].len;
	/* The default argument starts at a top-level '=' after the name. */
	for (i++; i < f->nr_toks && f->toks[i].off < e; i++) {
		if (tok_is(f, i, "(") || tok_is(f, i, "[") || tok_is(f, i, "<"))
			depth++;
		else if (tok_is(f, i, ")") || tok_is(f, i, "]") || tok_is(f, i, ">"))
			depth--;
		else if (depth <= 0 && tok_is(f, i, "=")) {
			stop = f->toks[i].off;
			break;
		}
	}
	head = tokens_text(f, s, (size_t)name_off);
	tail = tokens_text(f, name_end, stop);
	kind = *tail ? xasprintf("%s%s", head, tail) : xstrdup(head);
	free(head);
	free(tail);
	return kind;
}

/* The __launch_bounds__(...) arguments among tokens [t0, t1). */
static char *launch_bounds(const struct file *f, size_t t0, size_t t1)
{
	size_t i;
	for (i = t0; i < t1; i++)
		if (tok_is(f, i, "__launch_bounds__") && tok_is(f, next_code(f, i + 1), "(")) {
			size_t open = next_code(f, i + 1), close = match_close(f, open, 0);
			if (close >= t1)
				return NULL;
			return tokens_text(f, f->toks[open].off + 1, f->toks[close].off);
		}
	return NULL;
}

/* What a kernel is, without its pragma and dependencies. */
static void kernel_basics(struct astra_kernel *k, const struct file *f, const struct kcand *kc)
{
	struct children ch;
	size_t i, t0, t1;

	memset(k, 0, sizeof(*k));
	k->name = spelling(kc->cursor);
	k->file = xstrdup(f->path);
	k->start = kc->start;
	k->end = kc->end;
	k->body_start = kc->body;
	line_col(f, k->start, &k->line, &k->col);
	k->text = xstrndup(f->text + k->start, k->end - k->start);
	k->is_template = kc->is_template;
	k->is_extern_c = kc->extern_c;
	t0 = tok_at(f, k->start);
	t1 = tok_at(f, k->end);
	k->launch_bounds = launch_bounds(f, t0, tok_at(f, k->body_start));

	memset(&ch, 0, sizeof(ch));
	clang_visitChildren(kc->cursor, collect_children, &ch);
	k->nr_params = ch.nr_params;
	k->params = xcalloc(ch.nr_params ? ch.nr_params : 1, sizeof(*k->params));
	for (i = 0; i < ch.nr_params; i++)
		fill_param(f, ch.params[i], &k->params[i]);
	k->nr_tmpl = ch.nr_tmpl;
	k->tmpl_params = xcalloc(ch.nr_tmpl ? ch.nr_tmpl : 1, sizeof(char *));
	k->tmpl_kinds = xcalloc(ch.nr_tmpl ? ch.nr_tmpl : 1, sizeof(char *));
	k->tmpl_defaults = xcalloc(ch.nr_tmpl ? ch.nr_tmpl : 1, sizeof(char *));
	for (i = 0; i < ch.nr_tmpl; i++) {
		CXCursor c = ch.tmpl[i];
		size_t s, e;
		long name_off = file_offset(f, clang_getCursorLocation(c));
		k->tmpl_params[i] = spelling(c);
		if (!extent(f, c, &s, &e)) {
			k->tmpl_kinds[i] = xstrdup("");
			continue;
		}
		k->tmpl_defaults[i] = template_default(f, s, e);
		if (clang_getCursorKind(c) == CXCursor_TemplateTypeParameter)
			k->tmpl_kinds[i] = tok_dup(f, tok_at(f, s));
		else if (clang_getCursorKind(c) == CXCursor_TemplateTemplateParameter)
			k->tmpl_kinds[i] = xstrdup("template");
		else
			k->tmpl_kinds[i] = nontype_kind(f, s, e, name_off);
	}
	free(ch.params);
	free(ch.tmpl);

	k->nr_tokens = t1 - t0;
	k->tokens = xcalloc(k->nr_tokens ? k->nr_tokens : 1, sizeof(*k->tokens));
	for (i = t0; i < t1; i++) {
		struct astra_token *t = &k->tokens[i - t0];
		t->kind = f->toks[i].kind;
		t->text = tok_dup(f, i);
		t->off = f->toks[i].off - k->start;
		t->line = f->toks[i].line;
		t->col = f->toks[i].col;
	}
	k->norm = normalize(f, t0, t1);
}

/*
 * Build the kernel for candidate kc with its attached pragma directives
 * (top to bottom) and append it to tu.  main_file: the TU's main file
 * when kc lives in a header, else NULL.
 */
static void add_kernel(struct astra_tu *tu, struct file *f, const struct kcand *kc, const size_t *dirs,
		       size_t nr_dirs, struct file *main_file)
{
	struct astra_kernel *k;
	struct closure C;
	size_t i;
	int bad = 0;

	ALLOC_GROW(tu->kernels, tu->nr_kernels + 1, tu->alloc_kernels);
	k = &tu->kernels[tu->nr_kernels++];
	kernel_basics(k, f, kc);

	/* The pragma. */
	astra_pragma_init(&k->pragma);
	for (i = 0; i < nr_dirs; i++) {
		const struct directive *d = &f->dirs[dirs[i]];
		size_t from = d->text_start;
		char *text = xstrndup(f->text + from, d->text_end - from);
		unsigned line, col;
		line_col(f, from, &line, &col);
		if (!i)
			k->pragma.line = d->first < f->nr_toks ? f->toks[d->first].line : line;
		if (astra_pragma_parse(&k->pragma, text, f->path, line, col, &tu->diags) < 0)
			bad = 1;
		free(text);
	}
	k->pragma_start = f->dirs[dirs[0]].start;
	k->pragma_end = f->dirs[dirs[nr_dirs - 1]].end;
	if (!bad) {
		char **names = xcalloc(k->nr_params + 1, sizeof(char *));
		int *is_ptr = xcalloc(k->nr_params + 1, sizeof(int));
		for (i = 0; i < k->nr_params; i++) {
			names[i] = k->params[i].name;
			is_ptr[i] = k->params[i].is_pointer ? (k->params[i].is_const ? 2 : 1) : 0;
		}
		int *optional = xcalloc(k->nr_tmpl + 1, sizeof(int));
		for (i = 0; i < k->nr_tmpl; i++)
			optional[i] = k->tmpl_defaults[i] != NULL;
		if (astra_pragma_check(&k->pragma, f->path, names, is_ptr, k->nr_params, k->tmpl_params, optional,
				       k->nr_tmpl, &tu->diags) < 0)
			bad = 1;
		free(names);
		free(is_ptr);
		free(optional);
	}
	k->bad_pragma = bad;

	/* Dependencies. */
	memset(&C, 0, sizeof(C));
	C.files[0] = f;
	C.files[1] = main_file;
	C.kstart = k->start;
	C.kend = k->end;
	compute_closure(&C, tok_at(f, k->start), tok_at(f, k->end), k, dirs, nr_dirs);
	take_deps(k, f);
	fill_env(k, f, 1);
	if (main_file) {
		take_deps(k, main_file);
		fill_env(k, main_file, 0);
	}
	free(C.items);
}

/* Attach pragma lines to the kernels of f and add the annotated ones to tu. */
static void collect_kernels(struct astra_tu *tu, struct file *f, struct file *main_file)
{
	size_t i, j;
	for (i = 0; i < f->nr_kc; i++) {
		const struct kcand *kc = &f->kc[i];
		size_t dirs[64], nr = 0;
		long t = (long)tok_at(f, kc->start) - 1;
		/* Walk up over comments and `#pragma astra` lines. */
		while (t >= 0) {
			const struct ftok *tk = &f->toks[t];
			if (tk->kind == ASTRA_TOK_COMMENT && tk->dir < 0) {
				t--;
				continue;
			}
			if (tk->dir >= 0 && f->dirs[tk->dir].is_astra && nr < ARRAY_SIZE(dirs)) {
				dirs[nr++] = (size_t)tk->dir;
				t = (long)f->dirs[tk->dir].first - 1;
				continue;
			}
			break;
		}
		if (!nr)
			continue;
		/* Top to bottom. */
		for (j = 0; j < nr / 2; j++) {
			size_t x = dirs[j];
			dirs[j] = dirs[nr - 1 - j];
			dirs[nr - 1 - j] = x;
		}
		for (j = 0; j < nr; j++)
			f->dirs[dirs[j]].used = 1;
		if (kc->from_macro) {
			/* Its text is the macro's: nothing to list, key or replace. */
			char *name = spelling(kc->cursor);
			unsigned line, col;
			line_col(f, kc->start, &line, &col);
			astra_diags_add(&tu->diags, f->path, line, col, 0,
					"kernel '%s' is defined through a macro; astra-cc leaves it alone", name);
			free(name);
			continue;
		}
		add_kernel(tu, f, kc, dirs, nr, main_file);
	}
	for (i = 0; i < f->nr_dirs; i++) {
		const struct directive *d = &f->dirs[i];
		if (d->is_astra && !d->used && !f->toks[d->first].skipped)
			astra_diags_add(&tu->diags, f->path, f->toks[d->first].line, f->toks[d->first].col, 0,
					"'%s' is not followed by the definition of a __global__ function; ignored",
					d->is_macro ? "ASTRA(...)" : "#pragma astra");
	}
}

/* ------------------------------------------------------------ launch sites */

/* Split tokens (open, close) at top-level commas into trimmed source texts. */
static void split_args(const struct file *f, size_t open, size_t close, char ***out, size_t *nr)
{
	size_t i, from = open + 1, alloc = 0;
	int depth = 0;
	*out = NULL;
	*nr = 0;
	if (next_code(f, open + 1) >= close && !(close > open + 1))
		return;
	for (i = open + 1; i <= close; i++) {
		int end = i == close;
		if (!end) {
			if (tok_is(f, i, "(") || tok_is(f, i, "[") || tok_is(f, i, "{"))
				depth++;
			else if (tok_is(f, i, ")") || tok_is(f, i, "]") || tok_is(f, i, "}"))
				depth--;
		}
		if (end || (depth == 0 && tok_is(f, i, ","))) {
			char *s;
			if (from < i)
				s = tokens_text(f, f->toks[from].off, f->toks[i - 1].off + f->toks[i - 1].len);
			else
				s = xstrdup("");
			if (end && !*nr && !s[0]) {
				free(s);
				return;
			}
			ALLOC_GROW(*out, *nr + 1, alloc);
			(*out)[(*nr)++] = s;
			from = i + 1;
		}
	}
}

static void find_launches(struct astra_tu *tu, const struct file *f)
{
	size_t i;
	for (i = 0; i < f->nr_toks; i++) {
		long j;
		size_t first, last, close_cfg, open_args, close_args;
		struct astra_launch *l;
		int depth;
		if (!tok_is(f, i, "<<<") || f->toks[i].skipped)
			continue;
		/* The callee: name, optional template arguments, optional scopes. */
		j = (long)i - 1;
		while (j >= 0 && f->toks[j].kind == ASTRA_TOK_COMMENT)
			j--;
		if (j >= 0 && (tok_is(f, (size_t)j, ">") || tok_is(f, (size_t)j, ">>"))) {
			int paren = 0;
			depth = 0;
			for (; j >= 0; j--) {
				if (tok_is(f, (size_t)j, ")") || tok_is(f, (size_t)j, "]"))
					paren++;
				else if (tok_is(f, (size_t)j, "(") || tok_is(f, (size_t)j, "["))
					paren--;
				else if (paren == 0 && tok_is(f, (size_t)j, ">"))
					depth++;
				else if (paren == 0 && tok_is(f, (size_t)j, ">>"))
					depth += 2;
				else if (paren == 0 && tok_is(f, (size_t)j, "<") && --depth == 0)
					break;
				if (paren < 0 || tok_is(f, (size_t)j, ";") || tok_is(f, (size_t)j, "{") ||
				    tok_is(f, (size_t)j, "}")) {
					j = -1;
					break;
				}
			}
			j--;
		}
		if (j < 0 || f->toks[j].kind != ASTRA_TOK_IDENT)
			continue;
		last = (size_t)j;
		while (j >= 2 && tok_is(f, (size_t)j - 1, "::") && f->toks[j - 2].kind == ASTRA_TOK_IDENT)
			j -= 2;
		if (j >= 1 && tok_is(f, (size_t)j - 1, "::"))
			j--;
		first = (size_t)j;
		/* <<<config>>> then (args). */
		depth = 0;
		for (close_cfg = i + 1; close_cfg < f->nr_toks; close_cfg++) {
			if (tok_is(f, close_cfg, "(") || tok_is(f, close_cfg, "[") || tok_is(f, close_cfg, "{"))
				depth++;
			else if (tok_is(f, close_cfg, ")") || tok_is(f, close_cfg, "]") || tok_is(f, close_cfg, "}"))
				depth--;
			else if (depth == 0 && tok_is(f, close_cfg, ">>>"))
				break;
			if (depth < 0)
				break;
		}
		if (close_cfg >= f->nr_toks || !tok_is(f, close_cfg, ">>>"))
			continue;
		open_args = close_cfg + 1;
		while (open_args < f->nr_toks && f->toks[open_args].kind == ASTRA_TOK_COMMENT)
			open_args++;
		if (!tok_is(f, open_args, "("))
			continue;
		close_args = match_close(f, open_args, 0);
		if (close_args >= f->nr_toks)
			continue;

		ALLOC_GROW(tu->launches, tu->nr_launches + 1, tu->alloc_launches);
		l = &tu->launches[tu->nr_launches++];
		memset(l, 0, sizeof(*l));
		l->start = f->toks[first].off;
		l->end = f->toks[close_args].off + 1;
		l->line = f->toks[first].line;
		l->col = f->toks[first].col;
		l->kernel = tokens_text(f, l->start, f->toks[i].off);
		l->name = tok_dup(f, last);
		l->in_macro = f->toks[i].dir >= 0;
		split_args(f, i, close_cfg, &l->config, &l->nr_config);
		split_args(f, open_args, close_args, &l->args, &l->nr_args);
		i = close_args;
	}
}

/* ------------------------------------------------------------ parsing */

/*
 * What libclang needs to read a .cu file without the CUDA headers: CUDA
 * mode, host side, no CUDA installation, no error limit, and the CUDA
 * keywords as attributes (so that __global__ functions carry CUDAGlobalAttr).
 */
static const char *const base_args[] = {
	"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "--no-cuda-version-check",
	"-ferror-limit=0", "-fno-spell-checking", "-w",
	"-D__CUDACC__", "-D__NVCC__",
	"-D__global__=__attribute__((global))",
	"-D__device__=__attribute__((device))",
	"-D__host__=__attribute__((host))",
	"-D__shared__=__attribute__((shared))",
	"-D__constant__=__attribute__((constant))",
	"-D__managed__=__attribute__((managed))",
	"-D__launch_bounds__(...)=__attribute__((launch_bounds(__VA_ARGS__)))",
	"-DASTRA(...)=", /* the annotation macro (astra-cc.h): headers are not read */
	"-D__forceinline__=__inline__ __attribute__((always_inline))",
	"-D__noinline__=__attribute__((noinline))",
	"-D__restrict__=__restrict",
	"-D__align__(n)=__attribute__((aligned(n)))",
	"-D__grid_constant__=",
	"-D__cluster_dims__(...)=",
	"-D__maxnreg__(n)=",
	/*
	 * The CUDA headers' element types and <stdint.h>'s names, as stand-ins
	 * of their size: a declaration that names an undeclared type is
	 * dropped from the AST (a `using T = __half;` would vanish from the
	 * dependencies and the rules' view).  Spellings come from the tokens,
	 * which these macros do not change.
	 */
	"-D__half=short", "-D__half2=int", "-D__nv_bfloat16=short", "-D__nv_bfloat162=int",
	"-D__nv_fp8_e4m3=char", "-D__nv_fp8_e5m2=char", "-D__nv_fp8_storage_t=char",
	"-Dsize_t=__SIZE_TYPE__", "-Dptrdiff_t=__PTRDIFF_TYPE__", "-Dint64_t=__INT64_TYPE__",
	"-Duint64_t=__UINT64_TYPE__", "-Dint32_t=__INT32_TYPE__", "-Duint32_t=__UINT32_TYPE__",
	"-Dint16_t=__INT16_TYPE__", "-Duint16_t=__UINT16_TYPE__", "-Dint8_t=__INT8_TYPE__",
	"-Duint8_t=__UINT8_TYPE__",
};

static void build_args(struct astra_vec *args, const struct astra_cmdline *cl)
{
	size_t i;
	int have_std = 0;
	astra_vec_pushv(args, (char *const *)base_args, ARRAY_SIZE(base_args));
	for (i = 0; cl && i + 1 < cl->preproc_flags.nr; i++) {
		const char *o = cl->preproc_flags.v[i], *v = cl->preproc_flags.v[i + 1];
		if (!strcmp(o, "-D") || !strcmp(o, "-U")) {
			/* nvcc takes comma-separated lists here. */
			while (*v) {
				size_t n = strcspn(v, ",");
				if (n)
					astra_vec_pushf(args, "%s%.*s", o, (int)n, v);
				v += n;
				if (*v == ',')
					v++;
			}
			i++;
		} else if (!strcmp(o, "-std")) {
			astra_vec_pushf(args, "-std=%s", v);
			have_std = 1;
			i++;
		}
	}
	if (!have_std)
		astra_vec_push(args, "-std=c++17");
}

static CXTranslationUnit parse_text(CXIndex idx, const struct file *f, const char *text,
				    const struct astra_vec *args)
{
	struct CXUnsavedFile uf;
	enum CXErrorCode err;
	CXTranslationUnit tu = NULL;
	unsigned flags = CXTranslationUnit_SingleFileParse | CXTranslationUnit_KeepGoing |
			 CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_DetailedPreprocessingRecord;

	uf.Filename = f->path;
	uf.Contents = text;
	uf.Length = (unsigned long)f->len;
	err = clang_parseTranslationUnit2(idx, f->path, (const char *const *)args->v, (int)args->nr, &uf, 1,
					  flags, &tu);
	if (err != CXError_Success || !tu) {
		error("%s: libclang cannot parse it (error %d)", f->path, (int)err);
		return NULL;
	}
	return tu;
}

/*
 * A function whose parameter list names a type from a header the parse
 * does not read (`void prep(std::vector<int> w) { }`,
 * `__device__ float h(cg::thread_block_tile<32> &t)`) looks like a
 * variable with an initializer to the parser, which then skips to the
 * next `;` at file scope: every kernel after it would vanish.  Such a
 * declaration is a VarDecl whose name is followed by `( ... )` and then,
 * before any `;`, `=` or `,`, by a `{`.  Blank its parameters (offsets
 * and lines are kept) in *patched, so that a new parse sees a function
 * `prep( ) { }` and goes on after it.  Kernels are left as written.
 * Returns how many were blanked.
 */
struct swallow {
	struct file *f;
	char *patched;
	size_t nr;
};

static enum CXChildVisitResult find_swallowing(CXCursor c, CXCursor parent, CXClientData data)
{
	struct swallow *S = data;
	struct file *f = S->f;
	enum CXCursorKind k = clang_getCursorKind(c);
	long name_off;
	size_t at, open, close, i, j;
	(void)parent;

	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	if (k != CXCursor_VarDecl || (name_off = file_offset(f, clang_getCursorLocation(c))) < 0)
		return CXChildVisit_Continue;
	at = tok_at(f, (size_t)name_off);
	if (at >= f->nr_toks || f->toks[at].off != (size_t)name_off)
		return CXChildVisit_Continue;
	open = next_code(f, at + 1);
	if (open >= f->nr_toks || !tok_is(f, open, "("))
		return CXChildVisit_Continue;
	close = match_close(f, open, 1);
	if (close >= f->nr_toks)
		return CXChildVisit_Continue;
	for (i = next_code(f, close + 1); i < f->nr_toks; i = next_code(f, i + 1))
		if (tok_is(f, i, ";") || tok_is(f, i, "=") || tok_is(f, i, ",") || tok_is(f, i, "{") ||
		    tok_is(f, i, "}"))
			break;
	if (i >= f->nr_toks || !tok_is(f, i, "{"))
		return CXChildVisit_Continue;
	/* A kernel keeps its parameters: they are what the tools read. */
	for (j = at; j-- > 0 && f->toks[j].dir < 0 && !tok_is(f, j, ";") && !tok_is(f, j, "}") &&
		     !tok_is(f, j, "{");)
		if (tok_is(f, j, "__global__"))
			return CXChildVisit_Continue;
	for (j = f->toks[open].off + 1; j < f->toks[close].off; j++)
		if (S->patched[j] != '\n' && S->patched[j] != ' ') {
			S->patched[j] = ' ';
			S->nr++;
		}
	return CXChildVisit_Continue;
}

static int parse_file(CXIndex idx, struct file *f, const struct astra_vec *args)
{
	struct visit V;
	size_t i, round;

	for (i = 0; i < ARRAY_SIZE(f->buckets); i++)
		f->buckets[i] = -1;
	f->tu = parse_text(idx, f, f->text, args);
	if (!f->tu)
		return -1;
	f->cxf = clang_getFile(f->tu, f->path);
	if (!f->cxf)
		return error("%s: libclang lost the file", f->path);
	/* Tokens always come from the text as written. */
	tokenize(f);
	for (round = 0; round < 64; round++) {
		struct swallow S;
		CXTranslationUnit tu;
		S.f = f;
		S.nr = 0;
		S.patched = f->patched ? f->patched : xstrndup(f->text, f->len);
		clang_visitChildren(clang_getTranslationUnitCursor(f->tu), find_swallowing, &S);
		if (!S.nr) {
			if (S.patched != f->patched)
				free(S.patched);
			break;
		}
		f->patched = S.patched;
		astra_trace(ASTRA_TRACE_EXTRACT, "%s: parameters of a declaration the parser took for a variable "
			    "blanked (%zu bytes); parsed again", f->path, S.nr);
		tu = parse_text(idx, f, f->patched, args);
		if (!tu)
			break;
		clang_disposeTranslationUnit(f->tu);
		f->tu = tu;
		f->cxf = clang_getFile(f->tu, f->path);
		if (!f->cxf)
			return error("%s: libclang lost the file", f->path);
	}
	memset(&V, 0, sizeof(V));
	V.f = f;
	clang_visitChildren(clang_getTranslationUnitCursor(f->tu), visit, &V);
	add_macros(f);
	return 0;
}

/* Indexes in tu->includes of the headers that header h can see. */
static void header_closure(struct astra_tu *tu, struct astra_kernel *k, const struct astra_header *h,
			   const struct astra_search_path *sp, unsigned flags)
{
	struct astra_includes sub;
	size_t i, j, alloc = 0;
	memset(&sub, 0, sizeof(sub));
	astra_includes_scan(h->path, h->text, h->len, sp, 0, flags, &sub);
	if (sub.truncated)
		tu->includes.truncated = 1;
	for (i = 0; i < sub.nr; i++)
		for (j = 0; j < tu->includes.nr; j++) {
			const struct astra_header *o = &tu->includes.items[j];
			if ((sub.items[i].text && o->text && sub.items[i].dev == o->dev && sub.items[i].ino == o->ino) ||
			    (!sub.items[i].text && !o->text && !strcmp(sub.items[i].spelled, o->spelled))) {
				ALLOC_GROW(k->headers, k->nr_headers + 1, alloc);
				k->headers[k->nr_headers++] = j;
				break;
			}
		}
	astra_includes_release(&sub);
}

int astra_extract_text(struct astra_tu *tu, const char *path, const char *text, size_t len,
		       const struct astra_cmdline *cl)
{
	struct astra_vec args = ASTRA_VEC_INIT;
	struct astra_search_path own;
	const struct astra_search_path *sp = tu->search;
	unsigned scan_flags = ASTRA_INCLUDES_MISSING;
	struct file mainf;
	CXIndex idx;
	size_t i, j, first_header_kernel;
	int ret = 0;
	double t0 = astra_now();

	tu->path = xstrdup(path);
	tu->text = xstrndup(text, len);
	tu->len = len;
	if (libclang_load() < 0)
		return -1;
	memset(&own, 0, sizeof(own));
	if (sp) {
		scan_flags |= ASTRA_INCLUDES_SYSTEM;
	} else {
		astra_search_path_from_cmdline(cl, &own);
		sp = &own;
	}
	astra_includes_scan(path, tu->text, len, sp, 1, scan_flags, &tu->includes);
	build_args(&args, cl);

	idx = clang_createIndex(0, 0);
	memset(&mainf, 0, sizeof(mainf));
	mainf.path = tu->path;
	mainf.text = tu->text;
	mainf.len = len;
	if (parse_file(idx, &mainf, &args) < 0) {
		ret = -1;
		goto out;
	}
	collect_kernels(tu, &mainf, NULL);
	for (i = 0; i < tu->nr_kernels; i++) {
		struct astra_kernel *k = &tu->kernels[i];
		add_cmdline_macros(k, tu->text, cl);
		k->nr_headers = tu->includes.nr;
		k->headers = xcalloc(k->nr_headers ? k->nr_headers : 1, sizeof(size_t));
		for (j = 0; j < k->nr_headers; j++)
			k->headers[j] = j;
	}
	find_launches(tu, &mainf);

	/* Kernels in project headers: each header on its own. */
	for (i = 0; i < tu->includes.nr; i++) {
		const struct astra_header *h = &tu->includes.items[i];
		struct file hf;
		if (!h->has_pragma || !h->text)
			continue;
		memset(&hf, 0, sizeof(hf));
		hf.path = h->path;
		hf.text = h->text;
		hf.len = h->len;
		first_header_kernel = tu->nr_kernels;
		if (parse_file(idx, &hf, &args) == 0) {
			collect_kernels(tu, &hf, &mainf);
			for (j = first_header_kernel; j < tu->nr_kernels; j++)
				header_closure(tu, &tu->kernels[j], h, sp, scan_flags);
		}
		file_release(&hf);
	}
	astra_trace(ASTRA_TRACE_EXTRACT, "%s: %zu annotated kernels, %zu launch sites, %zu headers, %.1f ms", path,
		    tu->nr_kernels, tu->nr_launches, tu->includes.nr, (astra_now() - t0) * 1e3);
out:
	file_release(&mainf);
	clang_disposeIndex(idx);
	astra_vec_clear(&args);
	astra_search_path_release(&own);
	return ret;
}

int astra_extract_tu(struct astra_tu *tu, const char *path, const struct astra_cmdline *cl)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	int ret;
	if (astra_buf_read_file(&b, path, 1 << 28) < 0) {
		astra_buf_release(&b);
		return error("cannot read %s", path);
	}
	ret = astra_extract_text(tu, path, b.buf, b.len, cl);
	astra_buf_release(&b);
	return ret;
}

/* ------------------------------------------------------------ candidates */

struct cand_check {
	struct file *f;
	struct astra_buf *why;
	int bad;
	int extern_c;
	size_t linkage_start;
	size_t *ranges;         /* [start, end) pairs of accepted top-level declarations */
	size_t nr_ranges, alloc_ranges;
	struct astra_vec names; /* names the candidate defines besides kernels */
};

static void reject(struct cand_check *K, size_t off, const char *fmt, ...) ASTRA_PRINTF(3, 4);
static void reject(struct cand_check *K, size_t off, const char *fmt, ...)
{
	va_list ap;
	unsigned line, col;
	line_col(K->f, off, &line, &col);
	astra_buf_addf(K->why, "line %u: ", line);
	va_start(ap, fmt);
	astra_buf_vaddf(K->why, fmt, ap);
	va_end(ap);
	astra_buf_addch(K->why, '\n');
	K->bad = 1;
}

static void accept_range(struct cand_check *K, size_t start, size_t end)
{
	ALLOC_GROW(K->ranges, K->nr_ranges + 2, K->alloc_ranges);
	K->ranges[K->nr_ranges++] = start;
	K->ranges[K->nr_ranges++] = end;
}

static int range_has_word(const struct file *f, size_t start, size_t end, const char *w)
{
	size_t i;
	for (i = tok_at(f, start); i < f->nr_toks && f->toks[i].off < end; i++)
		if (tok_is(f, i, w))
			return 1;
	return 0;
}

static enum CXChildVisitResult find_static_member(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_VarDecl) {
		*(char **)data = spelling(c);
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

/*
 * The gate's rule for the types a variant defines: every member function
 * it declares (constructors, destructors, conversion and other operators,
 * member templates, friends defined in the class) is __device__ and not
 * __host__, unless it is `= default` or `= delete` (no code of the
 * variant's).  Host code never gets to run a variant's code: launch
 * expressions cannot call anything but a few well-known names
 * (check_launch_expr), and the types cannot be constructed, converted or
 * destroyed on the host.  Nested types are checked the same way.
 */
struct host_members {
	struct cand_check *K;
	const char *type;
};

static int defaulted_or_deleted(const struct file *f, size_t start, size_t end)
{
	size_t i, j;
	for (i = tok_at(f, start); i < f->nr_toks && f->toks[i].off < end; i++) {
		if (!tok_is(f, i, "="))
			continue;
		j = next_code(f, i + 1);
		if (j < f->nr_toks && (tok_is(f, j, "default") || tok_is(f, j, "delete")))
			return 1;
	}
	return 0;
}

static enum CXChildVisitResult host_member(CXCursor c, CXCursor parent, CXClientData data)
{
	struct host_members *hm = data;
	struct cand_check *K = hm->K;
	enum CXCursorKind k = clang_getCursorKind(c);
	size_t start, end, body;
	char *name;
	(void)parent;
	switch (k) {
	case CXCursor_CXXMethod:
	case CXCursor_Constructor:
	case CXCursor_Destructor:
	case CXCursor_ConversionFunction:
	case CXCursor_FunctionTemplate:
	case CXCursor_FunctionDecl: {
		int attrs = cuda_attrs(c);
		if (!extent(K->f, c, &start, &end))
			break;
		if ((attrs & 2) && !(attrs & 4))
			break;
		end = function_end(K->f, end, &body);
		if (defaulted_or_deleted(K->f, start, end))
			break;
		name = spelling(c);
		reject(K, start, "%s '%s' of '%s' is %s: a type a variant defines may have only __device__ member "
		       "functions (host code could run it)",
		       k == CXCursor_Constructor ? "constructor" : k == CXCursor_Destructor ? "destructor"
		       : k == CXCursor_ConversionFunction ? "conversion operator" : "member function",
		       name, hm->type, (attrs & 4) ? "__host__" : "not __device__");
		free(name);
		break;
	}
	case CXCursor_FriendDecl:
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
	case CXCursor_ClassDecl:
	case CXCursor_ClassTemplate:
	case CXCursor_ClassTemplatePartialSpecialization:
		clang_visitChildren(c, host_member, hm);
		break;
	default:
		break;
	}
	return CXChildVisit_Continue;
}

static enum CXChildVisitResult visit_candidate(CXCursor c, CXCursor parent, CXClientData data)
{
	struct cand_check *K = data;
	struct file *f = K->f;
	enum CXCursorKind k = clang_getCursorKind(c);
	size_t start, end, body;
	char *name;
	(void)parent;

	if (clang_isPreprocessing(k) || !extent(f, c, &start, &end))
		return CXChildVisit_Continue;
	name = spelling(c);
	switch (k) {
	case CXCursor_FunctionDecl:
	case CXCursor_FunctionTemplate:
	case CXCursor_CXXMethod:
	case CXCursor_Constructor:
	case CXCursor_Destructor:
	case CXCursor_ConversionFunction: {
		int attrs = cuda_attrs(c);
		size_t nr_kc = f->nr_kc;
		struct visit V;
		memset(&V, 0, sizeof(V));
		V.f = f;
		V.extern_c = K->extern_c;
		V.linkage_start = K->linkage_start;
		if (attrs & 1) {
			add_function(&V, c, k);
			if (f->nr_kc == nr_kc)
				reject(K, start, "__global__ function '%s' has no body", name);
		} else if (!(attrs & 2)) {
			reject(K, start, "host function '%s': a variant may add only __device__ functions", name);
		} else if (attrs & 4) {
			reject(K, start, "__host__ __device__ function '%s': a variant may add only __device__ functions "
			       "(host code could call it)", name);
		} else {
			astra_vec_push(&K->names, name);
		}
		end = function_end(f, end, &body);
		accept_range(K, K->extern_c == 1 ? K->linkage_start : start, end);
		break;
	}
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
	case CXCursor_ClassDecl:
	case CXCursor_ClassTemplate:
	case CXCursor_ClassTemplatePartialSpecialization:
	case CXCursor_EnumDecl:
	case CXCursor_TypedefDecl:
	case CXCursor_TypeAliasDecl:
	case CXCursor_TypeAliasTemplateDecl: {
		char *member = NULL;
		struct host_members hm = { K, name };
		clang_visitChildren(c, find_static_member, &member);
		/* Its member functions may run on the device only (see host_member). */
		clang_visitChildren(c, host_member, &hm);
		if (member) {
			reject(K, start, "static data member '%s' of '%s': a variant must not keep state between launches",
			       member, name);
			free(member);
		}
		if (name[0] && !strchr(name, ' '))
			astra_vec_push(&K->names, name);
		accept_range(K, start, over_semicolon(f, end));
		break;
	}
	case CXCursor_VarDecl:
		if (range_has_word(f, start, end, "constexpr") ||
		    (range_has_word(f, start, end, "extern") && range_has_word(f, start, end, "__shared__")))
			astra_vec_push(&K->names, name);
		else
			reject(K, start, "global variable '%s': a variant must not keep state between launches "
			       "(constexpr constants and extern __shared__ arrays are fine)", name);
		accept_range(K, start, over_semicolon(f, end));
		break;
	case CXCursor_StaticAssert:
		accept_range(K, start, over_semicolon(f, end));
		break;
	case CXCursor_LinkageSpec:
	case CXCursor_UnexposedDecl: {
		int lc = linkage_c(f, start);
		if (lc) {
			struct cand_check inner = *K;
			inner.extern_c = lc;
			inner.linkage_start = start;
			clang_visitChildren(c, visit_candidate, &inner);
			K->bad = inner.bad;
			K->ranges = inner.ranges;
			K->nr_ranges = inner.nr_ranges;
			K->alloc_ranges = inner.alloc_ranges;
			K->names = inner.names;
			if (lc == 2)
				accept_range(K, start, end + 1);
		} else {
			reject(K, start, "unexpected declaration");
		}
		break;
	}
	case CXCursor_Namespace:
		reject(K, start, "namespace '%s': a variant goes where the kernel is and declares no namespaces", name);
		accept_range(K, start, end + 1);
		break;
	case CXCursor_UsingDirective:
	case CXCursor_UsingDeclaration:
	case CXCursor_NamespaceAlias:
		reject(K, start, "using declarations and namespace aliases would leak into the rest of the file");
		accept_range(K, start, over_semicolon(f, end));
		break;
	default: {
		CXString ks = clang_getCursorKindSpelling(k);
		reject(K, start, "unexpected top-level declaration (%s)", clang_getCString(ks));
		clang_disposeString(ks);
		accept_range(K, start, over_semicolon(f, end));
		break;
	}
	}
	free(name);
	return CXChildVisit_Continue;
}

/*
 * The only names a launch expression may call (name(...), name{...},
 * name<...>(...)): the launcher evaluates them on the host, so a call of
 * anything else - a function or type of the variant, of the kernel's
 * parameters, a template parameter - could run code that is not the
 * user's on the host.  Casts to these types are calls too.
 */
static const char *const launch_calls[] = {
	"dim3", "min", "max", "sizeof", "alignof", "decltype", "static_cast", "reinterpret_cast", "const_cast",
	"int", "unsigned", "long", "short", "char", "signed", "size_t", "float", "double", "bool", "int32_t",
	"uint32_t", "int64_t", "uint64_t", "ptrdiff_t",
};

static int in_list(const char *const *list, size_t n, const char *p, size_t len)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && !memcmp(list[i], p, len))
			return 1;
	return 0;
}

/* One token of a launch expression: an identifier, a number, a literal or one punctuator. */
struct ltok {
	const char *p;
	size_t n;
	int ident;
};

/* The tokens of launch expression e, by front/lex.c (one per punctuation character). */
static size_t launch_tokens(const char *e, struct ltok **out)
{
	struct astra_lexed lx;
	struct ltok *t;
	size_t i;

	astra_lex(e, strlen(e), ASTRA_LEX_ONE_CHAR | ASTRA_LEX_LENIENT | ASTRA_LEX_NO_DIRECTIVES, &lx);
	t = xcalloc(lx.nr + 1, sizeof(*t));
	for (i = 0; i < lx.nr; i++) {
		t[i].p = e + lx.toks[i].off;
		t[i].n = lx.toks[i].len;
		t[i].ident = lx.toks[i].kind == ASTRA_LEX_IDENT;
	}
	*out = t;
	astra_lexed_release(&lx);
	return i;
}

static int ltok_is(const struct ltok *t, char c)
{
	return t->n == 1 && t->p[0] == c;
}

/* Index of the token that opens the bracket closed at i (close: ')' or '>'), or (size_t)-1. */
static size_t opener(const struct ltok *t, size_t i, char open, char close)
{
	int depth = 0;
	for (;; i--) {
		if (ltok_is(&t[i], close))
			depth++;
		else if (ltok_is(&t[i], open) && --depth == 0)
			return i;
		if (!i)
			return (size_t)-1;
	}
}

/*
 * Is t[b..e) a type a C-style cast may name: only the well-known type
 * words, `std`, `::`, `*` and const?  ("(int)(n + 3)" is a cast, not a call.)
 */
static int cast_type(const struct ltok *t, size_t b, size_t e)
{
	size_t i;
	if (b >= e)
		return 0;
	for (i = b; i < e; i++)
		if (!(t[i].ident ? in_list(launch_calls, ARRAY_SIZE(launch_calls), t[i].p, t[i].n) ||
				   (t[i].n == 5 && !memcmp(t[i].p, "const", 5)) || (t[i].n == 3 && !memcmp(t[i].p, "std", 3))
				 : ltok_is(&t[i], '*') || ltok_is(&t[i], ':')))
			return 0;
	return 1;
}

/* Report identifiers of expression e that the launcher could not evaluate, and calls it must not make. */
static void check_launch_expr(struct cand_check *K, size_t off, const char *what, const char *e,
			      const struct astra_kernel *orig)
{
	struct ltok *t;
	size_t nr = launch_tokens(e, &t), i;
	for (i = 0; i < nr; i++) {
		const char *p = t[i].p;
		size_t n = t[i].n, k;
		int ok = 0;
		if (t[i].ident && !(p[0] >= '0' && p[0] <= '9')) {
			/* A member (x.y, p->y) is the member of something already checked. */
			if (i && (ltok_is(&t[i - 1], '.') || (i > 1 && ltok_is(&t[i - 1], '>') && ltok_is(&t[i - 2], '-'))))
				ok = 1;
			for (k = 0; !ok && k < orig->nr_params; k++)
				ok = strlen(orig->params[k].name) == n && !memcmp(orig->params[k].name, p, n);
			for (k = 0; !ok && k < orig->nr_tmpl; k++)
				ok = strlen(orig->tmpl_params[k]) == n && !memcmp(orig->tmpl_params[k], p, n);
			if (!ok)
				ok = astra_launch_name(p, n);
			for (k = 0; !ok && k < K->names.nr; k++)
				ok = strlen(K->names.v[k]) == n && !memcmp(K->names.v[k], p, n);
			if (!ok)
				ok = astra_kernel_host_name(orig, p, n);
			if (!ok)
				reject(K, off, "launch(%s=...) uses '%.*s', which is not a parameter of the kernel, a template "
				       "parameter, a name the variant defines or a host-visible name of the kernel's file that "
				       "the kernel uses", what, (int)n, p);
			continue;
		}
		if (!i || !(ltok_is(&t[i], '(') || ltok_is(&t[i], '{')))
			continue;
		/* An opening bracket right after a name, a template-id, a ')' or a ']' is a call. */
		{
			const struct ltok *prev = &t[i - 1];
			size_t callee = (size_t)-1;
			if (prev->ident && !(prev->p[0] >= '0' && prev->p[0] <= '9')) {
				callee = i - 1;
			} else if (ltok_is(prev, '>')) {
				/* name<...>(: a template's call; without a matching '<' the '>' compares. */
				size_t lt = opener(t, i - 1, '<', '>');
				if (lt != (size_t)-1 && lt > 0 && t[lt - 1].ident)
					callee = lt - 1;
			} else if (ltok_is(prev, ')')) {
				size_t lp = opener(t, i - 1, '(', ')');
				if (lp == (size_t)-1 || !cast_type(t, lp + 1, i - 1))
					callee = (size_t)-2;
			} else if (ltok_is(prev, ']')) {
				callee = (size_t)-2;
			}
			if (callee == (size_t)-2) {
				reject(K, off, "launch(%s=...) calls the result of an expression: a launch expression may call "
				       "only dim3, min, max, sizeof, alignof, decltype, casts and conversions to built-in types",
				       what);
			} else if (callee != (size_t)-1 &&
				   !in_list(launch_calls, ARRAY_SIZE(launch_calls), t[callee].p, t[callee].n) &&
				   /* The user's own host helper of the kernel's file (ceil_div), not the variant's. */
				   !((!callee || !(ltok_is(&t[callee - 1], '.') || ltok_is(&t[callee - 1], '>'))) &&
				     astra_kernel_host_name(orig, t[callee].p, t[callee].n))) {
				reject(K, off, "launch(%s=...) calls '%.*s': a launch expression may call only dim3, min, max, "
				       "sizeof, alignof, decltype, casts, conversions to built-in types and the kernel file's own host "
				       "functions (host code runs it)",
				       what, (int)t[callee].n, t[callee].p);
			}
		}
	}
	free(t);
}

/* The parameter's type as the function type sees it: no top-level qualifiers, no blanks. */
static char *core_type(const struct astra_param *p)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *s;
	if (p->is_pointer)
		astra_buf_addf(&b, "%s%s*", p->is_const ? "const" : "", p->elem_type ? p->elem_type : "?");
	else
		astra_buf_adds(&b, p->type);
	s = b.buf;
	{
		/* Drop blanks, and for scalars top-level const/volatile words. */
		struct astra_buf o = ASTRA_BUF_INIT;
		while (*s) {
			if (!p->is_pointer && (astra_starts_with(s, "const") || astra_starts_with(s, "volatile")) &&
			    (s == b.buf || !is_ident_char((unsigned char)s[-1]))) {
				size_t n = s[0] == 'c' ? 5 : 8;
				if (!is_ident_char((unsigned char)s[n])) {
					s += n;
					continue;
				}
			}
			if (*s != ' ')
				astra_buf_addch(&o, *s);
			s++;
		}
		astra_buf_release(&b);
		return astra_buf_detach(&o, NULL);
	}
}

static int has_restrict(const char *type)
{
	return strstr(type, "__restrict") != NULL || strstr(type, "restrict") != NULL;
}

static void compare_kernel(struct cand_check *K, const struct astra_kernel *orig, const struct astra_kernel *k)
{
	size_t i;
	if (strcmp(k->name, orig->name))
		reject(K, k->start, "the kernel is named '%s'; it must keep the name '%s'", k->name, orig->name);
	if (k->nr_params != orig->nr_params) {
		reject(K, k->start, "the kernel has %zu parameters; the original has %zu", k->nr_params, orig->nr_params);
	} else {
		for (i = 0; i < k->nr_params; i++) {
			const struct astra_param *a = &orig->params[i], *b = &k->params[i];
			char *ta = core_type(a), *tb = core_type(b);
			if (strcmp(a->name, b->name))
				reject(K, k->start, "parameter %zu is named '%s'; the original names it '%s' (keep the names: "
				       "launch expressions use them)", i + 1, b->name, a->name);
			if (strcmp(ta, tb))
				reject(K, k->start, "parameter '%s' has type '%s'; the original's is '%s'", b->name, b->type,
				       a->type);
			else if (has_restrict(b->type) && !has_restrict(a->type) &&
				 !(orig->pragma.flags & ASTRA_PRAGMA_NOALIAS))
				reject(K, k->start, "parameter '%s' gains __restrict__, but the kernel's pragma does not "
				       "say noalias", b->name);
			free(ta);
			free(tb);
		}
	}
	if (k->nr_tmpl != orig->nr_tmpl) {
		reject(K, k->start, "the kernel has %zu template parameters; the original has %zu", k->nr_tmpl,
		       orig->nr_tmpl);
	} else {
		for (i = 0; i < k->nr_tmpl; i++) {
			const char *ka = !strcmp(orig->tmpl_kinds[i], "class") ? "typename" : orig->tmpl_kinds[i];
			const char *kb = !strcmp(k->tmpl_kinds[i], "class") ? "typename" : k->tmpl_kinds[i];
			if (strcmp(orig->tmpl_params[i], k->tmpl_params[i]) || strcmp(ka, kb))
				reject(K, k->start, "template parameter %zu is '%s %s'; the original's is '%s %s'", i + 1,
				       k->tmpl_kinds[i], k->tmpl_params[i], orig->tmpl_kinds[i], orig->tmpl_params[i]);
		}
	}
	if (orig->is_extern_c == 1 && k->is_extern_c != 1)
		reject(K, k->start, "the original kernel is declared extern \"C\"; so must the variant be");
	if (!orig->is_extern_c && k->is_extern_c)
		reject(K, k->start, "the original kernel has C++ linkage; the variant must not be extern \"C\"");
}

void astra_candidate_release(struct astra_candidate *c)
{
	size_t i;
	astra_kernel_release(&c->kernel);
	for (i = 0; i < c->nr_names; i++)
		free(c->names[i]);
	free(c->names);
	memset(c, 0, sizeof(*c));
}

int astra_extract_candidate(const struct astra_kernel *orig, struct astra_variant *v,
			    struct astra_candidate *out, struct astra_buf *why)
{
	struct astra_vec args = ASTRA_VEC_INIT;
	struct file f;
	struct cand_check K;
	struct astra_kernel k;
	CXIndex idx;
	size_t i;
	int have_kernel = 0;

	memset(&K, 0, sizeof(K));
	memset(&k, 0, sizeof(k));
	astra_vec_init(&K.names);
	K.f = &f;
	K.why = why;
	free(v->grid);
	free(v->block);
	free(v->shmem);
	v->grid = v->block = v->shmem = NULL;
	if (!orig) {
		astra_buf_adds(why, "no original kernel to compare with\n");
		return -1;
	}
	if (!v->text || !v->text[0]) {
		astra_buf_adds(why, "the variant is empty\n");
		return -1;
	}

	if (libclang_load() < 0) {
		astra_buf_adds(why, "libclang cannot be loaded\n");
		astra_vec_clear(&K.names);
		return -1;
	}
	build_args(&args, NULL);
	idx = clang_createIndex(0, 0);
	memset(&f, 0, sizeof(f));
	f.path = "astra-variant.cu";
	f.text = v->text;
	f.len = strlen(v->text);
	if (parse_file(idx, &f, &args) < 0) {
		astra_buf_adds(why, "libclang cannot parse the variant\n");
		K.bad = 1;
		goto out;
	}
	/* parse_file registered every function as a def; kernels come again below. */
	f.nr_kc = 0;

	/* Directives: conditionals, unroll pragmas and the launch line only. */
	for (i = 0; i < f.nr_dirs; i++) {
		const struct directive *d = &f.dirs[i];
		size_t n = d->first + 1;
		if (n > d->last || d->is_macro)
			continue; /* the null directive; the annotation macro (checked below) */
		if (tok_is(&f, n, "if") || tok_is(&f, n, "ifdef") || tok_is(&f, n, "ifndef") || tok_is(&f, n, "elif") ||
		    tok_is(&f, n, "else") || tok_is(&f, n, "endif"))
			continue;
		if (tok_is(&f, n, "pragma") && n + 1 <= d->last &&
		    (tok_is(&f, n + 1, "unroll") || tok_is(&f, n + 1, "nounroll") || d->is_astra))
			continue;
		if (tok_is(&f, n, "include"))
			reject(&K, d->start, "#include is not allowed in a variant (the file's includes are visible)");
		else if (tok_is(&f, n, "define") || tok_is(&f, n, "undef"))
			reject(&K, d->start, "#%.*s is not allowed in a variant (macros would leak into the rest of the file)",
			       (int)f.toks[n].len, f.text + f.toks[n].off);
		else
			reject(&K, d->start, "#%.*s is not allowed in a variant", (int)f.toks[n].len, f.text + f.toks[n].off);
	}
	for (i = 0; i < f.nr_toks; i++)
		if (tok_is(&f, i, "<<<") && f.toks[i].kind != ASTRA_TOK_COMMENT)
			reject(&K, f.toks[i].off, "a variant must not launch kernels");

	clang_visitChildren(clang_getTranslationUnitCursor(f.tu), visit_candidate, &K);

	/* Every token of code belongs to an accepted declaration. */
	for (i = 0; i < f.nr_toks; i++) {
		size_t r, off = f.toks[i].off;
		int inside = 0;
		if (!is_code(&f, i) || tok_is(&f, i, ";"))
			continue;
		for (r = 0; r < K.nr_ranges && !inside; r += 2)
			inside = off >= K.ranges[r] && off < K.ranges[r + 1];
		if (!inside) {
			reject(&K, off, "unexpected text '%.*s'", (int)(f.toks[i].len > 40 ? 40 : f.toks[i].len),
			       f.text + off);
			break;
		}
	}

	if (f.nr_kc != 1) {
		if (!f.nr_kc) {
			astra_buf_addf(why, "no __global__ function definition (expected one named '%s')\n", orig->name);
		} else {
			astra_buf_addf(why, "%zu __global__ functions; a variant has exactly one kernel\n", f.nr_kc);
		}
		K.bad = 1;
		goto out;
	}
	kernel_basics(&k, &f, &f.kc[0]);
	have_kernel = 1;
	compare_kernel(&K, orig, &k);

	/* The launch line: `#pragma astra launch(...)` right above the kernel. */
	{
		struct astra_diags diags;
		long t = (long)tok_at(&f, k.start) - 1;
		memset(&diags, 0, sizeof(diags));
		astra_pragma_init(&k.pragma);
		while (t >= 0) {
			const struct ftok *tk = &f.toks[t];
			if (tk->kind == ASTRA_TOK_COMMENT && tk->dir < 0) {
				t--;
				continue;
			}
			if (tk->dir >= 0 && f.dirs[tk->dir].is_astra) {
				f.dirs[tk->dir].used = 1;
				t = (long)f.dirs[tk->dir].first - 1;
				continue;
			}
			break;
		}
		for (i = 0; i < f.nr_dirs; i++) {
			const struct directive *d = &f.dirs[i];
			char *text;
			unsigned line, col;
			if (!d->is_astra)
				continue;
			if (!d->used) {
				reject(&K, d->start, "#pragma astra must be right above the kernel");
				continue;
			}
			text = xstrndup(f.text + d->text_start, d->text_end - d->text_start);
			line_col(&f, d->text_start, &line, &col);
			astra_pragma_parse(&k.pragma, text, "variant", line, col, &diags);
			free(text);
		}
		for (i = 0; i < diags.nr; i++) {
			astra_buf_addf(why, "line %u: %s\n", diags.items[i].line, diags.items[i].msg);
			K.bad = 1;
		}
		astra_diags_release(&diags);
		if (k.pragma.nr_shapes || k.pragma.nr_buffers || k.pragma.nr_outputs || k.pragma.nr_types ||
		    k.pragma.scalars.nr || k.pragma.nr_ranges || k.pragma.nr_tolerances || k.pragma.nr_tunables ||
		    k.pragma.flops || (k.pragma.flags & (ASTRA_PRAGMA_OFF | ASTRA_PRAGMA_NOALIAS)))
			reject(&K, k.start, "only launch(grid=..., block=..., shmem=...) may appear in a variant's pragma");
		if ((k.pragma.grid || k.pragma.block || k.pragma.shmem) && (!k.pragma.grid || !k.pragma.block))
			reject(&K, k.start, "launch(...) in a variant must give both grid= and block=");
		if (k.pragma.grid)
			check_launch_expr(&K, k.start, "grid", k.pragma.grid, orig);
		if (k.pragma.block)
			check_launch_expr(&K, k.start, "block", k.pragma.block, orig);
		if (k.pragma.shmem)
			check_launch_expr(&K, k.start, "shmem", k.pragma.shmem, orig);
		if (!K.bad && k.pragma.grid && k.pragma.block) {
			v->grid = xstrdup(k.pragma.grid);
			v->block = xstrdup(k.pragma.block);
			v->shmem = k.pragma.shmem ? xstrdup(k.pragma.shmem) : NULL;
		}
	}

out:
	if (out && have_kernel && !K.bad) {
		out->kernel = k;
		out->nr_names = K.names.nr;
		out->names = xcalloc(K.names.nr + 1, sizeof(char *));
		for (i = 0; i < K.names.nr; i++)
			out->names[i] = xstrdup(K.names.v[i]);
	} else if (have_kernel) {
		astra_kernel_release(&k);
	}
	file_release(&f);
	clang_disposeIndex(idx);
	astra_vec_clear(&args);
	astra_vec_clear(&K.names);
	free(K.ranges);
	return K.bad ? -1 : 0;
}
