/*
 * json.h - JSON for astra-cc: the only door to cJSON.
 *
 * Cache manifests, test-program reports, statistics and LLM requests are
 * JSON.  The rest of astra-cc sees this opaque type; json.c is the one file
 * that includes cjson/cJSON.h (STYLE.md: one adapter per foreign API).
 *
 * Ownership: a value returned by astra_json_parse/astra_json_new_* is owned
 * by the caller and freed with astra_json_free().  Values returned by the
 * getters belong to their parent.  astra_json_set()/astra_json_push() take
 * ownership of the child.  Strings returned by getters live as long as the
 * node; astra_json_print() returns malloc'd text.
 *
 * Getters are NULL-safe: asking a NULL or wrongly-typed node for a member
 * returns NULL (or the default), so reading untrusted input needs no
 * checks beyond the final values.
 */
#ifndef ASTRA_JSON_H
#define ASTRA_JSON_H

#include <stddef.h>

struct astra_json;

/* Parse text (len bytes; need not be NUL-terminated); NULL when invalid. */
struct astra_json *astra_json_parse(const char *text, size_t len);
struct astra_json *astra_json_new_object(void);
struct astra_json *astra_json_new_array(void);
struct astra_json *astra_json_new_string(const char *s);
struct astra_json *astra_json_new_number(double v);
void astra_json_free(struct astra_json *j);
struct astra_json *astra_json_dup(const struct astra_json *j);

int astra_json_is_object(const struct astra_json *j);
int astra_json_is_array(const struct astra_json *j);
int astra_json_is_string(const struct astra_json *j);
int astra_json_is_number(const struct astra_json *j);
int astra_json_is_bool(const struct astra_json *j);
int astra_json_is_null(const struct astra_json *j);

/* Object members. */
struct astra_json *astra_json_get(const struct astra_json *obj, const char *key);
const char *astra_json_get_str(const struct astra_json *obj, const char *key);
double astra_json_get_num(const struct astra_json *obj, const char *key, double def);
int astra_json_get_bool(const struct astra_json *obj, const char *key, int def);

/* Scalars. */
const char *astra_json_str(const struct astra_json *j);   /* NULL unless a string */
double astra_json_num(const struct astra_json *j, double def);
int astra_json_bool(const struct astra_json *j, int def);

/* Arrays (and objects: their members in order). */
size_t astra_json_len(const struct astra_json *j);
struct astra_json *astra_json_at(const struct astra_json *j, size_t i);
/* The key of a member reached through astra_json_at() on an object. */
const char *astra_json_key(const struct astra_json *member);

/* Building.  Setting an existing key replaces it. */
void astra_json_set(struct astra_json *obj, const char *key, struct astra_json *child);
void astra_json_set_str(struct astra_json *obj, const char *key, const char *v);
void astra_json_set_num(struct astra_json *obj, const char *key, double v);
void astra_json_set_bool(struct astra_json *obj, const char *key, int v);
void astra_json_set_null(struct astra_json *obj, const char *key);
struct astra_json *astra_json_set_object(struct astra_json *obj, const char *key);
struct astra_json *astra_json_set_array(struct astra_json *obj, const char *key);
void astra_json_remove(struct astra_json *obj, const char *key);
void astra_json_push(struct astra_json *arr, struct astra_json *child);
void astra_json_push_str(struct astra_json *arr, const char *v);
void astra_json_push_num(struct astra_json *arr, double v);

/* Text: pretty (indented, one member per line) or compact. */
char *astra_json_print(const struct astra_json *j, int pretty);

#endif
