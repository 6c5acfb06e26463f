/*
 * manifest.h - a cache entry: what it holds and its self-checking file
 * format.
 *
 * An entry is the verdict of one optimization of one kernel (key) for one
 * GPU architecture (cc), with its evidence and, for a `faster` verdict, the
 * variant's source.  It is one file, so that replacing it is one rename:
 *
 *   astra-cc entry F xxh3-64:<16 hex> <M> <V>\n     header line (F: format)
 *   <M bytes: the manifest, pretty-printed JSON>       human-readable
 *   <V bytes: the variant source>                      empty unless `faster`
 *
 * Format 2 adds shape dispatch: a `faster` entry may hold several verified
 * variants, each run at the shapes where it won (the original being one of
 * the choices).  Its V bytes are the variants' texts one after the other;
 * the manifest's `variants` gives each one's length and checksum, and
 * `dispatch` the kernel parameters the choice reads and, for every
 * measured shape, their values, the version that runs there and the
 * confirming run's time of every version.  An entry is written in the
 * oldest format that can hold it: everything but a variant set is still
 * format 1, byte for byte as before, so an older astra-cc sharing the
 * directory (or a remote tier) keeps reading those; both formats are read.
 *
 * The header's checksum (XXH3-64) covers the M + V bytes after it; the
 * manifest repeats the variant's checksum and length.  A reader accepts an
 * entry only if the header parses, the version is known, the lengths add up
 * to the file's size exactly, the checksum matches, the manifest is a JSON
 * object of the same format version naming the expected key and cc, the
 * verdict is known, and the variant matches its own checksum.  Anything else
 * is rejected with a reason; the store counts it and treats it as a miss.
 *
 * This module is pure (no I/O, no logging) so that it can be fuzzed
 * (testsuite/fuzz/fuzz-manifest.c).
 */
#ifndef ASTRA_MANIFEST_H
#define ASTRA_MANIFEST_H

#include <stddef.h>

#include "lib/buf.h"

struct astra_json;

/* The newest entry format (written for shape-dispatched entries), and the oldest read. */
#define ASTRA_ENTRY_FORMAT 2
#define ASTRA_ENTRY_FORMAT_OLDEST 1
#define ASTRA_ENTRY_MAGIC "astra-cc entry "

enum astra_verdict {
	ASTRA_VERDICT_NONE = 0,   /* no verdict (a miss); never stored */
	ASTRA_VERDICT_FASTER,     /* a verified faster variant: substitute it */
	ASTRA_VERDICT_NO_FASTER,  /* optimized, nothing beat the original */
	ASTRA_VERDICT_FAILED,     /* the optimization could not run (see reason) */
};

/* "faster", "no-faster-variant", "failed" ("none" for NONE). */
const char *astra_verdict_name(enum astra_verdict v);
/* The verdict a name stands for, or ASTRA_VERDICT_NONE. */
enum astra_verdict astra_verdict_parse(const char *name);

/* One labelled input of the key, e.g. { "tokens", "9f3c..." }. */
struct astra_entry_input {
	char *label;
	char *value;
};

/* Baseline and variant timing at one shape (medians, relative spreads). */
struct astra_entry_timing {
	char *shape;               /* "rows=4096 cols=4096" */
	double baseline_us, baseline_spread;
	double variant_us, variant_spread;
};

/* A variant of a shape-dispatched entry (format 2). */
struct astra_entry_variant {
	char *text;
	size_t len;
	char *origin;              /* "rules: vectorize" */
};

/*
 * One measured shape of a shape-dispatched entry: the values the launcher
 * can see of it (one per astra_entry.params), the version that runs there,
 * and the confirming run's median and relative spread of every version at
 * it (index 0 the original, i the variant variants[i - 1]; a median of 0:
 * not timed).
 */
struct astra_entry_point {
	char *shape;               /* the test case, "T=__half tokens=2048 d=14336" */
	double *values;            /* nr_params */
	int choice;                /* 0: the original; i: variants[i - 1] */
	double *median_us;         /* 1 + nr_variants */
	double *spread;            /* 1 + nr_variants */
};

/*
 * Every string and array is owned by the entry and freed by
 * astra_entry_release().  Fields the caller does not know stay NULL / 0.
 */
struct astra_entry {
	/* Identity. */
	char *key;                 /* 32 lowercase hex digits (from front/key.c) */
	int cc;                    /* compute capability: 90 for sm_90 */
	enum astra_verdict verdict;
	char *reason;              /* why no variant / why it failed; optional */

	/* The kernel, and what its key was made of. */
	char *kernel;              /* name (required) */
	char *file;                /* where it is defined, as the compiler names it */
	unsigned line;
	struct astra_entry_input *inputs;
	size_t nr_inputs, alloc_inputs;

	/* The variant (verdict FASTER only); its launch geometry is in its text. */
	char *variant;
	size_t variant_len;
	char *origin;              /* "rules: vectorize,fastmath", "llm: <model>" */
	double speedup;            /* baseline / variant, geometric mean over shapes */

	/*
	 * Shape dispatch (format 2; variant is then NULL): the variants, the
	 * kernel parameters the launcher chooses by, and every measured shape
	 * with its choice.  Shapes with the same values have the same choice,
	 * and every variant is chosen somewhere.  nr_variants is 0 otherwise.
	 */
	struct astra_entry_variant *variants;
	size_t nr_variants, alloc_variants;
	char **params;
	size_t nr_params, alloc_params;
	struct astra_entry_point *points;
	size_t nr_points, alloc_points;

	/* Evidence. */
	struct astra_entry_timing *timings;
	size_t nr_timings, alloc_timings;
	char **shapes;             /* every shape tested, as text */
	size_t nr_shapes, alloc_shapes;
	long long *seeds;          /* random seeds used (0 .. 10^15-1: JSON keeps 15 digits) */
	size_t nr_seeds, alloc_seeds;

	/* Where and with what it was judged. */
	char *device;              /* "NVIDIA H100 80GB HBM3" */
	char *driver;              /* "580.65.06" */
	char *nvcc_version;        /* "13.0.48" */
	char *optimizer;           /* "rules", "llm", "both" */
	char *model;               /* LLM model name, or NULL */
	double seconds;            /* time the optimization took */
	long long created;         /* seconds since the epoch; 0: set by the store */

	/* The transcript stored beside the entry (set by the store). */
	char *transcript_checksum;
	long long transcript_len;  /* -1: none */

	/* Anything else the loop wants kept (a JSON object, owned), or NULL. */
	struct astra_json *extra;
};

void astra_entry_init(struct astra_entry *e);
void astra_entry_release(struct astra_entry *e);

/* Builders (copy their arguments). */
void astra_entry_add_input(struct astra_entry *e, const char *label, const char *value);
void astra_entry_add_timing(struct astra_entry *e, const char *shape, double baseline_us,
			    double baseline_spread, double variant_us, double variant_spread);
void astra_entry_add_shape(struct astra_entry *e, const char *shape);
void astra_entry_add_seed(struct astra_entry *e, long long seed);
void astra_entry_set_variant(struct astra_entry *e, const char *text, size_t len);
/* Shape dispatch: add the variants and the parameters first, then the points. */
void astra_entry_add_variant(struct astra_entry *e, const char *text, size_t len, const char *origin);
void astra_entry_add_param(struct astra_entry *e, const char *name);
/* values: nr_params; median_us, spread: 1 + nr_variants (NULL: zeros). */
void astra_entry_add_point(struct astra_entry *e, const char *shape, const double *values, int choice,
			   const double *median_us, const double *spread);
/* Does e hold a variant set with shape dispatch (format 2)? */
int astra_entry_is_dispatch(const struct astra_entry *e);
/* The format e is written in: 2 for a variant set, else 1. */
int astra_entry_format(const struct astra_entry *e);
/*
 * Is the shape dispatch of e consistent (choices in range, every variant
 * chosen, equal values with equal choices, parameters C identifiers)?
 * 0, or -1 with *why.  Encoding and decoding check it.
 */
int astra_entry_check_dispatch(const struct astra_entry *e, const char **why);

/* "xxh3-64:<16 hex>" of data, into out (at least 25 bytes). */
void astra_checksum(const void *data, size_t len, char out[25]);

/* Is key 32 lowercase hex digits? */
int astra_key_ok(const char *key);

/*
 * The manifest as JSON (a new object the caller frees).  Includes
 * everything except the variant's text.
 */
struct astra_json *astra_entry_manifest(const struct astra_entry *e);

/*
 * Serialize e into out (appending).  Returns 0, or -1 with *why set when e
 * cannot be stored (bad key, no kernel name, a FASTER verdict without a
 * variant, a variant with another verdict, a variant set that is not
 * consistent).  The format is astra_entry_format(e).
 */
int astra_entry_encode(const struct astra_entry *e, struct astra_buf *out, const char **why);

/* astra_entry_decode() results. */
enum astra_decode {
	ASTRA_DECODE_OK = 0,
	ASTRA_DECODE_CORRUPT = -1,  /* fails a check: truncated, flipped, malformed */
	ASTRA_DECODE_UNKNOWN = -2,  /* a format version this astra-cc does not read (newer?) */
};

/*
 * Parse and check an entry file.  key / cc: what the caller asked for (NULL
 * / 0: accept any; listing does that).  On success fills e (initialized by
 * the callee) and returns ASTRA_DECODE_OK; otherwise returns a negative
 * enum astra_decode, sets *why to a static description and leaves e empty.
 * manifest_out, if not NULL, receives the parsed manifest (caller frees)
 * on success.
 */
enum astra_decode astra_entry_decode(const char *data, size_t len, const char *key, int cc,
				     struct astra_entry *e, struct astra_json **manifest_out,
				     const char **why);

#endif
