/*
 * types.c - sizes of the element types and resolution through a file's
 * aliases (see types.h).
 */
#include "autoconfig.h"

#include <ctype.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/util.h"
#include "front/types.h"

char *astra_type_bare(const char *type)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *p = type;
	while (*p) {
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *q = p;
			while (isalnum((unsigned char)*q) || *q == '_' || *q == ':')
				q++;
			static const char *const drop[] = { "const", "volatile", "__restrict__", "__restrict", "__shared__",
							    "static", "register", "constexpr", NULL };
			const char *const *w;
			for (w = drop; *w; w++)
				if ((size_t)(q - p) == strlen(*w) && !memcmp(p, *w, (size_t)(q - p)))
					break;
			if (!*w)
				astra_buf_add(&b, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (!isspace((unsigned char)*p))
			astra_buf_addch(&b, *p);
		p++;
	}
	return astra_buf_detach(&b, NULL);
}

int astra_type_builtin_size(const char *t)
{
	static const struct {
		const char *name;
		int size;
	} sizes[] = {
		{ "float", 4 }, { "double", 8 }, { "int", 4 }, { "unsigned", 4 }, { "unsignedint", 4 },
		{ "signed", 4 }, { "signedint", 4 }, { "long", 8 }, { "longint", 8 }, { "longlong", 8 },
		{ "unsignedlong", 8 }, { "unsignedlonglong", 8 }, { "longlongint", 8 }, { "int64_t", 8 },
		{ "uint64_t", 8 }, { "size_t", 8 }, { "ptrdiff_t", 8 }, { "int32_t", 4 }, { "uint32_t", 4 },
		{ "short", 2 }, { "unsignedshort", 2 }, { "int16_t", 2 }, { "uint16_t", 2 }, { "char", 1 },
		{ "signedchar", 1 }, { "unsignedchar", 1 }, { "int8_t", 1 }, { "uint8_t", 1 }, { "bool", 1 },
		{ "half", 2 }, { "__half", 2 }, { "__nv_bfloat16", 2 }, { "nv_bfloat16", 2 },
		{ "__nv_fp8_e4m3", 1 }, { "__nv_fp8_e5m2", 1 }, { "__nv_fp8_storage_t", 1 }, { "half2", 4 },
		{ "__half2", 4 }, { "__nv_bfloat162", 4 }, { "nv_bfloat162", 4 }, { "float2", 8 },
		{ "float4", 16 }, { "int2", 8 }, { "int4", 16 }, { "uint2", 8 }, { "uint4", 16 },
		{ "double2", 16 },
	};
	size_t i;
	if (!strncmp(t, "std::", 5))
		t += 5;
	else if (!strncmp(t, "::", 2))
		t += 2;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (!strcmp(sizes[i].name, t))
			return sizes[i].size;
	return 0;
}

int astra_type_integer_sign(const char *t)
{
	static const char *const sgn[] = { "int", "long", "long long", "short", "signed char", "int32_t", "int64_t",
					   "int16_t", "int8_t", "long int", "long long int", "short int" };
	static const char *const uns[] = { "unsigned", "unsigned int", "unsigned long", "unsigned long long",
					   "unsigned short", "unsigned char", "uint32_t", "uint64_t", "uint16_t",
					   "uint8_t", "size_t" };
	size_t i;
	if (!t)
		return 0;
	for (i = 0; i < ARRAY_SIZE(sgn); i++)
		if (!strcmp(t, sgn[i]))
			return 1;
	for (i = 0; i < ARRAY_SIZE(uns); i++)
		if (!strcmp(t, uns[i]))
			return 2;
	return 0;
}

static char *resolve(const struct astra_env *env, const char *bare, int depth)
{
	const struct astra_alias *a = astra_env_alias(env, bare, strlen(bare));
	char *b, *r;
	if (!a || depth > 16)
		return xstrdup(bare);
	b = astra_type_bare(a->type);
	if (!strcmp(b, bare)) /* `typedef struct x x;` */
		return b;
	r = resolve(env, b, depth + 1);
	free(b);
	return r;
}

char *astra_type_resolve(const struct astra_env *env, const char *type)
{
	char *b = astra_type_bare(type), *r;
	r = resolve(env, b, 0);
	free(b);
	return r;
}

int astra_type_size(const struct astra_env *env, const char *type)
{
	char *r = astra_type_resolve(env, type);
	int s = astra_type_builtin_size(r);
	free(r);
	return s;
}

int astra_type_is_type(const struct astra_env *env, const char *text)
{
	static const char *const words[] = { "const", "volatile", "unsigned", "signed", "long", "short", "int",
					     "char", "float", "double", "bool", "void", NULL };
	char *r = astra_type_resolve(env, text);
	const char *p = text;
	int ok = astra_type_builtin_size(r) > 0;
	free(r);
	if (ok)
		return 1;
	/* type keywords only ("unsigned long long") */
	ok = 0;
	while (*p) {
		const char *q;
		const char *const *w;
		size_t n;
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (!isalpha((unsigned char)*p))
			return 0;
		for (q = p; isalnum((unsigned char)*q) || *q == '_'; q++)
			;
		n = (size_t)(q - p);
		for (w = words; *w; w++)
			if (strlen(*w) == n && !memcmp(*w, p, n))
				break;
		if (!*w)
			return 0;
		ok = 1;
		p = q;
	}
	return ok;
}
