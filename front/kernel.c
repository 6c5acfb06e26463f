/*
 * kernel.c - lifecycle of the kernel model (see kernel.h).
 *
 * Kept apart from extract.c so that the modules that only read or build
 * these structs (the key, substitution, the verifier, the optimizers) do
 * not depend on the libclang adapter.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "front/kernel.h"
#include "front/lex.h"

static void free_strv(char **v, size_t n)
{
	size_t i;
	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void astra_kernel_release(struct astra_kernel *k)
{
	size_t i;
	free(k->name);
	free(k->file);
	free(k->text);
	free_strv(k->tmpl_params, k->nr_tmpl);
	free_strv(k->tmpl_kinds, k->nr_tmpl);
	free_strv(k->tmpl_defaults, k->nr_tmpl);
	free(k->launch_bounds);
	for (i = 0; i < k->nr_params; i++) {
		free(k->params[i].name);
		free(k->params[i].type);
		free(k->params[i].elem_type);
	}
	free(k->params);
	astra_pragma_release(&k->pragma);
	free_strv(k->deps, k->nr_deps);
	free_strv(k->dep_texts, k->nr_deps);
	free_strv(k->dep_norms, k->nr_deps);
	free_strv(k->dep_files, k->nr_deps);
	for (i = 0; i < k->nr_tokens; i++)
		free(k->tokens[i].text);
	free(k->tokens);
	free(k->norm);
	free(k->headers);
	astra_env_release(&k->env);
	memset(k, 0, sizeof(*k));
}

void astra_macro_release(struct astra_macro *m)
{
	free(m->name);
	free_strv(m->params, m->nr_params);
	free(m->body);
	memset(m, 0, sizeof(*m));
}

void astra_env_release(struct astra_env *env)
{
	size_t i, j;
	for (i = 0; i < env->nr_macros; i++)
		astra_macro_release(&env->macros[i]);
	free(env->macros);
	for (i = 0; i < env->nr_aliases; i++) {
		free(env->aliases[i].name);
		free(env->aliases[i].type);
	}
	free(env->aliases);
	for (i = 0; i < env->nr_funcs; i++) {
		struct astra_func *fn = &env->funcs[i];
		free(fn->name);
		free(fn->ret);
		free(fn->body);
		for (j = 0; j < fn->nr_params; j++) {
			free(fn->params[j].name);
			free(fn->params[j].type);
			free(fn->params[j].elem_type);
		}
		free(fn->params);
	}
	free(env->funcs);
	for (i = 0; i < env->nr_consts; i++) {
		free(env->consts[i].name);
		free(env->consts[i].type);
		free(env->consts[i].init);
	}
	free(env->consts);
	memset(env, 0, sizeof(*env));
}

#define ENV_FIND(what, arr, nr)                                                                         \
	const struct astra_##what *astra_env_##what(const struct astra_env *env, const char *name, size_t len) \
	{                                                                                               \
		size_t i;                                                                               \
		for (i = 0; env && i < env->nr; i++)                                                    \
			if (strlen(env->arr[i].name) == len && !memcmp(env->arr[i].name, name, len))   \
				return &env->arr[i];                                                    \
		return NULL;                                                                            \
	}

ENV_FIND(macro, macros, nr_macros)
ENV_FIND(alias, aliases, nr_aliases)
ENV_FIND(func, funcs, nr_funcs)
ENV_FIND(const, consts, nr_consts)

void astra_variant_release(struct astra_variant *v)
{
	free(v->text);
	free(v->grid);
	free(v->block);
	free(v->shmem);
	free(v->origin);
	memset(v, 0, sizeof(*v));
}

static void launch_release(struct astra_launch *l)
{
	free(l->kernel);
	free(l->name);
	free_strv(l->config, l->nr_config);
	free_strv(l->args, l->nr_args);
	memset(l, 0, sizeof(*l));
}

void astra_tu_release(struct astra_tu *tu)
{
	size_t i;
	free(tu->path);
	free(tu->text);
	for (i = 0; i < tu->nr_kernels; i++)
		astra_kernel_release(&tu->kernels[i]);
	free(tu->kernels);
	for (i = 0; i < tu->nr_launches; i++)
		launch_release(&tu->launches[i]);
	free(tu->launches);
	astra_diags_release(&tu->diags);
	astra_includes_release(&tu->includes);
	memset(tu, 0, sizeof(*tu));
}

int astra_launch_name(const char *name, size_t len)
{
	static const char *const names[] = {
		"dim3", "min", "max", "std", "sizeof", "alignof", "static_cast", "reinterpret_cast", "const_cast",
		"int", "unsigned", "long", "short", "char", "signed", "size_t", "float", "double", "bool", "true",
		"false", "int32_t", "uint32_t", "int64_t", "uint64_t", "ptrdiff_t", "decltype", "constexpr",
	};
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return 1;
	return 0;
}

const struct astra_kernel *astra_tu_kernel(const struct astra_tu *tu, const char *name)
{
	size_t i;
	for (i = 0; i < tu->nr_kernels; i++)
		if (!strcmp(tu->kernels[i].name, name))
			return &tu->kernels[i];
	return NULL;
}

/* Does expression e name the identifier name (len bytes), not as a member (x.name)? */
static int names_ident(const char *e, const char *name, size_t len)
{
	struct astra_lexed l;
	size_t i;
	int found = 0;
	if (!e)
		return 0;
	astra_lex(e, strlen(e), ASTRA_LEX_LENIENT, &l);
	for (i = 0; i < l.nr && !found; i++)
		found = l.toks[i].kind == ASTRA_LEX_IDENT && l.toks[i].len == len && !memcmp(e + l.toks[i].off, name, len) &&
			!(i && (astra_lex_is(e, &l.toks[i - 1], ".") || astra_lex_is(e, &l.toks[i - 1], "->")));
	astra_lexed_release(&l);
	return found;
}

/*
 * Whether the host can name `name` (len bytes) in a launch expression: a
 * macro, type, constant or host-callable function of the kernel's file
 * that the kernel or its pragma refers to (a `ceil_div`, a BLOCK_SIZE, a
 * typedef'd element type in a sizeof).  A generated host launcher sits
 * right after the kernel, where all of those are in scope; a function
 * that only the device may call (`__device__` without `__host__`,
 * `__global__`) or `__constant__` data is not.  A name the file does not
 * define but the pragma's own launch(...) uses (a header's macro) is in
 * scope there too.
 */
int astra_kernel_host_name(const struct astra_kernel *k, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < k->nr_deps; i++) {
		const char *t = k->dep_texts ? k->dep_texts[i] : NULL;
		if (strlen(k->deps[i]) != len || memcmp(k->deps[i], name, len))
			continue;
		if (!t)
			break;   /* defined elsewhere (a header): as a name the file does not define */
		if (strstr(t, "__global__") || (strncmp(t, "#", 1) && strstr(t, "__constant__")))
			return 0;
		if (strstr(t, "__device__") && !strstr(t, "__host__") && strncmp(t, "#", 1))
			return 0;
		return 1;
	}
	/*
	 * A name the file does not define that the user's own launch(...)
	 * uses (NL, DIM_THREAD_BLOCK_X of a header): the launch site evaluates
	 * it for the original already.  Not astra_grid, astra_block,
	 * astra_shmem: a launch a capture inferred names them for a geometry
	 * known per captured shape only (agents/captured.c), which the test
	 * program defines and a build never does.
	 */
	if ((len < 6 || memcmp(name, "astra_", 6)) &&
	    (names_ident(k->pragma.grid, name, len) || names_ident(k->pragma.block, name, len) ||
	     names_ident(k->pragma.shmem, name, len)))
		return 1;
	/* the build's own -DNAME=VALUE (front/extract.c): the host sees it too */
	{
		const struct astra_macro *m = astra_env_macro(&k->env, name, len);
		return m && !m->function_like;
	}
}
