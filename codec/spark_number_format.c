/* Spark's number formats in C: to_number / try_to_number (ToNumberParser.parse) and to_char of a
 * decimal (ToNumberParser.format) of Spark 4, over the tokens vpush.optimizer.spark_number_format
 * builds from the (upper-cased, checked) format.
 *
 * Reading walks the tokens over the input: a digit group takes digits, commas and whitespace (Java's
 * Character.isDigit and isWhitespace of each UTF-16 unit: a character outside the BMP is neither),
 * then compares the digits between commas with the group's runs from the right, a run of exactly
 * so many digits (0 first) or at most so many (9 first); a point, dollar, sign, MI or PR's brackets
 * are each taken where the input has them (a missing dollar where input remains is a mismatch).
 * Input left over, a lone bracket or no digit at all is a mismatch.
 *
 * Printing pads the digits before the point with spaces and after it with zeros to the format's
 * counts (all '#' where the number has more digits than the format), then writes each token; a
 * sign or bracket moves left past the spaces before it, a space moves left past a sign or '<'
 * before it, a point with nothing after it becomes a space, and an empty answer (or a lone sign)
 * is "0".
 */
#include "spark_number_format.h"

#include <string.h>

#define NF_MAX_GROUPS 1024

/* the zero of every block of ten decimal digits (Unicode Nd) in the Basic Multilingual Plane */
static const uint32_t DIGIT_ZEROS[] = {
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
    0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
};

static int java_digit(uint32_t c) {
    size_t k;
    for (k = 0; k < sizeof(DIGIT_ZEROS) / sizeof(DIGIT_ZEROS[0]); k++) {
        if (c >= DIGIT_ZEROS[k] && c < DIGIT_ZEROS[k] + 10) return (int)(c - DIGIT_ZEROS[k]);
    }
    return -1;
}

/* Character.isWhitespace: Unicode space separators but the no-break ones, line and paragraph
 * separators, and the ASCII controls \t \n \v \f \r and 0x1C to 0x1F */
static int java_whitespace(uint32_t c) {
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x1680 || (c >= 0x2000 && c <= 0x2006)
           || (c >= 0x2008 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x205f || c == 0x3000;
}

/* the character at text[i] and its length in bytes; a character outside the BMP or a malformed
 * byte is 0xFFFFFFFF, which matches no token */
static uint32_t next_char(const uint8_t *text, int64_t length, int64_t i, int *size) {
    uint8_t b = text[i];
    if (b < 0x80) {
        *size = 1;
        return b;
    }
    if ((b & 0xe0) == 0xc0 && i + 1 < length) {
        *size = 2;
        return ((uint32_t)(b & 0x1f) << 6) | (text[i + 1] & 0x3f);
    }
    if ((b & 0xf0) == 0xe0 && i + 2 < length) {
        *size = 3;
        return ((uint32_t)(b & 0x0f) << 12) | ((uint32_t)(text[i + 1] & 0x3f) << 6) | (text[i + 2] & 0x3f);
    }
    *size = 1;
    return 0xffffffffu;
}

static int64_t group_end(const int32_t *tokens, int64_t count, int64_t k) {
    while (k < count && tokens[2 * k] != NF_GROUP_END) k++;
    return k;
}

int64_t spark_parse_number(const int32_t *tokens, int64_t count, int64_t scale, const uint8_t *text, int64_t length, uint8_t *out) {
    int64_t precision = 0, k, i = 0, nb = 0, na = 0, used = 0, j;
    int reached_point = 0, opened = 0, closed = 0, negate = 0;
    uint8_t *before, *after;
    for (k = 0; k < count; k++) {
        if (tokens[2 * k] == NF_EXACT || tokens[2 * k] == NF_AT_MOST) precision += tokens[2 * k + 1];
    }
    /* the digits are gathered at the end of out, the answer written at its start */
    before = out + precision + 3;
    after = before + precision;
    for (k = 0; k < count; k++) {
        int kind = tokens[2 * k];
        uint8_t c = i < length ? text[i] : 0;
        if (kind == NF_EXACT || kind == NF_AT_MOST || kind == NF_SEPARATOR) {
            int64_t end = group_end(tokens, count, k), sizes[NF_MAX_GROUPS], nsizes = 0, current = 0, ndigits = 0, m;
            int too_many = 0;
            while (i < length) {
                int size;
                uint32_t ch = next_char(text, length, i, &size);
                int d = java_digit(ch);
                if (java_whitespace(ch)) {
                    i += size;
                } else if (d >= 0) {
                    if (nb + na >= precision) return SPARK_NUMBER_FORMAT_MISMATCH; /* more digits than any match takes */
                    current++;
                    if (reached_point) after[na++] = (uint8_t)('0' + d);
                    else before[nb++] = (uint8_t)('0' + d);
                    i += size;
                } else if (ch == ',') {
                    if (nsizes < NF_MAX_GROUPS) sizes[nsizes++] = current;
                    else too_many = 1;
                    current = 0;
                    i += 1;
                } else {
                    break;
                }
            }
            if (nsizes < NF_MAX_GROUPS) sizes[nsizes++] = current;
            else too_many = 1;
            for (m = k; m < end; m++) ndigits += tokens[2 * m] != NF_SEPARATOR;
            if (too_many || nsizes > ndigits) return SPARK_NUMBER_FORMAT_MISMATCH;
            /* the format's runs and the input's groups compared from the right */
            j = 0;
            for (m = end - 1; m >= k; m--) {
                int64_t actual;
                if (tokens[2 * m] == NF_SEPARATOR) continue;
                actual = j < nsizes ? sizes[nsizes - 1 - j] : 0;
                if (tokens[2 * m] == NF_EXACT ? actual != tokens[2 * m + 1] : actual > tokens[2 * m + 1]) {
                    return SPARK_NUMBER_FORMAT_MISMATCH;
                }
                j++;
            }
            k = end;
        } else if (kind == NF_POINT) {
            if (i < length && c == '.') reached_point = 1, i++;
        } else if (kind == NF_DOLLAR) {
            if (i < length) {
                if (c != '$') return SPARK_NUMBER_FORMAT_MISMATCH;
                i++;
            }
        } else if (kind == NF_SIGN) {
            if (i < length && (c == '+' || c == '-')) negate ^= c == '-', i++;
        } else if (kind == NF_MINUS) {
            if (i < length && c == '-') negate ^= 1, i++;
        } else if (kind == NF_OPEN) {
            if (i < length && c == '<') {
                if (opened) return SPARK_NUMBER_FORMAT_MISMATCH;
                opened = 1, i++;
            }
        } else if (kind == NF_CLOSE) {
            if (i < length && c == '>') {
                if (!opened) return SPARK_NUMBER_FORMAT_MISMATCH;
                closed = 1, negate ^= 1, i++;
            }
        }
    }
    if (i < length || opened != closed || (nb == 0 && na == 0)) return SPARK_NUMBER_FORMAT_MISMATCH;
    if (negate) out[used++] = '-';
    if (nb == 0) out[used++] = '0';
    memmove(out + used, before, (size_t)nb);
    used += nb;
    if (scale > 0) {
        out[used++] = '.';
        memmove(out + used, after, (size_t)na);
        used += na;
        for (j = na; j < scale; j++) out[used++] = '0';
    }
    return used;
}

/* the point of the answer so far made a space where nothing but spaces follows it (Spark looks
 * only at the first point, and only at the character after it) */
static void strip_lone_point(uint8_t *r, int64_t used) {
    int64_t i;
    for (i = 0; i < used && r[i] != '.'; i++) {
    }
    if (i < used && (i == used - 1 || r[i + 1] == ' ')) r[i] = ' ';
}

/* append c, then move it left past the spaces before it */
static int64_t add_char(uint8_t *r, int64_t used, uint8_t c) {
    int64_t i = used;
    r[used++] = c;
    while (i >= 1 && r[i - 1] == ' ' && r[i] == c) {
        r[i] = ' ';
        r[i - 1] = c;
        i--;
    }
    return used;
}

/* append a space, then move it left past the signs and '<' before it */
static int64_t add_space(uint8_t *r, int64_t used) {
    int64_t i = used;
    r[used++] = ' ';
    while (i >= 1 && (r[i - 1] == '+' || r[i - 1] == '-' || r[i - 1] == '<') && r[i] == ' ') {
        r[i] = r[i - 1];
        r[i - 1] = ' ';
        i--;
    }
    return used;
}

int64_t spark_format_number(const int32_t *tokens, int64_t count, int64_t before, int64_t after, const uint8_t *text, int64_t length, uint8_t *out) {
    int64_t i = 0, int_start, int_end, frac_start, frac_end, bi = 0, ai = 0, used = 0, k, n, pad;
    int negative = 0, nonzero = 0, reached_point = 0, overflow;
    if (length > 0 && text[0] == '-') negative = 1, i = 1;
    int_start = i;
    while (i < length && text[i] != '.') nonzero |= text[i++] != '0';
    int_end = i;
    frac_start = frac_end = i < length ? i + 1 : i;
    for (i = frac_start; i < length; i++) nonzero |= text[i] != '0';
    frac_end = length;
    negative &= nonzero;
    while (int_start < int_end && text[int_start] == '0') int_start++;
    while (frac_end > frac_start && text[frac_end - 1] == '0') frac_end--;
    overflow = int_end - int_start > before || frac_end - frac_start > after;
    pad = overflow ? 0 : before - (int_end - int_start);
    for (k = 0; k < count; k++) {
        int kind = tokens[2 * k];
        if (kind == NF_EXACT || kind == NF_AT_MOST) {
            for (n = 0; n < tokens[2 * k + 1]; n++) {
                if (reached_point) {
                    out[used++] = overflow ? '#' : frac_start + ai < frac_end ? text[frac_start + ai] : '0';
                    ai++;
                } else {
                    if (overflow) out[used++] = '#';
                    else if (bi >= pad) out[used++] = text[int_start + bi - pad];
                    else if (kind == NF_EXACT) out[used++] = '0';
                    else used = add_space(out, used);
                    bi++;
                }
            }
        } else if (kind == NF_SEPARATOR) {
            if (used > 0 && out[used - 1] >= '0' && out[used - 1] <= '9') out[used++] = ',';
            else used = add_space(out, used);
        } else if (kind == NF_POINT) {
            if (used > 0 && out[used - 1] == ' ') out[used - 1] = '0';
            out[used++] = '.';
            reached_point = 1;
        } else if (kind == NF_DOLLAR) {
            out[used++] = '$';
        } else if (kind == NF_SIGN) {
            strip_lone_point(out, used);
            used = add_char(out, used, negative ? '-' : '+');
        } else if (kind == NF_MINUS) {
            if (negative) {
                strip_lone_point(out, used);
                used = add_char(out, used, '-');
            } else {
                out[used++] = ' ';
            }
        } else if (kind == NF_OPEN) {
            if (negative) out[used++] = '<';
        } else if (kind == NF_CLOSE) {
            strip_lone_point(out, used);
            if (negative) {
                used = add_char(out, used, '>');
            } else {
                out[used++] = ' ';
                out[used++] = ' ';
            }
        }
    }
    strip_lone_point(out, used);
    if (used == 0 || (used == 1 && (out[0] == '+' || out[0] == '-'))) {
        out[0] = '0';
        used = 1;
    }
    return used;
}
