/* Jackson's streaming JSON reader and generator, as Spark configures them, shared by
 * get_json_object (codec/json_path.c) and from_json (codec/from_json.c): the grammar and
 * the writing rules are described at the top of codec/json_path.c; from_json's reading
 * (Parser.lazy) differs as codec/from_json.c describes. Private to those two files. */
#ifndef VPUSH_JSON_READER_H
#define VPUSH_JSON_READER_H

#include "json_path.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 1000
#define MAX_NUMBER_LENGTH 1000
#define NOMEM (-2)

enum { TK_NONE, TK_START_OBJECT, TK_END_OBJECT, TK_START_ARRAY, TK_END_ARRAY, TK_FIELD, TK_STRING, TK_INT, TK_FLOAT,
       TK_TRUE, TK_FALSE, TK_NULL };
enum { ST_FIRST, ST_VALUE, ST_AFTER };

typedef struct {
    const uint8_t *s;
    int64_t n, pos;
    int depth;
    uint8_t is_object[MAX_DEPTH];
    uint8_t state[MAX_DEPTH];
    int tok;
    int64_t start, end; /* a name's or string's text between its quotes; a number's characters */
    const JsonPathStep *steps;
    int nsteps;
    JsonText *out;
    JsonText name; /* a field name, unescaped */
    int (*format_double)(char *, uint64_t);
    /* from_json's reading (codec/from_json.c), where get_json_object's is strict: control
     * characters are refused inside strings, NaN and the infinities are numbers, and a string
     * value is read lazily, as Jackson does: bad content in it (a control character, an unknown
     * escape) fails only the reading of its text, or the skipping of it unread, or the skipping
     * of its rest past its first bad spot. After a syntax error Jackson's reading goes on from
     * where its error left it (jackson_error). */
    int lazy;
    int pending_null; /* lazy: a name whose value failed to read, as Jackson leaves it: its next token is null */
    int bad_spots;   /* the last string holds bad content (lazy): 1, 0 */
    int64_t bad_end; /* just past its first bad character, where Jackson reads on after a failed read */
    int string_read; /* the current string value's text was read (lazy) */
    int64_t name_start[MAX_DEPTH], name_end[MAX_DEPTH]; /* each object's last field name (lazy) */
} Parser;

/* Room for n more bytes in o. */
static inline int reserve_text(JsonText *o, int64_t n) {
    if (o->length + n > o->capacity) {
        int64_t cap = o->capacity > 0 ? o->capacity * 2 : 64;
        uint8_t *grown;
        while (cap < o->length + n) cap *= 2;
        grown = (uint8_t *)realloc(o->data, (size_t)cap);
        if (grown == NULL) return NOMEM;
        o->data = grown;
        o->capacity = cap;
    }
    return 0;
}

static inline int put(JsonText *o, const void *s, int64_t n) {
    if (reserve_text(o, n) < 0) return NOMEM;
    memcpy(o->data + o->length, s, (size_t)n);
    o->length += n;
    return 0;
}

static inline int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static inline int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static inline int hex_value(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static inline void skip_space(Parser *p) {
    while (p->pos < p->n && is_space(p->s[p->pos])) p->pos++;
}

/* A string's or name's text up to the closing quote, its escapes checked. */
static inline int scan_string(Parser *p, uint8_t quote) {
    p->start = p->pos;
    p->bad_spots = 0;
    while (p->pos < p->n) {
        uint8_t c = p->s[p->pos];
        if (c == quote) {
            p->end = p->pos++;
            return 0;
        }
        if (c != '\\') {
            p->pos++;
            if (p->lazy && c < 0x20) break; /* Jackson: an unescaped control character */
            continue;
        }
        if (p->pos + 1 >= p->n) return -1;
        switch (p->s[p->pos + 1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': case '\'':
            p->pos += 2;
            break;
        case 'u': {
            int k;
            for (k = 2; k < 6; k++) {
                if (p->pos + k >= p->n) return -1;
                if (hex_value(p->s[p->pos + k]) < 0) break;
            }
            if (k < 6 && !p->lazy) return -1;
            p->pos += k < 6 ? k + 1 : 6;
            if (k < 6) goto bad; /* Jackson has read the character that is not a hex digit */
            break;
        }
        default:
            if (!p->lazy) return -1;
            p->pos += 2;
            goto bad;
        }
    }
    return -1;
bad:
    /* lazy: the string's end is not looked for (Jackson reads no further unless it skips it) */
    p->bad_spots = 1;
    p->bad_end = p->pos;
    p->end = p->start;
    return 0;
}

static inline int scan_number(Parser *p) {
    const uint8_t *s = p->s;
    int64_t i = p->pos;
    int is_float = 0;
    if (s[i] == '-') i++;
    if (i >= p->n || !is_digit(s[i])) return -1;
    if (s[i] == '0') {
        if (++i < p->n && is_digit(s[i])) return -1; /* Jackson: leading zeroes not allowed */
    } else {
        while (i < p->n && is_digit(s[i])) i++;
    }
    if (i < p->n && s[i] == '.') {
        is_float = 1;
        if (++i >= p->n || !is_digit(s[i])) return -1;
        while (i < p->n && is_digit(s[i])) i++;
    }
    if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
        is_float = 1;
        if (++i < p->n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= p->n || !is_digit(s[i])) return -1;
        while (i < p->n && is_digit(s[i])) i++;
    }
    if (i - p->pos > MAX_NUMBER_LENGTH) return -1;
    /* Jackson's _verifyRootSpace: a root-level number ends at whitespace or the end */
    if (p->depth == 0 && i < p->n && !is_space(s[i])) return -1;
    p->start = p->pos;
    p->end = p->pos = i;
    p->tok = is_float ? TK_FLOAT : TK_INT;
    return 0;
}

static inline int scan_word(Parser *p, const char *word, int tok) {
    int64_t length = (int64_t)strlen(word);
    uint8_t c;
    if (p->pos + length > p->n || memcmp(p->s + p->pos, word, (size_t)length) != 0) return -1;
    p->start = p->pos;
    p->end = p->pos += length;
    /* Jackson's _checkMatchEnd: a word running on into an identifier is unrecognized */
    c = p->pos < p->n ? p->s[p->pos] : ' ';
    if (p->lazy) {
        /* ReaderBasedJsonParser._matchToken: only a character from '0' up (but ] and }) that a
         * Java identifier may hold ends the word wrongly */
        if (c >= '0' && c != ']' && c != '}' && (is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x7F))
            return -1;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '$' || c >= 0x80) {
        return -1;
    }
    p->tok = tok;
    return 0;
}

static inline int scan_value(Parser *p) {
    uint8_t c;
    skip_space(p);
    if (p->pos >= p->n) return -1;
    c = p->s[p->pos];
    if (c == '{' || c == '[') {
        if (p->depth >= MAX_DEPTH) return -1; /* Jackson's StreamReadConstraints.maxNestingDepth */
        p->is_object[p->depth] = c == '{';
        p->state[p->depth] = ST_FIRST;
        p->name_start[p->depth] = -1;
        p->depth++;
        p->pos++;
        p->tok = c == '{' ? TK_START_OBJECT : TK_START_ARRAY;
        return 0;
    }
    if (c == '"' || c == '\'') {
        p->pos++;
        p->tok = TK_STRING;
        return scan_string(p, c);
    }
    if (p->lazy) {
        /* Spark's allowNonNumericNumbers: Jackson's NaN, Infinity, +Infinity, -Infinity, +INF, -INF */
        uint8_t sign = c == '+' || c == '-' ? c : 0, letter = p->pos + 1 < p->n ? p->s[p->pos + 1] : 0;
        if (c == 'N') return scan_word(p, "NaN", TK_FLOAT);
        if (c == 'I') return scan_word(p, "Infinity", TK_FLOAT);
        if (sign && letter == 'I' && p->pos + 2 < p->n && p->s[p->pos + 2] == 'N')
            return scan_word(p, sign == '+' ? "+INF" : "-INF", TK_FLOAT);
        if (sign && letter == 'I') return scan_word(p, sign == '+' ? "+Infinity" : "-Infinity", TK_FLOAT);
    }
    if (c == '-' || is_digit(c)) return scan_number(p);
    if (c == 't') return scan_word(p, "true", TK_TRUE);
    if (c == 'f') return scan_word(p, "false", TK_FALSE);
    if (c == 'n') return scan_word(p, "null", TK_NULL);
    return -1;
}

static inline int read_token(Parser *p) {
    int d;
    uint8_t c;
    skip_space(p);
    if (p->depth == 0) {
        if (p->pos >= p->n) {
            p->tok = TK_NONE;
            return 0;
        }
        return scan_value(p);
    }
    d = p->depth - 1;
    if (p->pos >= p->n) return -1;
    c = p->s[p->pos];
    if (p->is_object[d] && p->state[d] == ST_VALUE) {
        p->state[d] = ST_AFTER;
        return scan_value(p);
    }
    if (c == (p->is_object[d] ? '}' : ']')) {
        p->pos++;
        p->depth--;
        p->tok = p->is_object[d] ? TK_END_OBJECT : TK_END_ARRAY;
        return 0;
    }
    if (p->state[d] == ST_AFTER) {
        if (c != ',') return -1;
        p->pos++;
        skip_space(p);
        if (p->pos >= p->n) return -1;
        c = p->s[p->pos];
    }
    if (!p->is_object[d]) {
        p->state[d] = ST_AFTER;
        return scan_value(p);
    }
    if (c != '"' && c != '\'') return -1;
    p->pos++;
    if (scan_string(p, c) < 0 || p->bad_spots > 0) return -1; /* Jackson reads a name at once */
    p->name_start[d] = p->start;
    p->name_end[d] = p->end;
    skip_space(p);
    if (p->pos >= p->n || p->s[p->pos] != ':') return -1;
    p->pos++;
    p->state[d] = ST_VALUE;
    p->tok = TK_FIELD;
    return 0;
}

/* Character.isJavaIdentifierPart of a character starting with byte c (any past ASCII taken as one). */
static inline int java_identifier_part(uint8_t c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c <= 0x08 ||
           (c >= 0x0E && c <= 0x1B) || c >= 0x7F;
}

/* Where the character at i ends (the text is UTF-8). */
static inline int64_t next_character(const Parser *p, int64_t i) {
    i++;
    while (i < p->n && (p->s[i] & 0xC0) == 0x80) i++;
    return i;
}

/* A value Jackson could not read, from start: where its reading stops (ReaderBasedJsonParser:
 * _reportInvalidToken reads on over the identifier characters of a bad word, at most 256; an
 * unexpected character is read; a number stops at its bad character). Returns -1. */
static inline int jackson_error(Parser *p, int64_t start) {
    const uint8_t *s = p->s;
    int64_t n = p->n, i = start;
    const char *word = NULL;
    if (i >= n) {
        p->pos = n;
        return -1;
    }
    switch (s[i]) {
    case 't': word = "true"; break;
    case 'f': word = "false"; break;
    case 'n': word = "null"; break;
    case 'N': word = "NaN"; break;
    case 'I': word = "Infinity"; break;
    case '+':
    case '-':
        if (i + 1 < n && s[i + 1] == 'I') {
            if (i + 2 < n && (s[i + 2] == 'N' || s[i + 2] == 'n'))
                word = s[i] == '+' ? (s[i + 2] == 'N' ? "+INF" : "+Infinity") : (s[i + 2] == 'N' ? "-INF" : "-Infinity");
            else {
                p->pos = i + 3 < n ? i + 3 : n;
                return -1;
            }
        } else if (s[i] == '+' || i + 1 >= n || !is_digit(s[i + 1])) {
            p->pos = i + 2 < n ? i + 2 : n; /* the character after the sign, read */
            return -1;
        }
        break;
    default: break;
    }
    if (word != NULL) {
        int64_t k = 0, length = (int64_t)strlen(word);
        while (k < length && i + k < n && s[i + k] == (uint8_t)word[k]) k++;
        i += k;
        while (i < n && i - start < 256 && java_identifier_part(s[i])) i++;
        p->pos = i;
        return -1;
    }
    if (s[i] == '-' || is_digit(s[i])) {
        if (s[i] == '-') i++;
        if (s[i] == '0' && i + 1 < n && is_digit(s[i + 1])) {
            p->pos = i + 1; /* "Leading zeroes not allowed", at the second digit */
            return -1;
        }
        while (i < n && is_digit(s[i])) i++;
        if (i < n && s[i] == '.') {
            i++;
            if (i >= n || !is_digit(s[i])) {
                p->pos = i; /* "not followed by a digit": at the character that is not one */
                return -1;
            }
            while (i < n && is_digit(s[i])) i++;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            i++;
            if (i < n && (s[i] == '+' || s[i] == '-')) i++;
            if (i >= n || !is_digit(s[i])) {
                p->pos = i; /* "not followed by a digit": at the character that is not one */
                return -1;
            }
            while (i < n && is_digit(s[i])) i++;
        }
        p->pos = i;
        return -1;
    }
    i = next_character(p, i);
    if ((s[start] >= 'a' && s[start] <= 'z') || (s[start] >= 'A' && s[start] <= 'Z') || s[start] == '_' || s[start] == '$' || s[start] >= 0x80)
        while (i < n && i - start < 256 && java_identifier_part(s[i])) i++;
    p->pos = i;
    return -1;
}

/* A value just scanned that Jackson would have failed on: a string in single quotes with bad
 * content (_handleApos reads it at once; a string in double quotes is read lazily). */
static inline int eager_failure(const Parser *p) {
    return p->tok == TK_STRING && p->bad_spots && p->s[p->start - 1] == '\'';
}

/* A value read as Jackson reads one in an array or at the root: on a failure the current token
 * stays previous and the reading goes on where Jackson's stops. */
static inline int scan_or_fail(Parser *p, int previous) {
    int64_t start = p->pos;
    if (scan_value(p) == 0 && !eager_failure(p)) return 0;
    if (p->tok == TK_STRING && p->bad_spots) {
        p->tok = previous;
        p->pos = p->bad_end;
        return -1;
    }
    p->tok = previous;
    return jackson_error(p, start);
}

/* Jackson's nextToken under from_json's reading (Parser.lazy), failing as Jackson does: the
 * current token stays on a failure, but for a name whose value fails (its next token is null),
 * and reading goes on from where Jackson's stopped. */
static inline int read_token_lazy(Parser *p) {
    int d, previous = p->tok;
    int64_t start, name_start, name_end;
    uint8_t c;
    skip_space(p);
    if (p->depth == 0) {
        if (p->pos >= p->n) {
            p->tok = TK_NONE;
            return 0;
        }
        return scan_or_fail(p, previous);
    }
    d = p->depth - 1;
    if (p->pos >= p->n) return -1;
    c = p->s[p->pos];
    if (p->is_object[d] && p->state[d] == ST_VALUE) {
        p->state[d] = ST_AFTER;
        return scan_value(p); /* read when its name was */
    }
    if (c == '}' || c == ']') {
        p->pos++;
        if (c != (p->is_object[d] ? '}' : ']')) return -1; /* a mismatched end marker, read */
        p->depth--;
        p->tok = p->is_object[d] ? TK_END_OBJECT : TK_END_ARRAY;
        return 0;
    }
    if (p->state[d] == ST_AFTER) {
        p->pos = next_character(p, p->pos);
        if (c != ',') return -1; /* "was expecting comma", the character read */
        skip_space(p);
        if (p->pos >= p->n) return -1;
        c = p->s[p->pos];
    }
    p->state[d] = ST_AFTER; /* Jackson counts the entry before reading it */
    if (!p->is_object[d]) {
        return scan_or_fail(p, previous);
    }
    p->pos = next_character(p, p->pos);
    if (c != '"' && c != '\'') return -1; /* "was expecting double-quote to start field name" */
    if (scan_string(p, c) < 0) return -1;
    if (p->bad_spots) {
        p->pos = p->bad_end;
        return -1;
    }
    name_start = p->start;
    name_end = p->end;
    p->name_start[d] = name_start;
    p->name_end[d] = name_end;
    skip_space(p);
    if (p->pos >= p->n || p->s[p->pos] != ':') {
        if (p->pos < p->n) p->pos = next_character(p, p->pos); /* "was expecting a colon", the character read */
        p->tok = TK_FIELD;
        p->pending_null = 1;
        return -1;
    }
    p->pos++;
    /* Jackson reads a scalar value with its name: a value it cannot read fails the name's read */
    skip_space(p);
    start = p->pos;
    if (start >= p->n || (p->s[start] != '"' && p->s[start] != '{' && p->s[start] != '[')) {
        if (start >= p->n || scan_value(p) < 0 || eager_failure(p)) {
            int bad_string = start < p->n && p->tok == TK_STRING && p->bad_spots;
            p->tok = TK_FIELD;
            p->pending_null = 1;
            if (!bad_string) return jackson_error(p, start);
            p->pos = p->bad_end;
            return -1;
        }
        p->pos = start;
    }
    p->start = name_start;
    p->end = name_end;
    p->state[d] = ST_VALUE;
    p->tok = TK_FIELD;
    return 0;
}

/* Jackson's nextToken: TK_NONE at the end of a text holding no value (lazy: also the null
 * token after a name whose value failed). */
static inline int next_token(Parser *p) {
    int r;
    if (!p->lazy) return read_token(p);
    if (p->pending_null) {
        p->pending_null = 0;
        p->tok = TK_NONE;
        return 0;
    }
    if (p->tok == TK_STRING && p->bad_spots) {
        /* a string with bad content: after a failed read of its text Jackson reads on just past
         * its bad character; skipping it unread fails there */
        p->pos = p->bad_end;
        p->bad_spots = 0;
        if (!p->string_read) return -1;
    }
    r = read_token_lazy(p);
    p->string_read = 0;
    return r;
}

/* Jackson's skipChildren: past the end of the container just started. */
static inline int skip_children(Parser *p) {
    int open = 1;
    if (p->tok != TK_START_OBJECT && p->tok != TK_START_ARRAY) return 0;
    for (;;) {
        if (next_token(p) < 0) return -1;
        if (p->tok == TK_NONE) return 0;
        if (p->tok == TK_START_OBJECT || p->tok == TK_START_ARRAY) open++;
        else if ((p->tok == TK_END_OBJECT || p->tok == TK_END_ARRAY) && --open == 0) return 0;
    }
}

static inline int put_utf8(JsonText *o, uint32_t cp) {
    uint8_t b[4];
    int k;
    if (cp < 0x80) {
        b[0] = (uint8_t)cp;
        k = 1;
    } else if (cp < 0x800) {
        b[0] = (uint8_t)(0xC0 | (cp >> 6));
        b[1] = (uint8_t)(0x80 | (cp & 0x3F));
        k = 2;
    } else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xE0 | (cp >> 12));
        b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (uint8_t)(0x80 | (cp & 0x3F));
        k = 3;
    } else {
        b[0] = (uint8_t)(0xF0 | (cp >> 18));
        b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (uint8_t)(0x80 | (cp & 0x3F));
        k = 4;
    }
    return put(o, b, k);
}

static inline int put_unit_escape(JsonText *o, uint32_t unit) {
    static const char hex[] = "0123456789ABCDEF";
    char e[6] = {'\\', 'u', hex[(unit >> 12) & 15], hex[(unit >> 8) & 15], hex[(unit >> 4) & 15], hex[unit & 15]};
    return put(o, e, 6);
}

/* One code point as Jackson's generator writes it inside quotes. */
static inline int put_quoted_point(JsonText *o, uint32_t cp) {
    const char *short_form = NULL;
    switch (cp) {
    case '"': short_form = "\\\""; break;
    case '\\': short_form = "\\\\"; break;
    case '\b': short_form = "\\b"; break;
    case '\t': short_form = "\\t"; break;
    case '\n': short_form = "\\n"; break;
    case '\f': short_form = "\\f"; break;
    case '\r': short_form = "\\r"; break;
    default: break;
    }
    if (short_form != NULL) return put(o, short_form, 2);
    if (cp < 0x20 || (cp >= 0xD800 && cp <= 0xDFFF)) return put_unit_escape(o, cp);
    if (cp >= 0x10000) {
        int r = put_unit_escape(o, 0xD800 + ((cp - 0x10000) >> 10));
        return r < 0 ? r : put_unit_escape(o, 0xDC00 + ((cp - 0x10000) & 0x3FF));
    }
    return put_utf8(o, cp);
}

enum { AS_RAW, AS_QUOTED, AS_NAME, AS_DUCK };

/* The text s[start..end) of a string or name, unescaped, into o: as its characters (AS_RAW; a
 * lone surrogate fails, as Jackson's raw UTF-8 writing does), inside quotes (AS_QUOTED), or as
 * UTF-8 to compare with a path's key (AS_NAME; a lone surrogate as its three bytes). */
static inline int put_text(JsonText *o, const uint8_t *s, int64_t start, int64_t end, int how) {
    int64_t i = start;
    int r;
    if ((how == AS_QUOTED || how == AS_DUCK) && (r = put(o, "\"", 1)) < 0) return r;
    while (i < end) {
        uint32_t cp;
        uint8_t c = s[i];
        int64_t run = i;
        /* a run of characters written as they are, in one copy */
        if (how == AS_QUOTED)
            while (run < end && s[run] >= 0x20 && s[run] != '"' && s[run] != '\\' && s[run] < 0xF0) run++;
        else if (how == AS_DUCK)
            while (run < end && s[run] >= 0x20 && s[run] != '"' && s[run] != '\\') run++;
        else
            while (run < end && s[run] != '\\') run++;
        if (run > i) {
            if ((r = put(o, s + i, run - i)) < 0) return r;
            i = run;
            continue;
        }
        if (c == '\\') {
            uint8_t e = s[i + 1];
            i += 2;
            switch (e) {
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                cp = (uint32_t)(hex_value(s[i]) << 12 | hex_value(s[i + 1]) << 8 | hex_value(s[i + 2]) << 4 | hex_value(s[i + 3]));
                i += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= end && s[i] == '\\' && s[i + 1] == 'u') {
                    uint32_t low = (uint32_t)(hex_value(s[i + 2]) << 12 | hex_value(s[i + 3]) << 8 | hex_value(s[i + 4]) << 4 |
                                              hex_value(s[i + 5]));
                    if (low >= 0xDC00 && low <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        i += 6;
                    }
                }
                break;
            default: cp = e; break; /* " \ / ' */
            }
        } else if (c < 0x80) {
            cp = c;
            i++;
        } else {
            /* DuckDB's strings are valid UTF-8 */
            int k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            cp = (uint32_t)(c & (0x7F >> k));
            for (int j = 1; j < k && i + j < end; j++) cp = (cp << 6) | (s[i + j] & 0x3F);
            i += k;
        }
        if (how == AS_QUOTED) r = put_quoted_point(o, cp);
        /* JSON text for DuckDB of the Java string Spark keeps: UTF8String.fromString writes a lone
         * surrogate as '?' */
        else if (how == AS_DUCK) r = cp >= 0xD800 && cp <= 0xDFFF ? put(o, "?", 1) : cp < 0x20 || cp == '"' || cp == '\\' ? put_quoted_point(o, cp) : put_utf8(o, cp);
        else if (how == AS_RAW && cp >= 0xD800 && cp <= 0xDFFF) return -1;
        else r = put_utf8(o, cp);
        if (r < 0) return r;
    }
    return how == AS_QUOTED || how == AS_DUCK ? put(o, "\"", 1) : 0;
}

static inline int put_number(Parser *p) {
    const uint8_t *s = p->s + p->start;
    int64_t length = p->end - p->start;
    char digits[MAX_NUMBER_LENGTH + 1], printed[40];
    double value;
    uint64_t bits;
    if (p->tok == TK_INT) return length == 2 && s[0] == '-' && s[1] == '0' ? put(p->out, "0", 1) : put(p->out, s, length);
    memcpy(digits, s, (size_t)length);
    digits[length] = '\0';
    value = strtod(digits, NULL); /* correctly rounded, as Java's Double.parseDouble */
    memcpy(&bits, &value, 8);
    if (value != value) return put(p->out, "\"NaN\"", 5);
    if (value > 1.7976931348623157e308) return put(p->out, "\"Infinity\"", 10);
    if (value < -1.7976931348623157e308) return put(p->out, "\"-Infinity\"", 11);
    return put(p->out, printed, p->format_double(printed, bits));
}

/* Jackson's copyCurrentStructure of the current token. */
static inline int copy_structure(Parser *p) {
    int r, first = 1;
    switch (p->tok) {
    case TK_START_OBJECT:
    case TK_START_ARRAY: {
        int object = p->tok == TK_START_OBJECT;
        if ((r = put(p->out, object ? "{" : "[", 1)) < 0) return r;
        for (;;) {
            if (next_token(p) < 0) return -1;
            if (p->tok == TK_END_OBJECT || p->tok == TK_END_ARRAY || p->tok == TK_NONE) break;
            if (!first && (r = put(p->out, ",", 1)) < 0) return r;
            first = 0;
            if (object) {
                if ((r = put_text(p->out, p->s, p->start, p->end, AS_QUOTED)) < 0 || (r = put(p->out, ":", 1)) < 0) return r;
                if (next_token(p) < 0) return -1;
            }
            if ((r = copy_structure(p)) < 0) return r;
        }
        return put(p->out, object ? "}" : "]", 1);
    }
    case TK_STRING:
        if (p->bad_spots > 0) {
            p->string_read = 1; /* lazy: its text cannot be read */
            return -1;
        }
        return put_text(p->out, p->s, p->start, p->end, AS_QUOTED);
    case TK_INT:
    case TK_FLOAT: return put_number(p);
    case TK_TRUE: return put(p->out, "true", 4);
    case TK_FALSE: return put(p->out, "false", 5);
    case TK_NULL: return put(p->out, "null", 4);
    default: return -1; /* no current token: Jackson's "No current event to copy" */
    }
}

#endif
