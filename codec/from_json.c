/* Spark's from_json(json, schema) over one JSON text, as Spark 4.3's JacksonParser converts it
 * with Jackson under Spark's default JSONOptions (PERMISSIVE, partial results enabled).
 *
 * Reading (codec/json_reader.h with Parser.lazy): get_json_object's grammar, except that
 * control characters are refused inside strings (allowUnquotedControlChars is false), NaN,
 * Infinity, +Infinity, -Infinity, +INF and -INF are numbers (allowNonNumericNumbers), and a
 * string value is read lazily: its bad content fails only the converter that reads its text
 * (every converter reads a string it is given), or the skipping of it unread. Any other syntax
 * error fails every later read, so the record ends malformed: a struct of NULL fields for a
 * struct schema, NULL for an array or a map. Text after the root value is never read.
 *
 * Converting (JacksonParser.makeConverter): a JSON null is NULL for any type; boolean from
 * true/false; tinyint, smallint, int and bigint from integer tokens in Jackson's ranges
 * (getByteValue takes -128..255, 255 giving -1); float and double from any number (NaN and the
 * infinities too) or the strings NaN, Infinity, +Infinity, +INF, -Infinity, -INF; decimal from
 * a number or a string BigDecimal reads (commas dropped), rounded HALF_UP to the scale, failing
 * past the precision; string from a string's text, or any other value as Jackson's generator
 * copies it (compact; numbers other than integers through a double). Anything else fails.
 *
 * Failures (convertObject, convertArray, convertMap): a struct field that fails keeps its
 * earlier value (a key met twice: the last that converts wins), the rest of its value is
 * skipped, and the struct is a partial result; an array that meets an element failing fails at
 * once (its enclosing object's loop then reads the rest of the array as its own tokens, as
 * Spark's does: each looked up by Jackson's current name); a map with a value failing reads on
 * to its end and fails; partial structs stay in arrays and maps, which become partial too. A
 * record with a failure anywhere is bad (FAILFAST refuses it); PERMISSIVE keeps a struct root's
 * partial row, an array's or a map's partial value, and otherwise gives NULL fields or NULL.
 */
#include "from_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "json_reader.h"

enum { R_OK = 0, R_PARTIAL = 1, R_FAIL = 2 }; /* below 0: a syntax error (-1), NOMEM, UNSUPPORTED */
#define UNSUPPORTED (-3)
#define MAX_DECIMAL_DIGITS 38

typedef struct {
    Parser p;
    const FromJsonType *types;
    JsonText *out;
    JsonText scratch; /* a copied structure; a string's text */
} Converter;

static int convert(Converter *c, int t);

/* Append o's own bytes [start, start + n), written earlier. */
static int put_own(JsonText *o, int64_t start, int64_t n) {
    if (reserve_text(o, n) < 0) return NOMEM;
    memcpy(o->data + o->length, o->data + start, (size_t)n);
    o->length += n;
    return 0;
}

/* bytes as a JSON string for DuckDB */
static int put_escaped(JsonText *o, const uint8_t *s, int64_t n) {
    int r;
    if ((r = put(o, "\"", 1)) < 0) return r;
    for (int64_t i = 0; i < n;) {
        int64_t run = i;
        while (run < n && s[run] >= 0x20 && s[run] != '"' && s[run] != '\\') run++;
        if (run > i && (r = put(o, s + i, run - i)) < 0) return r;
        if (run >= n) break;
        if ((r = put_quoted_point(o, s[run])) < 0) return r;
        i = run + 1;
    }
    return put(o, "\"", 1);
}

/* Jackson's current name: the field whose value holds the current token, NULL (0) in an array. */
static int current_name(const Parser *p, int64_t *start, int64_t *end) {
    int d = p->tok == TK_START_OBJECT || p->tok == TK_START_ARRAY ? p->depth - 2 : p->depth - 1;
    if (d < 0 || !p->is_object[d] || p->name_start[d] < 0) return 0;
    *start = p->name_start[d];
    *end = p->name_end[d];
    return 1;
}

/* The current string's text, unescaped, in c->scratch. */
static int string_text(Converter *c) {
    c->scratch.length = 0;
    return put_text(&c->scratch, c->p.s, c->p.start, c->p.end, AS_NAME);
}

static int put_double(JsonText *o, double v) {
    char printed[40];
    if (v != v) return put(o, "\"NaN\"", 5);
    if (isinf(v)) return v > 0 ? put(o, "\"Infinity\"", 10) : put(o, "\"-Infinity\"", 11);
    if (v == 0) return signbit(v) ? put(o, "-0.0", 4) : put(o, "0.0", 3);
    return put(o, printed, snprintf(printed, sizeof printed, "%.17g", v));
}

/* The token's characters, NUL-terminated, in buffer (at least MAX_NUMBER_LENGTH + 1). */
static const char *token_chars(const Parser *p, char *buffer) {
    int64_t n = p->end - p->start;
    memcpy(buffer, p->s + p->start, (size_t)n);
    buffer[n] = '\0';
    return buffer;
}

/* Jackson's getLongValue of an integer token: 0 and the value, or -1 past a long. */
static int integer_value(const Parser *p, long long *value) {
    char digits[MAX_NUMBER_LENGTH + 1];
    errno = 0;
    *value = strtoll(token_chars(p, digits), NULL, 10);
    return errno == ERANGE ? -1 : 0;
}

static int convert_integer(Converter *c, int kind) {
    long long v;
    char printed[24];
    if (c->p.tok != TK_INT || integer_value(&c->p, &v) < 0) return R_FAIL;
    /* Jackson's getByteValue takes -128..255 (a byte's bits), getShortValue and getIntValue
     * their type's range */
    if ((kind == FJ_BYTE && (v < -128 || v > 255)) || (kind == FJ_SHORT && (v < -32768 || v > 32767)) ||
        (kind == FJ_INT && (v < INT32_MIN || v > INT32_MAX)))
        return R_FAIL;
    if (kind == FJ_BYTE) v = (int8_t)(uint8_t)v;
    return put(c->out, printed, snprintf(printed, sizeof printed, "%lld", v));
}

static int convert_fractional(Converter *c, int kind) {
    Parser *p = &c->p;
    char chars[MAX_NUMBER_LENGTH + 1];
    double v;
    long long whole;
    int r;
    if (p->tok == TK_INT && integer_value(p, &whole) == 0) {
        /* a long converted (-0 is 0) */
        v = kind == FJ_FLOAT ? (double)(float)whole : (double)whole;
    } else if (p->tok == TK_INT || p->tok == TK_FLOAT) {
        /* correctly rounded, as Java's Double.parseDouble and Float.parseFloat */
        v = kind == FJ_FLOAT ? (double)strtof(token_chars(p, chars), NULL) : strtod(token_chars(p, chars), NULL);
    } else if (p->tok == TK_STRING) {
        const char *t;
        if ((r = string_text(c)) < 0) return r;
        t = (const char *)c->scratch.data;
        if (c->scratch.length == 3 && memcmp(t, "NaN", 3) == 0) v = NAN;
        else if ((c->scratch.length == 4 && memcmp(t, "+INF", 4) == 0) || (c->scratch.length == 9 && memcmp(t, "+Infinity", 9) == 0) ||
                 (c->scratch.length == 8 && memcmp(t, "Infinity", 8) == 0))
            v = INFINITY;
        else if ((c->scratch.length == 4 && memcmp(t, "-INF", 4) == 0) || (c->scratch.length == 9 && memcmp(t, "-Infinity", 9) == 0))
            v = -INFINITY;
        else return R_FAIL;
    } else {
        return R_FAIL;
    }
    return put_double(c->out, v);
}

/* Spark's Decimal(BigDecimal, precision, scale) of the digits s[0..n) (an optional sign, digits
 * with at most one point, at least one digit, an optional exponent), as a JSON string: R_FAIL
 * where BigDecimal cannot read it or the rounded value needs more than precision digits. */
static int put_decimal(JsonText *o, const uint8_t *s, int64_t n, int precision, int scale) {
    char digits[MAX_DECIMAL_DIGITS + 2], printed[MAX_DECIMAL_DIGITS + 8];
    int negative = 0, seen_point = 0, count = 0, length = 0, k;
    int64_t i = 0, exponent = 0, fraction = 0, shift, dropped = 0, first_dropped = -1;
    if (i < n && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    for (; i < n && (is_digit(s[i]) || (s[i] == '.' && !seen_point)); i++) {
        if (s[i] == '.') {
            seen_point = 1;
            continue;
        }
        count++;
        if (seen_point) fraction++;
        if (length == 0 && s[i] == '0') continue; /* leading zeroes */
        if (length < MAX_DECIMAL_DIGITS + 1) digits[length++] = (char)s[i];
        else {
            /* digits past what any decimal(38) holds, dropped now: only the first of them
             * decides the rounding, and only where the point falls before them */
            if (first_dropped < 0) first_dropped = s[i] - '0';
            dropped++;
        }
    }
    if (count == 0) return R_FAIL;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int esign = 1, edigits = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) esign = s[i++] == '-' ? -1 : 1;
        for (; i < n && is_digit(s[i]); i++, edigits++) {
            exponent = exponent * 10 + (s[i] - '0');
            if (exponent > 2147483647LL) return R_FAIL; /* BigDecimal: the exponent is an int */
        }
        if (edigits == 0) return R_FAIL;
        exponent *= esign;
    }
    if (i != n) return R_FAIL;
    /* value = digits * 10^(exponent - fraction + dropped); unscaled = value * 10^scale */
    shift = exponent - fraction + dropped + scale;
    if (shift >= 0) {
        if (length > 0 && length + shift > precision) return R_FAIL;
        for (; length > 0 && shift > 0; shift--) digits[length++] = '0';
    } else {
        int64_t keep = length + shift; /* digits kept; the one after them rounds HALF_UP */
        int round_up = keep >= 0 && keep < length ? digits[keep] >= '5' : keep == length && first_dropped >= 5;
        if (keep < 0) keep = 0, round_up = 0;
        length = (int)keep;
        for (k = length - 1; round_up && k >= 0; k--) {
            if (digits[k] == '9') digits[k] = '0';
            else {
                digits[k]++;
                round_up = 0;
            }
        }
        if (round_up) {
            memmove(digits + 1, digits, (size_t)length++);
            digits[0] = '1';
        }
        if (length > precision) return R_FAIL;
    }
    if (length == 0) return put(o, "\"0\"", 3);
    k = 0;
    printed[k++] = '"';
    if (negative) printed[k++] = '-';
    if (length <= scale) {
        printed[k++] = '0';
        printed[k++] = '.';
        for (int z = length; z < scale; z++) printed[k++] = '0';
        memcpy(printed + k, digits, (size_t)length);
        k += length;
    } else {
        memcpy(printed + k, digits, (size_t)(length - scale));
        k += length - scale;
        if (scale > 0) {
            printed[k++] = '.';
            memcpy(printed + k, digits + length - scale, (size_t)scale);
            k += scale;
        }
    }
    printed[k++] = '"';
    return put(o, printed, k);
}

static int convert_decimal(Converter *c, const FromJsonType *type) {
    Parser *p = &c->p;
    int r;
    if (p->tok == TK_INT || p->tok == TK_FLOAT) {
        if (!is_digit(p->s[p->end - 1])) return R_FAIL; /* NaN or an infinity: not a BigDecimal */
        return put_decimal(c->out, p->s + p->start, p->end - p->start, type->precision, type->scale);
    }
    if (p->tok != TK_STRING) return R_FAIL;
    if ((r = string_text(c)) < 0) return r;
    {
        /* Spark's decimalParser for the default locale: new BigDecimal(s.replaceAll(",", "")) */
        int64_t kept = 0, non_ascii = 0, other = 0;
        for (int64_t i = 0; i < c->scratch.length; i++) {
            uint8_t ch = c->scratch.data[i];
            if (ch == ',') continue;
            if (ch >= 0xC0) {
                /* a character that may be a Unicode digit: the first past ASCII is U+0660 (a
                 * surrogate, written as ED A0..BF xx, is none) */
                uint32_t cp = ch >= 0xF0 ? 0x10000 : ch >= 0xE0 ? (uint32_t)(ch & 0x0F) << 12 | (uint32_t)(c->scratch.data[i + 1] & 0x3F) << 6
                                                                  : (uint32_t)(ch & 0x1F) << 6 | (uint32_t)(c->scratch.data[i + 1] & 0x3F);
                if (cp >= 0x660 && (cp < 0xD800 || cp > 0xDFFF)) non_ascii++;
                else other++;
            } else if (ch < 0x80 && !is_digit(ch) && ch != '+' && ch != '-' && ch != '.' && ch != 'e' && ch != 'E') {
                other++;
            }
            c->scratch.data[kept++] = ch;
        }
        /* BigDecimal takes any Unicode digit (Character.isDigit), which vpush does not read */
        if (non_ascii > 0 && other == 0) return UNSUPPORTED;
        if (kept == 0) return R_FAIL;
        return put_decimal(c->out, c->scratch.data, kept, type->precision, type->scale);
    }
}

static int convert_string(Converter *c) {
    Parser *p = &c->p;
    JsonText *saved = p->out;
    int r;
    if (p->tok == TK_STRING) return put_text(c->out, p->s, p->start, p->end, AS_DUCK);
    /* Jackson's generator copying the value */
    c->scratch.length = 0;
    p->out = &c->scratch;
    r = copy_structure(p);
    p->out = saved;
    if (r < 0) return r;
    return put_escaped(c->out, c->scratch.data, c->scratch.length);
}

/* The struct field the current token belongs to, by Jackson's current name, or -1. */
static int field_index(Converter *c, const FromJsonType *type) {
    int64_t start, end;
    const uint8_t *name;
    int64_t length;
    if (!current_name(&c->p, &start, &end)) return -1;
    if (memchr(c->p.s + start, '\\', (size_t)(end - start)) == NULL) {
        name = c->p.s + start;
        length = end - start;
    } else {
        c->scratch.length = 0;
        if (put_text(&c->scratch, c->p.s, start, end, AS_NAME) < 0) return -2;
        name = c->scratch.data;
        length = c->scratch.length;
    }
    for (int k = 0; k < type->nchildren; k++) {
        const FromJsonType *field = &c->types[type->children[k]];
        if (field->name_length == length && memcmp(field->name, name, (size_t)length) == 0) return k;
    }
    return -1;
}

/* Write the struct's fields: each slot's value (written earlier in out) or null. */
static int put_struct(Converter *c, const FromJsonType *type, const int64_t *slots, int64_t entry) {
    JsonText *o = c->out;
    int64_t base = o->length;
    int r;
    if ((r = put(o, "{", 1)) < 0) return r;
    for (int k = 0; k < type->nchildren; k++) {
        const FromJsonType *field = &c->types[type->children[k]];
        if (k > 0 && (r = put(o, ",", 1)) < 0) return r;
        if ((r = put(o, field->key, field->key_length)) < 0) return r;
        r = slots != NULL && slots[2 * k] >= 0 ? put_own(o, slots[2 * k], slots[2 * k + 1]) : put(o, "null", 4);
        if (r < 0) return r;
    }
    if ((r = put(o, "}", 1)) < 0) return r;
    memmove(o->data + entry, o->data + base, (size_t)(o->length - base));
    o->length = entry + (o->length - base);
    return 0;
}

/* convertObject, at START_OBJECT. */
static int convert_object(Converter *c, const FromJsonType *type) {
    Parser *p = &c->p;
    int64_t entry = c->out->length, *slots;
    int bad = 0, r;
    slots = (int64_t *)malloc(sizeof(int64_t) * 2 * (size_t)(type->nchildren > 0 ? type->nchildren : 1));
    if (slots == NULL) return NOMEM;
    for (int k = 0; k < type->nchildren; k++) slots[2 * k] = -1;
    for (;;) {
        int index;
        int64_t mark;
        if ((r = next_token(p)) < 0) goto done;
        if (p->tok == TK_END_OBJECT || p->tok == TK_NONE) break;
        if ((index = field_index(c, type)) == -2) {
            r = NOMEM;
            goto done;
        }
        if (index < 0) {
            if ((r = skip_children(p)) < 0) goto done;
            continue;
        }
        mark = c->out->length;
        r = convert(c, type->children[index]);
        if (r == NOMEM || r == UNSUPPORTED) goto done;
        if (r == R_OK || r == R_PARTIAL) {
            slots[2 * index] = mark;
            slots[2 * index + 1] = c->out->length - mark;
            bad |= r == R_PARTIAL;
        } else {
            /* caught: the field keeps its value, the rest of this one is skipped */
            c->out->length = mark;
            bad = 1;
            if ((r = skip_children(p)) < 0) goto done;
        }
    }
    r = put_struct(c, type, slots, entry);
    if (r == 0) r = bad ? R_PARTIAL : R_OK;
done:
    free(slots);
    return r;
}

/* convertArray, at START_ARRAY. */
static int convert_array(Converter *c, const FromJsonType *type) {
    Parser *p = &c->p;
    int64_t entry = c->out->length;
    int partial = 0, first = 1, r;
    if ((r = put(c->out, "[", 1)) < 0) return r;
    for (;;) {
        if ((r = next_token(p)) < 0) return r;
        if (p->tok == TK_END_ARRAY || p->tok == TK_NONE) break;
        if (!first && (r = put(c->out, ",", 1)) < 0) return r;
        first = 0;
        r = convert(c, type->children[0]);
        if (r == R_PARTIAL) partial = 1;
        else if (r != R_OK) {
            c->out->length = entry;
            return r;
        }
    }
    if ((r = put(c->out, "]", 1)) < 0) return r;
    return partial ? R_PARTIAL : R_OK;
}

/* convertMap, at START_OBJECT. */
static int convert_map(Converter *c, const FromJsonType *type) {
    Parser *p = &c->p;
    int64_t entry = c->out->length, *keys = NULL;
    int partial = 0, bad = 0, r, nkeys = 0, capacity = 0;
    if ((r = put(c->out, "{", 1)) < 0) return r;
    for (;;) {
        int64_t start, end, mark = c->out->length;
        if ((r = next_token(p)) < 0) goto done;
        if (p->tok == TK_END_OBJECT || p->tok == TK_NONE) break;
        if (!current_name(p, &start, &end)) {
            /* a NULL key: only after a value failed (the map is dropped), as Spark reads on */
            bad = 1;
            start = end = p->start;
        }
        if (nkeys > 0 && (r = put(c->out, ",", 1)) < 0) goto done;
        if ((r = put_text(c->out, p->s, start, end, AS_DUCK)) < 0 || (r = put(c->out, ":", 1)) < 0) goto done;
        if (nkeys == capacity) {
            int64_t *grown = (int64_t *)realloc(keys, sizeof(int64_t) * 2 * (size_t)(capacity = capacity * 2 + 8));
            if (grown == NULL) {
                r = NOMEM;
                goto done;
            }
            keys = grown;
        }
        keys[2 * nkeys] = mark + (nkeys > 0);
        keys[2 * nkeys + 1] = c->out->length - 1 - keys[2 * nkeys];
        r = convert(c, type->children[0]);
        if (r == NOMEM || r == UNSUPPORTED) goto done;
        if (r == R_OK || r == R_PARTIAL) {
            partial |= r == R_PARTIAL;
            nkeys++;
        } else {
            c->out->length = mark;
            bad = 1;
            if ((r = skip_children(p)) < 0) goto done;
        }
    }
    if (bad) {
        c->out->length = entry;
        r = R_FAIL;
        goto done;
    }
    /* Spark keeps a key met twice (ArrayBasedMapData); DuckDB's maps cannot */
    for (int a = 0; a < nkeys; a++)
        for (int b = a + 1; b < nkeys; b++)
            if (keys[2 * a + 1] == keys[2 * b + 1] &&
                memcmp(c->out->data + keys[2 * a], c->out->data + keys[2 * b], (size_t)keys[2 * a + 1]) == 0) {
                r = UNSUPPORTED;
                goto done;
            }
    if ((r = put(c->out, "}", 1)) < 0) goto done;
    r = partial ? R_PARTIAL : R_OK;
done:
    free(keys);
    return r;
}

/* A value converter at the current token (parseJsonToken, then the type's conversion). */
static int convert(Converter *c, int t) {
    Parser *p = &c->p;
    const FromJsonType *type = &c->types[t];
    int r;
    if (p->tok == TK_FIELD && next_token(p) < 0) return -1;
    if (p->tok == TK_NULL || p->tok == TK_NONE) return put(c->out, "null", 4);
    if (p->tok == TK_STRING) {
        /* every converter reads a string's text (getText, getTextLength), failing on bad content */
        p->string_read = 1;
        if (p->bad_spots > 0) return R_FAIL;
        /* SPARK-25040: an empty string fails every type but string (and binary) */
        if (p->end == p->start && type->kind != FJ_STRING) return R_FAIL;
    }
    switch (type->kind) {
    case FJ_BOOLEAN:
        if (p->tok == TK_TRUE) return put(c->out, "true", 4);
        if (p->tok == TK_FALSE) return put(c->out, "false", 5);
        return R_FAIL;
    case FJ_BYTE:
    case FJ_SHORT:
    case FJ_INT:
    case FJ_LONG: return convert_integer(c, type->kind);
    case FJ_FLOAT:
    case FJ_DOUBLE: return convert_fractional(c, type->kind);
    case FJ_DECIMAL: return convert_decimal(c, type);
    case FJ_STRING: return convert_string(c);
    case FJ_STRUCT: return p->tok == TK_START_OBJECT ? convert_object(c, type) : R_FAIL;
    case FJ_ARRAY: return p->tok == TK_START_ARRAY ? convert_array(c, type) : R_FAIL;
    case FJ_MAP: return p->tok == TK_START_OBJECT ? convert_map(c, type) : R_FAIL;
    default: r = R_FAIL;
    }
    return r;
}

/* The root converter, then FailureSafeParser's PERMISSIVE answer. */
static int convert_root(Converter *c) {
    Parser *p = &c->p;
    const FromJsonType *root = &c->types[0];
    int r = next_token(p);
    if (r == 0 && p->tok == TK_NONE) return FROM_JSON_NULL; /* no value: no row */
    if (r == 0) {
        if (root->kind == FJ_STRUCT && p->tok == TK_START_OBJECT) r = convert_object(c, root);
        else if (root->kind == FJ_ARRAY && p->tok == TK_START_ARRAY) r = convert_array(c, root);
        else if (root->kind == FJ_ARRAY && p->tok == TK_START_OBJECT && c->types[root->children[0]].kind == FJ_STRUCT) {
            /* an object for an array of structs: an array of that one element */
            if ((r = put(c->out, "[", 1)) < 0) return r;
            if ((r = convert_object(c, &c->types[root->children[0]])) >= 0 && r != R_FAIL) {
                int w = put(c->out, "]", 1);
                if (w < 0) return w;
            }
        } else if (root->kind == FJ_MAP && p->tok == TK_START_OBJECT) r = convert_map(c, root);
        else r = R_FAIL; /* a null root (rootConverterReturnNullError), an array for a struct, a scalar */
    }
    if (r == NOMEM || r == UNSUPPORTED) return r;
    if (r == R_OK) return FROM_JSON_VALUE;
    if (r == R_PARTIAL) return FROM_JSON_BAD_VALUE;
    c->out->length = 0;
    if (root->kind != FJ_STRUCT) return FROM_JSON_BAD_NULL;
    r = put_struct(c, root, NULL, 0);
    return r < 0 ? r : FROM_JSON_BAD_VALUE;
}

int spark_from_json(const uint8_t *text, int64_t length, const FromJsonType *types, JsonText *out,
                    int (*format_double)(char *, uint64_t)) {
    Converter *c = (Converter *)malloc(sizeof(Converter));
    int r;
    if (c == NULL) return FROM_JSON_NOMEM;
    /* the parser's per-depth arrays are written before they are read */
    c->p.pos = c->p.start = c->p.end = 0;
    c->p.depth = c->p.nsteps = c->p.pending_null = c->p.bad_spots = c->p.string_read = 0;
    c->p.steps = NULL;
    c->p.out = NULL;
    c->p.name.data = c->scratch.data = NULL;
    c->p.name.length = c->p.name.capacity = c->scratch.length = c->scratch.capacity = 0;
    c->p.s = text;
    c->p.n = length;
    c->p.tok = TK_NONE;
    c->p.lazy = 1;
    c->p.format_double = format_double;
    c->types = types;
    c->out = out;
    out->length = 0;
    r = convert_root(c);
    free(c->scratch.data);
    free(c);
    if (r == NOMEM) return FROM_JSON_NOMEM;
    if (r == UNSUPPORTED) return FROM_JSON_UNSUPPORTED;
    return r;
}
