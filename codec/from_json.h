/* Spark's from_json(json, schema) over one JSON text, as Spark 4.3's JacksonParser converts it
 * in PERMISSIVE mode: see codec/from_json.c. */
#ifndef VPUSH_FROM_JSON_H
#define VPUSH_FROM_JSON_H

#include <stdint.h>

#include "json_path.h"

enum { FJ_BOOLEAN, FJ_BYTE, FJ_SHORT, FJ_INT, FJ_LONG, FJ_FLOAT, FJ_DOUBLE, FJ_DECIMAL, FJ_STRING, FJ_STRUCT, FJ_ARRAY, FJ_MAP };

/* One node of the schema, in an array of nodes: a struct's fields, an array's element or a
 * map's value (keys are strings) are the nodes children[0..nchildren). */
typedef struct {
    int kind;
    int precision, scale;    /* FJ_DECIMAL */
    const uint8_t *name;     /* a struct field's name, UTF-8 */
    int64_t name_length;
    const uint8_t *key;      /* the same name as a JSON string with its colon ("a":), for the output */
    int64_t key_length;
    const int *children;
    int nchildren;
} FromJsonType;

/* What a row gives: NULL, a value, or (Spark's bad record, which FAILFAST refuses) the value
 * PERMISSIVE gives or NULL. */
enum { FROM_JSON_NULL = 0, FROM_JSON_VALUE = 1, FROM_JSON_BAD_VALUE = 2, FROM_JSON_BAD_NULL = 3, FROM_JSON_NOMEM = -1,
       FROM_JSON_UNSUPPORTED = -2 };

/* Convert text[0..length) to the type types[0] as from_json does, writing the value into out
 * (reset first) as JSON text DuckDB casts to the type exactly: every struct field present, in
 * order; doubles 17 digits, "NaN", "Infinity", "-Infinity"; decimals as strings already
 * rounded; strings as UTF-8. FROM_JSON_UNSUPPORTED where DuckDB cannot hold Spark's answer (a
 * map with a key twice) or vpush does not follow Java (a decimal string with non-ASCII digits). */
int spark_from_json(const uint8_t *text, int64_t length, const FromJsonType *types, JsonText *out,
                    int (*format_double)(char *, uint64_t));

#endif
