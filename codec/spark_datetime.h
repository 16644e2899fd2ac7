/* Spark's casts of a string to a date or a timestamp, as its DateTimeUtils parses them
 * (stringToDate, parseTimestampString): see codec/spark_datetime.c. */
#ifndef VPUSH_SPARK_DATETIME_H
#define VPUSH_SPARK_DATETIME_H

#include <stdint.h>

/* What a parse gives. */
enum {
    DT_NULL = 0,        /* a NULL row */
    DT_LOCAL = 1,       /* parsed; no zone written (the session's applies) */
    DT_ZONED = 2,       /* parsed; a zone written, at zone_start for zone_length bytes */
    DT_FAILED = 3,      /* not a date or timestamp: Spark's cast fails */
    DT_TIME_ONLY = 4,   /* a time of day alone (today's date in the zone applies) */
    DT_TIME_ZONED = 5,  /* a time of day alone, with a zone written */
};

typedef struct {
    int status;
    int64_t seconds;     /* date: days since the epoch; timestamp: local seconds since the epoch
                            (a time alone: seconds of the day) */
    int32_t micros;      /* the fraction of the second */
    int64_t zone_start;  /* the zone text, DT_ZONED and DT_TIME_ZONED only */
    int64_t zone_length;
} SparkDatetime;

/* Spark's stringToDate of one string's bytes. */
SparkDatetime spark_string_to_date(const uint8_t *text, int64_t length);

/* Spark's parseTimestampString of one string's bytes, checked as stringToTimestamp checks the
 * fields (ntz: as stringToTimestampWithoutTimeZone, which takes no time alone). */
SparkDatetime spark_string_to_timestamp(const uint8_t *text, int64_t length, int ntz);

#endif
