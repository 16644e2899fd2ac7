/* Spark's get_json_object(json, path) over one JSON text, as Spark 4.3's GetJsonObjectEvaluator
 * computes it with Jackson, for paths of keys and array indexes.
 *
 * Reading: Jackson's streaming grammar with Spark's two features (JsonReadFeature
 * ALLOW_SINGLE_QUOTES and ALLOW_UNESCAPED_CONTROL_CHARS): names and strings in double or single
 * quotes, control characters allowed raw inside them, escapes \" \\ \/ \b \f \n \r \t \' \uXXXX
 * and no others; numbers -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? of at most 1,000
 * characters, a root number followed by whitespace or the end; true/false/null not followed by
 * an identifier character; no comments, NaN or trailing commas; at most 1,000 levels of nesting.
 * Like Jackson it reads only as far as the evaluation needs: text after the root value, or
 * after the end of the object or array holding the match, is never read.
 *
 * Evaluating (Spark's evaluatePath): a key looks through its object's fields in order, the
 * first match whose value is not null (and finds the rest of the path) wins, and the rest of the
 * object is read (a key marked `last`, json_tuple's field, takes the last such match: Spark's
 * JsonTuple overwrites the value at each match whose value is not null); an index counts the array's elements from 0 and the rest of the array is
 * read; anything else does not match. A syntax error anywhere read makes the answer NULL.
 *
 * Writing (Jackson's generator): a matched string as its text, unquoted; anything else copied
 * as compact JSON: strings quoted with '"', '\\' and control characters escaped (\b \t \n \f
 * \r short, others \u00XX) and characters past U+FFFF as two \uXXXX escapes (Jackson does not
 * combine surrogates in UTF-8 output), integers as written (-0 as 0), other numbers read as a
 * double and printed as Java's Double.toString ("Infinity" quoted, as Jackson quotes it).
 */
#include "json_reader.h"

#include <stdio.h>


static int name_matches(Parser *p, const JsonPathStep *step) {
    int r;
    if (memchr(p->s + p->start, '\\', (size_t)(p->end - p->start)) == NULL)
        return p->end - p->start == step->name_length && memcmp(p->s + p->start, step->name, (size_t)step->name_length) == 0;
    p->name.length = 0;
    if ((r = put_text(&p->name, p->s, p->start, p->end, AS_NAME)) < 0) return r;
    return p->name.length == step->name_length && memcmp(p->name.data, step->name, (size_t)step->name_length) == 0;
}

/* Spark's evaluatePath from step k, at the current token: 1 written, 0 no match, < 0 failed. */
static int evaluate(Parser *p, int k) {
    const JsonPathStep *step;
    int r;
    if (k == p->nsteps) {
        r = p->tok == TK_STRING ? put_text(p->out, p->s, p->start, p->end, AS_RAW) : copy_structure(p);
        return r < 0 ? r : 1;
    }
    step = &p->steps[k];
    if (step->name != NULL && p->tok == TK_START_OBJECT) {
        int dirty = 0;
        for (;;) {
            if (next_token(p) < 0) return -1;
            if (p->tok == TK_END_OBJECT) return dirty;
            r = dirty && !step->last ? 0 : name_matches(p, step);
            if (r < 0) return r;
            if (next_token(p) < 0) return -1;
            if (r && p->tok != TK_NULL) {
                if (step->last) p->out->length = 0;
                if ((dirty = evaluate(p, k + 1)) < 0) return dirty;
            } else if (skip_children(p) < 0) {
                return -1;
            }
        }
    }
    if (step->name == NULL && p->tok == TK_START_ARRAY) {
        int64_t i = step->index;
        if (next_token(p) < 0) return -1;
        for (; p->tok != TK_END_ARRAY; i--) {
            if (i == 0) {
                int dirty = evaluate(p, k + 1);
                if (dirty < 0) return dirty;
                for (;;) {
                    if (next_token(p) < 0) return -1;
                    if (p->tok == TK_END_ARRAY) return dirty;
                    if (skip_children(p) < 0) return -1;
                }
            }
            if (skip_children(p) < 0 || next_token(p) < 0) return -1;
        }
        return 0;
    }
    return skip_children(p);
}

/* A strict reader (get_json_object's) of text[0..length) into out, reset. */
static void open_reader(Parser *p, const uint8_t *text, int64_t length, JsonText *out) {
    p->s = text;
    p->n = length;
    p->pos = 0;
    p->depth = 0;
    p->tok = TK_NONE;
    p->steps = NULL;
    p->nsteps = 0;
    p->lazy = p->pending_null = p->bad_spots = p->string_read = 0;
    p->out = out;
    p->name.data = NULL;
    p->name.length = p->name.capacity = 0;
    p->format_double = NULL;
    out->length = 0;
}

int spark_get_json_object(const uint8_t *text, int64_t length, const JsonPathStep *steps, int nsteps, JsonText *out,
                          int (*format_double)(char *, uint64_t)) {
    Parser p;
    int r;
    open_reader(&p, text, length, out);
    p.steps = steps;
    p.nsteps = nsteps;
    p.format_double = format_double;
    r = next_token(&p);
    if (r == 0 && p.tok != TK_NONE) r = evaluate(&p, 0);
    free(p.name.data);
    if (r == NOMEM) return JSON_PATH_NOMEM;
    return r > 0 ? JSON_PATH_FOUND : JSON_PATH_NULL;
}

/* Spark's json_array_length (JsonArrayLength) and json_object_keys (JsonObjectKeys) over one
 * JSON text, read as get_json_object reads it (Spark's SharedFactory): NULL unless the root
 * value is an array (an object); the array's elements counted, each skipped with its children
 * (the object's field names in order, duplicates kept); text after the root value's end is never
 * read. The count is written in decimal; the names as a JSON array of strings for DuckDB, each as
 * UTF8String.fromString keeps Jackson's name (a lone surrogate as '?'). */
int spark_json_shape(const uint8_t *text, int64_t length, int keys, JsonText *out) {
    Parser p;
    int r = 0;
    int64_t count = 0;
    open_reader(&p, text, length, out);
    if (next_token(&p) < 0 || p.tok != (keys ? TK_START_OBJECT : TK_START_ARRAY)) return JSON_PATH_NULL;
    if (keys && (r = put(out, "[", 1)) < 0) return JSON_PATH_NOMEM;
    for (;;) {
        if (next_token(&p) < 0) return JSON_PATH_NULL;
        if (p.tok == (keys ? TK_END_OBJECT : TK_END_ARRAY)) break;
        if (keys) {
            if ((count > 0 && (r = put(out, ",", 1)) < 0) || (r = put_text(out, p.s, p.start, p.end, AS_DUCK)) < 0)
                return JSON_PATH_NOMEM;
            if (next_token(&p) < 0) return JSON_PATH_NULL;
        }
        count++;
        if (skip_children(&p) < 0) return JSON_PATH_NULL;
    }
    if (keys) return put(out, "]", 1) < 0 ? JSON_PATH_NOMEM : JSON_PATH_FOUND;
    {
        char digits[24];
        int n = snprintf(digits, sizeof digits, "%lld", (long long)count);
        return put(out, digits, n) < 0 ? JSON_PATH_NOMEM : JSON_PATH_FOUND;
    }
}
