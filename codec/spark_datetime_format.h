/* Spark's parsing of a string by a datetime pattern (to_timestamp(s, fmt) and its kin), as the
 * java.time DateTimeFormatter Spark builds from the pattern parses it: see
 * codec/spark_datetime_format.c. The pattern is compiled to a program of steps by
 * vpush/codec/datetime_pattern.py; this kernel runs the program over each string. */
#ifndef VPUSH_SPARK_DATETIME_FORMAT_H
#define VPUSH_SPARK_DATETIME_FORMAT_H

#include <stdint.h>

/* The kinds of step: a number, a two-digit year (yy), a fraction of a second (S...), a word
 * (a month's name, AM/PM), literal text, a zone offset. */
enum { FMT_VALUE = 0, FMT_REDUCED = 1, FMT_FRACTION = 2, FMT_TEXT = 3, FMT_LITERAL = 4, FMT_OFFSET = 5 };

/* The fields a step sets (java.time's ChronoFields). */
enum {
    FMT_YEAR = 0, FMT_MONTH = 1, FMT_DAY = 2, FMT_DAY_OF_YEAR = 3, FMT_HOUR = 4, FMT_CLOCK_HOUR_AMPM = 5,
    FMT_AMPM = 6, FMT_MINUTE = 7, FMT_SECOND = 8, FMT_NANO = 9, FMT_OFFSET_SECONDS = 10, FMT_FIELDS = 11
};

/* java.time's SignStyle, by its ordinal. */
enum { SIGN_NORMAL = 0, SIGN_ALWAYS = 1, SIGN_NEVER = 2, SIGN_NOT_NEGATIVE = 3, SIGN_EXCEEDS_PAD = 4 };

/* The texts a FMT_TEXT step matches (Locale.US). */
enum { TEXT_MONTH_SHORT = 0, TEXT_MONTH_FULL = 1, TEXT_AMPM = 2 };

/* The offset forms (the `type` of java.time's OffsetIdPrinterParser) and the text of a zero offset. */
enum { OFFSET_HH_MM_OPTIONAL = 1, OFFSET_HHMM = 3, OFFSET_HH_COLON_MM = 4 };
enum { NO_OFFSET_Z = 0, NO_OFFSET_PLUS_ZEROS = 1 };

/* One step, six int32s: kind, field, and by kind
 *   FMT_VALUE / FMT_REDUCED: min width, max width, sign style, subsequent width (-1: fixed);
 *   FMT_FRACTION: min digits, max digits;
 *   FMT_TEXT: which texts (TEXT_*);
 *   FMT_LITERAL: offset and length of its bytes in the literal buffer;
 *   FMT_OFFSET: the form (OFFSET_*), the text of a zero offset (NO_OFFSET_*). */
typedef struct {
    int32_t kind, field, a, b, c, d;
} FormatStep;

enum { FMT_ROW_NULL = 0, FMT_ROW_LOCAL = 1, FMT_ROW_OFFSET = 2, FMT_ROW_FAILED = 3 };

typedef struct {
    int status;             /* FMT_ROW_* */
    int64_t local_seconds;  /* the local date and time, as seconds since 1970-01-01T00:00 */
    int32_t micros;         /* the fraction of the second */
    int32_t offset_seconds; /* FMT_ROW_OFFSET: the offset written */
} FormattedDatetime;

/* One string parsed by the program: FMT_ROW_FAILED where Spark's parser raises (or try_ gives NULL). */
FormattedDatetime spark_parse_formatted(const FormatStep *steps, int64_t count, const uint8_t *literals,
                                        const uint8_t *text, int64_t length);

#endif
