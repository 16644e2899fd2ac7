/* Spark's get_json_object over one JSON text, as Spark 4.3 evaluates it with Jackson: see
 * codec/json_path.c. */
#ifndef VPUSH_JSON_PATH_H
#define VPUSH_JSON_PATH_H

#include <stdint.h>

/* One step of a path of keys and array indexes (Spark's `.name`/`['name']` and `[n]`). */
typedef struct {
    const uint8_t *name; /* NULL for an index */
    int64_t name_length;
    int64_t index;
    int last; /* a key: take its last match whose value is not null (json_tuple), not its first */
} JsonPathStep;

/* A growable output buffer, owned by the caller (free(data) when done). */
typedef struct {
    uint8_t *data;
    int64_t length, capacity;
} JsonText;

enum { JSON_PATH_NULL = 0, JSON_PATH_FOUND = 1, JSON_PATH_NOMEM = -1 };

/* Evaluate the path over text[0..length) as Spark's get_json_object does: JSON_PATH_FOUND with
 * the result in out (reset first), JSON_PATH_NULL where Spark gives NULL (no match, a JSON null
 * field, or text Jackson fails to parse on the way), JSON_PATH_NOMEM when memory runs out.
 * format_double prints a double as Java 17's Double.toString, returning its length (<= 32). */
int spark_get_json_object(const uint8_t *text, int64_t length, const JsonPathStep *steps, int nsteps, JsonText *out,
                          int (*format_double)(char *, uint64_t));

/* Spark's json_array_length (keys 0: the count in decimal) or json_object_keys (keys 1: the root
 * object's field names as a JSON array of strings) of text[0..length): JSON_PATH_FOUND with the
 * answer in out (reset first), JSON_PATH_NULL where Spark gives NULL, JSON_PATH_NOMEM. */
int spark_json_shape(const uint8_t *text, int64_t length, int keys, JsonText *out);

#endif
