/*
 * json.c - the cJSON adapter (see json.h).  The only file that includes
 * cjson/cJSON.h; struct astra_json is a cJSON node under another name.
 */
#include "autoconfig.h"

#include <math.h>

#include <cjson/cJSON.h>

#include "lib/json.h"
#include "lib/util.h"

#define C(j) ((cJSON *)(j))
#define J(c) ((struct astra_json *)(c))

static void *check(void *p)
{
	if (!p)
		die("out of memory building JSON");
	return p;
}

struct astra_json *astra_json_parse(const char *text, size_t len)
{
	return J(cJSON_ParseWithLength(text, len));
}

struct astra_json *astra_json_new_object(void) { return J(check(cJSON_CreateObject())); }
struct astra_json *astra_json_new_array(void) { return J(check(cJSON_CreateArray())); }
struct astra_json *astra_json_new_string(const char *s) { return J(check(cJSON_CreateString(s))); }

struct astra_json *astra_json_new_number(double v)
{
	/* JSON has no NaN or infinity: they become null. */
	if (isnan(v) || isinf(v))
		return J(check(cJSON_CreateNull()));
	return J(check(cJSON_CreateNumber(v)));
}

void astra_json_free(struct astra_json *j) { cJSON_Delete(C(j)); }
struct astra_json *astra_json_dup(const struct astra_json *j) { return j ? J(check(cJSON_Duplicate(C(j), 1))) : NULL; }

int astra_json_is_object(const struct astra_json *j) { return j && cJSON_IsObject(C(j)); }
int astra_json_is_array(const struct astra_json *j) { return j && cJSON_IsArray(C(j)); }
int astra_json_is_string(const struct astra_json *j) { return j && cJSON_IsString(C(j)); }
int astra_json_is_number(const struct astra_json *j) { return j && cJSON_IsNumber(C(j)); }
int astra_json_is_bool(const struct astra_json *j) { return j && cJSON_IsBool(C(j)); }
int astra_json_is_null(const struct astra_json *j) { return j && cJSON_IsNull(C(j)); }

struct astra_json *astra_json_get(const struct astra_json *obj, const char *key)
{
	if (!astra_json_is_object(obj))
		return NULL;
	return J(cJSON_GetObjectItemCaseSensitive(C(obj), key));
}

const char *astra_json_str(const struct astra_json *j)
{
	return astra_json_is_string(j) ? C(j)->valuestring : NULL;
}

double astra_json_num(const struct astra_json *j, double def)
{
	return astra_json_is_number(j) ? C(j)->valuedouble : def;
}

int astra_json_bool(const struct astra_json *j, int def)
{
	return astra_json_is_bool(j) ? cJSON_IsTrue(C(j)) : def;
}

const char *astra_json_get_str(const struct astra_json *obj, const char *key)
{
	return astra_json_str(astra_json_get(obj, key));
}

double astra_json_get_num(const struct astra_json *obj, const char *key, double def)
{
	return astra_json_num(astra_json_get(obj, key), def);
}

int astra_json_get_bool(const struct astra_json *obj, const char *key, int def)
{
	return astra_json_bool(astra_json_get(obj, key), def);
}

size_t astra_json_len(const struct astra_json *j)
{
	if (!astra_json_is_array(j) && !astra_json_is_object(j))
		return 0;
	return (size_t)cJSON_GetArraySize(C(j));
}

struct astra_json *astra_json_at(const struct astra_json *j, size_t i)
{
	if (!astra_json_is_array(j) && !astra_json_is_object(j))
		return NULL;
	return J(cJSON_GetArrayItem(C(j), (int)i));
}

const char *astra_json_key(const struct astra_json *member)
{
	return member ? C(member)->string : NULL;
}

void astra_json_set(struct astra_json *obj, const char *key, struct astra_json *child)
{
	if (!astra_json_is_object(obj))
		die("astra_json_set on a non-object");
	if (cJSON_GetObjectItemCaseSensitive(C(obj), key))
		cJSON_ReplaceItemInObjectCaseSensitive(C(obj), key, C(child));
	else
		cJSON_AddItemToObject(C(obj), key, C(child));
}

void astra_json_set_str(struct astra_json *obj, const char *key, const char *v)
{
	astra_json_set(obj, key, v ? astra_json_new_string(v) : J(check(cJSON_CreateNull())));
}

void astra_json_set_num(struct astra_json *obj, const char *key, double v)
{
	astra_json_set(obj, key, astra_json_new_number(v));
}

void astra_json_set_bool(struct astra_json *obj, const char *key, int v)
{
	astra_json_set(obj, key, J(check(cJSON_CreateBool(v))));
}

void astra_json_set_null(struct astra_json *obj, const char *key)
{
	astra_json_set(obj, key, J(check(cJSON_CreateNull())));
}

struct astra_json *astra_json_set_object(struct astra_json *obj, const char *key)
{
	struct astra_json *child = astra_json_new_object();
	astra_json_set(obj, key, child);
	return child;
}

struct astra_json *astra_json_set_array(struct astra_json *obj, const char *key)
{
	struct astra_json *child = astra_json_new_array();
	astra_json_set(obj, key, child);
	return child;
}

void astra_json_remove(struct astra_json *obj, const char *key)
{
	if (astra_json_is_object(obj))
		cJSON_DeleteItemFromObjectCaseSensitive(C(obj), key);
}

void astra_json_push(struct astra_json *arr, struct astra_json *child)
{
	if (!astra_json_is_array(arr))
		die("astra_json_push on a non-array");
	cJSON_AddItemToArray(C(arr), C(child));
}

void astra_json_push_str(struct astra_json *arr, const char *v)
{
	astra_json_push(arr, astra_json_new_string(v));
}

void astra_json_push_num(struct astra_json *arr, double v)
{
	astra_json_push(arr, astra_json_new_number(v));
}

char *astra_json_print(const struct astra_json *j, int pretty)
{
	char *s = pretty ? cJSON_Print(C(j)) : cJSON_PrintUnformatted(C(j));
	char *copy;
	if (!s)
		die("out of memory printing JSON");
	/* cJSON allocates with its own hooks; hand back a plain malloc'd copy. */
	copy = xstrdup(s);
	cJSON_free(s);
	return copy;
}
