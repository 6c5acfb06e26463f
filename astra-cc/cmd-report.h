/*
 * cmd-report.h - `astra-cc --report DIR` and `--report-json FILE`: what was
 * done to the kernels, and what proves it, in one place.
 *
 * The report covers every entry of the cache, or the annotated kernels of
 * some translation units (files with their nvcc flags after `--`, or a
 * compile_commands.json with -p): for those it computes each kernel's key
 * as a build would and shows the entries that the build would use, and
 * the kernels that have none yet.
 *
 * The data is gathered once into a JSON document (the --report-json
 * output, documented in doc/report.md); the site (astra-cc/report-html.h)
 * is drawn from that document, so the two always agree.  Cache entries
 * are untrusted input: every string from them is escaped where it is
 * written, page names are made from the validated key and architecture
 * only, and LLM transcripts pass through the redaction of agents/llm.h
 * again before they are shown.
 */
#ifndef ASTRA_CMD_REPORT_H
#define ASTRA_CMD_REPORT_H

/* The command: argv[0] is "--report" or "--report-json" (with =VALUE or not). */
int astra_cmd_report(int argc, char **argv);

#define ASTRA_REPORT_FORMAT 1

#endif
