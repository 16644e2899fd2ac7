/* Spark's casts of a string to a date or a timestamp, byte by byte as Spark 4's DateTimeUtils
 * parses them, for whole Arrow string columns (the binding is parse_datetimes in _native.c).
 *
 * The reference is the Python port in vpush/exec/variant_cast.py (_string_to_date,
 * _parse_timestamp_text, _string_to_timestamp), itself checked against PySpark; this file gives
 * the same answers. A zone written in the text is returned as its bytes: the caller resolves each
 * distinct zone once (region names need the time-zone database) and applies the offsets. */
#include "spark_datetime.h"

#define INT32_LOW (-2147483647LL - 1)
#define INT32_HIGH 2147483647LL
#define SECONDS_PER_DAY 86400LL
/* A segment's digits are counted on; its value stops growing here (it fails as too long). */
#define MAX_SEGMENT_DIGITS 10

/* UTF8String.trimAll: the bytes up to 0x20 and 0x7f, at both ends. */
static int trimmed_byte(uint8_t b) { return b <= 0x20 || b == 0x7f; }

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t year, int64_t month, int64_t day) {
    int64_t era, year_of_era, day_of_year, day_of_era;
    year -= month <= 2;
    era = floor_div(year, 400);
    year_of_era = year - era * 400;
    day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + day_of_era - 719468;
}

/* LocalDate.of and localDateToDays: -1 for fields that are not a date or a day beyond an int. */
static int checked_days(int64_t year, int64_t month, int64_t day, int64_t *days) {
    static const int lengths[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap, length;
    if (month < 1 || month > 12) return -1;
    leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    length = month == 2 && leap ? 29 : lengths[month - 1];
    if (day < 1 || day > length) return -1;
    *days = days_from_civil(year, month, day);
    return *days < INT32_LOW || *days > INT32_HIGH ? -1 : 0;
}

static SparkDatetime failed(void) {
    SparkDatetime r = {DT_FAILED, 0, 0, 0, 0};
    return r;
}

/* The text without its trimmed bytes, from *start to *end, past a leading sign (*sign: -1 for
 * '-', 1 for '+', 0 for none); 0 where nothing is left to parse. */
static int trim_sign(const uint8_t *text, int64_t length, int64_t *start, int64_t *end, int *sign) {
    *start = 0;
    *end = length;
    *sign = 0;
    while (*start < *end && trimmed_byte(text[*start])) (*start)++;
    while (*end > *start && trimmed_byte(text[*end - 1])) (*end)--;
    if (*start == *end) return 0;
    if (text[*start] == '+' || text[*start] == '-') *sign = text[(*start)++] == '-' ? -1 : 1;
    return 1;
}

static int date_digits_ok(int segment, int digits) {
    return segment == 0 ? digits >= 4 && digits <= 7 : digits > 0 && digits <= 2;
}

SparkDatetime spark_string_to_date(const uint8_t *text, int64_t length) {
    int64_t start, end, j, value = 0, days, segments[3] = {1, 1, 1};
    int i = 0, digits = 0, sign;
    SparkDatetime r = {DT_LOCAL, 0, 0, 0, 0};
    if (!trim_sign(text, length, &start, &end, &sign)) return failed();
    if (sign == 0) sign = 1;
    j = start;
    /* [+-]yyyy*, [+-]yyyy*-[m]m, [+-]yyyy*-[m]m-[d]d, the last followed by anything after ' ' or 'T' */
    while (j < end && i < 3 && text[j] != ' ' && text[j] != 'T') {
        uint8_t b = text[j];
        if (i < 2 && b == '-') {
            if (!date_digits_ok(i, digits)) return failed();
            segments[i++] = value;
            value = 0;
            digits = 0;
        } else if (b >= '0' && b <= '9') {
            if (digits < MAX_SEGMENT_DIGITS) value = value * 10 + (b - '0');
            digits++;
        } else {
            return failed();
        }
        j++;
    }
    if (!date_digits_ok(i, digits) || (i < 2 && j < end)) return failed();
    segments[i] = value;
    if (checked_days(sign * segments[0], segments[1], segments[2], &days) < 0) return failed();
    r.seconds = days;
    return r;
}

static int timestamp_digits_ok(int segment, int digits) {
    if (segment == 0) return digits >= 4 && digits <= 6;
    if (segment == 6) return 1;
    if (segment == 7) return digits <= 2;
    return digits > 0 && digits <= 2;
}

SparkDatetime spark_string_to_timestamp(const uint8_t *text, int64_t length, int ntz) {
    int64_t start, end, j, value = 0, days = 0, segments[8] = {1, 1, 1, 0, 0, 0, 0, 0};
    int i = 0, digits = 0, fraction_digits = 0, year_sign, just_time = 0, zoned = 0;
    SparkDatetime r = {DT_LOCAL, 0, 0, 0, 0};
    if (!trim_sign(text, length, &start, &end, &year_sign)) return failed();
    j = start;
#define CLOSE(segment)                                                   \
    do {                                                                 \
        if (!timestamp_digits_ok((segment), digits)) return failed();    \
        segments[(segment)] = value;                                     \
        value = 0;                                                       \
        digits = 0;                                                      \
    } while (0)
    for (; j < end; j++) {
        uint8_t b = text[j];
        if (b >= '0' && b <= '9') {
            if (i == 6) fraction_digits++;
            if ((i != 6 || digits < 6) && digits < MAX_SEGMENT_DIGITS) value = value * 10 + (b - '0');
            digits++;
        } else if (j == 0 && b == 'T') {  /* 'T' as the very first byte, before any trimming */
            just_time = 1;
            i += 3;
        } else if (i < 2) {
            if (b == '-') {
                CLOSE(i);
                i++;
            } else if (i == 0 && b == ':' && year_sign == 0) {
                just_time = 1;
                CLOSE(3);
                i = 4;
            } else {
                return failed();
            }
        } else if ((i == 2 && (b == ' ' || b == 'T')) || ((i == 3 || i == 4) && b == ':') || (i == 5 && b == '.')) {
            CLOSE(i);
            i++;
        } else if (i == 5 || i == 6) {
            CLOSE(i);
            i = 7;  /* the rest is the zone; a missing fraction stays 0 */
            zoned = 1;
            r.zone_start = j;
            r.zone_length = end - j;
            break;
        } else {
            return failed();
        }
    }
    CLOSE(i);
#undef CLOSE
    while (fraction_digits < 6) {
        segments[6] *= 10;
        fraction_digits++;
    }
    if (year_sign < 0) segments[0] = -segments[0];
    if (just_time && ntz) return failed();
    if (segments[3] > 23 || segments[4] > 59 || segments[5] > 59) return failed(); /* LocalTime.of */
    if (!just_time && checked_days(segments[0], segments[1], segments[2], &days) < 0) return failed();
    r.seconds = days * SECONDS_PER_DAY + segments[3] * 3600 + segments[4] * 60 + segments[5];
    r.micros = (int32_t)segments[6];
    r.status = just_time ? (zoned ? DT_TIME_ZONED : DT_TIME_ONLY) : (zoned ? DT_ZONED : DT_LOCAL);
    return r;
}
