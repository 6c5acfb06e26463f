/*
 * verify-cmd.c - `astra-cc --verify` (see verify-cmd.h).
 *
 * A file of its own because it is presentation: it ties extraction and the
 * verifier together as the loop does, and turns the result into a report a
 * person can check (which cases, which checks, which figures) or into the
 * JSON that verify/verify.c defines.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra-cc/cmd-util.h"
#include "astra-cc/cmd-verify.h"
#include "verify/verify.h"
#include "verify/profile.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/locate.h"
#include "lib/nvccopts.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "front/extract.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: %s --verify FILE.cu --kernel NAME --candidate VARIANT.cu [--candidate ...]\n"
		"         [--json] [--no-run] [--no-timing] [--timing-only] [--no-sanitizer] [--no-screen]\n"
		"         [--keep-workdir]"
		" [--cc N] [--seed N] [--timeout S] [--watchdog S] [--] [nvcc flags]\n",
		astra_progname);
}

static const char *human_bytes(double b, char *buf, size_t n)
{
	if (b >= 1e9)
		snprintf(buf, n, "%.2f GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, n, "%.2f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(buf, n, "%.1f kB", b / 1e3);
	else
		snprintf(buf, n, "%.0f B", b);
	return buf;
}

static void print_timing(const struct astra_case_result *r)
{
	printf("%.2f us (q25-q75 %.2f-%.2f, %d runs", r->timing.median, r->timing.q25, r->timing.q75, r->timing.reps);
	if (r->prof.bw_frac > 0)
		printf(", %.0f%% of the copy ceiling", 100 * r->prof.bw_frac);
	if (r->prof.flop_frac > 0.01)
		printf(", %.0f%% of the FMA ceiling", 100 * r->prof.flop_frac);
	if (r->above_ceiling)
		printf(", ABOVE THE CEILING");
	printf(")");
}

static void print_text(const struct astra_verify_result *r, const char *file, const char *kernel)
{
	size_t i, j, acc = 0, rej = 0, nr = 0;
	char b1[32];

	printf("verify: kernel %s in %s, %zu candidate%s\n", kernel, file, r->nr_cands, r->nr_cands == 1 ? "" : "s");
	if (r->device)
		printf("device: %s (sm_%d, CUDA driver %d, runtime %d); ceilings: copy %.0f GB/s, FMA %.0f GFLOP/s\n",
		       r->device, r->cc, r->driver, r->runtime, r->ceilings.copy_gbps, r->ceilings.fma_gflops);
	if (r->nr_cases) {
		printf("cases: %zu\n", r->nr_cases);
		for (i = 0; i < r->nr_cases; i++) {
			printf("  case %zu: %s; moves %s per launch", i, r->labels[i], human_bytes(r->bytes[i], b1, sizeof(b1)));
			if (r->baseline[i].timed) {
				printf("; original ");
				print_timing(&r->baseline[i]);
			}
			printf("\n");
		}
	}
	if (r->ran) {
		printf("checks: per case 4 trials (uniform, normal and wide inputs, fresh each trial; outputs poisoned\n"
		       "        or pre-filled with random data), each version run twice on different buffers, inputs\n"
		       "        checksummed, red zones around every buffer, one more trial after timing;\n"
		       "        misaligned base pointers: %s; compute-sanitizer memcheck: %s, racecheck: %s\n",
		       r->misaligned ? "tried" : "not tried (see notes)", r->memcheck ? "ran" : "did not run",
		       r->racecheck ? "ran" : "did not run");
	}
	for (i = 0; i < r->nr_cands; i++) {
		const struct astra_cand_result *c = &r->cands[i];
		printf("candidate %s: %s", c->name, astra_cand_verdict_name(c->verdict));
		if (c->verdict == ASTRA_CAND_REJECTED) {
			rej++;
			printf(" (%s): %s\n", c->check, c->reason);
			if (c->compile_log) {
				const char *p = c->compile_log;
				int lines = 0;
				while (p && *p && lines++ < 8) {
					const char *e = strchr(p, '\n');
					printf("    | %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
					p = e ? e + 1 : NULL;
				}
			}
			continue;
		}
		if (c->verdict == ASTRA_CAND_NOT_RUN) {
			nr++;
			if (c->reason && r->not_run && !strcmp(c->reason, r->not_run))
				printf(" (see below)\n");
			else
				printf(": %s\n", c->reason ? c->reason : "not run");
			/* --timing-only: the measurements without a verdict. */
			for (j = 0; c->cases && j < r->nr_cases; j++)
				if (c->cases[j].timed) {
					printf("  case %zu: ", j);
					print_timing(&c->cases[j]);
					printf(" %.2fx, %s\n", c->cases[j].speedup, c->cases[j].cmp > 0 ? "faster"
					       : c->cases[j].cmp < 0 ? "slower" : "within noise");
				}
			continue;
		}
		acc++;
		if (c->measurement_error)
			printf("; timing NOT TRUSTED: faster than the device's ceiling allows (a measurement error)");
		else if (c->speedup > 0)
			printf("; %s: %.2fx on the largest case, %.2fx geometric mean", c->faster ? "faster" : "not faster",
			       c->speedup_largest, c->speedup);
		if (c->regs >= 0)
			printf("; %d registers%s", c->regs, c->spills > 0 ? ", spills" : "");
		printf("\n");
		for (j = 0; c->cases && j < r->nr_cases; j++) {
			const struct astra_case_result *k = &c->cases[j];
			printf("  case %zu: %d trials, max error %.3g (%.3g of the tolerance)", j, k->trials, k->max_abs,
			       k->max_ratio);
			if (k->timed) {
				printf("; ");
				print_timing(k);
				printf(" %.2fx, %s", k->speedup, k->cmp > 0 ? "faster" : k->cmp < 0 ? "slower" : "within noise");
			}
			printf("\n");
		}
	}
	if (r->not_run && r->ran)
		printf("not finished: %s\n", r->not_run);
	if (r->notes) {
		const char *p = r->notes;
		printf("notes:\n");
		while (p && *p) {
			const char *e = strchr(p, '\n');
			printf("  %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
			p = e ? e + 1 : NULL;
		}
	}
	if (r->setup_check)
		printf("the test itself is wrong (%s): %s\n", r->setup_check, r->not_run);
	else if (!r->ran && r->not_run)
		printf("not run: %s\n", r->not_run);
	printf("result: %zu accepted, %zu rejected, %zu not run\n", acc, rej, nr);
	if (r->workdir)
		printf("work directory kept: %s\n", r->workdir);
}

int astra_verify_command(int argc, char **argv)
{
	struct astra_verify_opts o = ASTRA_VERIFY_OPTS_INIT;
	struct astra_verify_result res;
	struct astra_vec nvcc_argv = ASTRA_VEC_INIT, cand_files = ASTRA_VEC_INIT;
	struct astra_cmdline cl;
	struct astra_tu tu;
	struct astra_variant *cands = NULL;
	const struct astra_kernel *k;
	const char *kernel = NULL, *why = NULL;
	char *nvcc = NULL;
	int i, json = 0, ret = 2, rest = 0;
	size_t n;

	memset(&tu, 0, sizeof(tu));
	memset(&res, 0, sizeof(res));
	astra_vec_push(&nvcc_argv, "nvcc");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (rest) {
			astra_vec_push(&nvcc_argv, a);
		} else if (!strcmp(a, "--")) {
			rest = 1;
		} else if (!strcmp(a, "--kernel") && v) {
			kernel = v;
			i++;
		} else if (!strcmp(a, "--candidate") && v) {
			astra_vec_push(&cand_files, v);
			i++;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--no-run")) {
			o.no_run = 1;
		} else if (!strcmp(a, "--no-timing")) {
			o.timing = 0;
		} else if (!strcmp(a, "--timing-only")) {
			o.timing_only = 1;
		} else if (!strcmp(a, "--no-sanitizer")) {
			o.sanitizer = 0;
		} else if (!strcmp(a, "--no-screen")) {
			o.screen = 0;
		} else if (!strcmp(a, "--program") && v) {
			o.program = v;
			i++;
		} else if (!strcmp(a, "--keep-workdir")) {
			o.keep = 1;
		} else if (!strcmp(a, "--cc") && v) {
			o.cc = atoi(v);
			i++;
		} else if (!strcmp(a, "--seed") && v) {
			o.seed = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--timeout") && v) {
			o.timeout = atof(v);
			i++;
		} else if (!strcmp(a, "--watchdog") && v) {
			o.watchdog = atof(v);
			i++;
		} else if (!strcmp(a, "--help")) {
			usage(stdout);
			astra_vec_clear(&nvcc_argv);
			astra_vec_clear(&cand_files);
			return 0;
		} else {
			astra_vec_push(&nvcc_argv, a);
		}
	}
	astra_cmdline_parse(&cl, (int)nvcc_argv.nr, nvcc_argv.v);
	if (!kernel || !cand_files.nr || cl.inputs.nr != 1) {
		usage(stderr);
		goto out;
	}
	nvcc = astra_locate_nvcc(0, &why);
	if (!nvcc) {
		fprintf(stderr, "%s: cannot find the real nvcc: %s\n", astra_progname, why);
		goto out;
	}
	if (astra_extract_tu(&tu, cl.inputs.v[0], &cl) < 0) {
		fprintf(stderr, "%s: cannot read the kernels of %s (see the log)\n", astra_progname, cl.inputs.v[0]);
		goto out;
	}
	{
		char *d = astra_diags_format(&tu.diags);
		fputs(d, stderr);
		free(d);
	}
	k = astra_tu_kernel(&tu, kernel);
	if (!k) {
		fprintf(stderr, "%s: %s has no kernel `%s` annotated with #pragma astra", astra_progname,
			cl.inputs.v[0], kernel);
		for (n = 0; n < tu.nr_kernels; n++)
			fprintf(stderr, "%s%s", n ? ", " : " (annotated: ", tu.kernels[n].name);
		fprintf(stderr, "%s\n", tu.nr_kernels ? ")" : "");
		goto out;
	}
	if (k->bad_pragma) {
		fprintf(stderr, "%s: the pragma of `%s` has mistakes (above): fix them first\n", astra_progname, kernel);
		goto out;
	}
	cands = xcalloc(cand_files.nr, sizeof(*cands));
	for (n = 0; n < cand_files.nr; n++) {
		struct astra_buf b = ASTRA_BUF_INIT;
		if (astra_buf_read_file(&b, cand_files.v[n], 1 << 22) < 0) {
			fprintf(stderr, "%s: cannot read %s: %s\n", astra_progname, cand_files.v[n], strerror(errno));
			astra_buf_release(&b);
			goto out;
		}
		cands[n].text = astra_buf_detach(&b, NULL);
		cands[n].origin = xasprintf("file: %s", cand_files.v[n]);
	}
	o.nvcc = nvcc;
	if (astra_verify(&tu, k, &cl, cands, (const char *const *)cand_files.v, cand_files.nr, &o, &res) < 0 &&
	    !res.not_run) {
		fprintf(stderr, "%s: verification failed (see the log)\n", astra_progname);
		goto out;
	}
	if (json) {
		char *s = astra_verify_result_json(&res, 1);
		printf("%s\n", s);
		free(s);
	} else {
		print_text(&res, cl.inputs.v[0], kernel);
	}
	/* 2: the test itself is wrong; 1: a rejection; 3: not run; 0: all accepted. */
	ret = 0;
	if (res.setup_check)
		ret = 2;
	for (n = 0; ret != 2 && n < res.nr_cands; n++)
		if (res.cands[n].verdict == ASTRA_CAND_REJECTED)
			ret = 1;
	for (n = 0; !ret && n < res.nr_cands; n++)
		if (res.cands[n].verdict == ASTRA_CAND_NOT_RUN)
			ret = 3;
out:
	if (cands)
		for (n = 0; n < cand_files.nr; n++)
			astra_variant_release(&cands[n]);
	free(cands);
	astra_verify_result_release(&res);
	astra_tu_release(&tu);
	astra_cmdline_release(&cl);
	astra_vec_clear(&nvcc_argv);
	astra_vec_clear(&cand_files);
	free(nvcc);
	return ret;
}

/*
 * --judge-timing FILE [--json]: apply the timing rule (verify/profile.h) to
 * the "time" events of a saved test-program run, as the verifier does.  A
 * tool for checking measurements (bench/verify-gpu.sh repeats the timing
 * phase of one compiled program and judges each run with it).
 */
int astra_verify_judge_command(int argc, char **argv)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_timing *t = NULL;   /* [case * nv + version] */
	int *have = NULL;
	size_t nc = 0, nv = 0, i, v;
	const char *path = NULL, *p;
	int json = 0, k, first = 1;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--json"))
			json = 1;
		else if (argv[k][0] == '-' && argv[k][1])
			return astra_cmd_usage_error(argv[0], "unrecognized option '%s'", argv[k]);
		else if (path)
			return astra_cmd_usage_error(argv[0], "unexpected argument '%s'", argv[k]);
		else
			path = argv[k];
	}
	if (!path || astra_buf_read_file(&b, path, 1 << 26) < 0) {
		fprintf(stderr, "usage: %s --judge-timing FILE [--json]  (FILE: a test program's output)\n",
			astra_progname);
		astra_buf_release(&b);
		return 2;
	}
	/* Two passes: sizes, then values. */
	for (k = 0; k < 2; k++) {
		for (p = b.buf; p && *p;) {
			const char *e = strchr(p, '\n');
			struct astra_json *j = astra_json_parse(p, e ? (size_t)(e - p) : strlen(p));
			const char *ev = astra_json_get_str(j, "event");
			p = e ? e + 1 : NULL;
			if (ev && !strcmp(ev, "time")) {
				size_t ci = (size_t)astra_json_get_num(j, "case", 0);
				size_t vi = (size_t)astra_json_get_num(j, "version", 0);
				if (k == 0) {
					if (ci + 1 > nc)
						nc = ci + 1;
					if (vi + 1 > nv)
						nv = vi + 1;
				} else {
					struct astra_timing *x = &t[ci * nv + vi];
					x->median = astra_json_get_num(j, "median_us", 0);
					x->q25 = astra_json_get_num(j, "q25_us", 0);
					x->q75 = astra_json_get_num(j, "q75_us", 0);
					x->min = astra_json_get_num(j, "min_us", 0);
					x->reps = (int)astra_json_get_num(j, "reps", 0);
					have[ci * nv + vi] = 1;
				}
			}
			astra_json_free(j);
		}
		if (k == 0) {
			t = xcalloc(nc * nv + 1, sizeof(*t));
			have = xcalloc(nc * nv + 1, sizeof(*have));
		}
	}
	if (json)
		printf("[");
	for (i = 0; i < nc; i++)
		for (v = 1; v < nv; v++) {
			double s = 0;
			int cmp;
			if (!have[i * nv] || !have[i * nv + v])
				continue;
			cmp = astra_profile_compare(&t[i * nv], &t[i * nv + v], &s);
			if (json)
				printf("%s{\"case\": %zu, \"version\": %zu, \"baseline_us\": %.4f, \"median_us\": %.4f, "
				       "\"speedup\": %.4f, \"verdict\": \"%s\"}", first ? "" : ", ", i, v, t[i * nv].median,
				       t[i * nv + v].median, s, cmp > 0 ? "faster" : cmp < 0 ? "slower" : "same");
			else
				printf("case %zu version %zu: %.2f us vs %.2f us (q25-q75 %.2f-%.2f vs %.2f-%.2f): %.3fx, %s\n",
				       i, v, t[i * nv + v].median, t[i * nv].median, t[i * nv + v].q25, t[i * nv + v].q75,
				       t[i * nv].q25, t[i * nv].q75, s,
				       cmp > 0 ? "faster" : cmp < 0 ? "slower" : "same (within noise)");
			first = 0;
		}
	if (json)
		printf("]\n");
	free(t);
	free(have);
	astra_buf_release(&b);
	return 0;
}
