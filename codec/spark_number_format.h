/* Spark's number formats: to_number / try_to_number and to_char of a decimal (codec/spark_number_format.c). */
#ifndef VPUSH_SPARK_NUMBER_FORMAT_H
#define VPUSH_SPARK_NUMBER_FORMAT_H

#include <stdint.h>

/* The format's tokens, as int32 pairs (kind, count): a digit group is its digit and separator
 * tokens in the format's order, closed by NF_GROUP_END; PR is NF_OPEN first and NF_CLOSE where it
 * stood (Spark's ToNumberParser.formatTokens). */
enum {
    NF_EXACT = 1,     /* count digits, exactly (a run that starts with 0 before the point) */
    NF_AT_MOST = 2,   /* at most count digits */
    NF_SEPARATOR = 3, /* , or G */
    NF_GROUP_END = 4,
    NF_POINT = 5,     /* . or D */
    NF_DOLLAR = 6,
    NF_SIGN = 7,      /* S */
    NF_MINUS = 8,     /* MI */
    NF_OPEN = 9,      /* PR's < */
    NF_CLOSE = 10     /* PR's > */
};

#define SPARK_NUMBER_FORMAT_MISMATCH (-2)

/* The `length` bytes of UTF-8 `text` read by the format (to_number): the number written into out
 * as plain decimal text with `scale` digits after the point (room for 2 * digits + 3 bytes, digits
 * being the format's count), its length returned, or SPARK_NUMBER_FORMAT_MISMATCH where Spark
 * finds that the input does not match the format. */
int64_t spark_parse_number(const int32_t *tokens, int64_t count, int64_t scale, const uint8_t *text, int64_t length, uint8_t *out);

/* The decimal printed as plain text (`text`: an optional '-', digits, an optional point and
 * digits) formatted by the format (to_char) into out (room for 2 * the format's length + 4
 * bytes): the length written. `before` and `after` are the format's digits before and after
 * its point. */
int64_t spark_format_number(const int32_t *tokens, int64_t count, int64_t before, int64_t after, const uint8_t *text, int64_t length, uint8_t *out);

#endif
