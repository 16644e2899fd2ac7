/* Spark's parsing of a string by a datetime pattern, one string at a time, as the java.time
 * DateTimeFormatter Spark 4 builds for it parses (DateTimeFormatterHelper: parseCaseInsensitive,
 * ResolverStyle.STRICT, ISO chronology, Locale.US, fractions of 1 to n digits), then resolves
 * the fields as Spark's toLocalDate / toLocalTime do (missing fields default: year 1970, month
 * and day 1, hour 0 or 12 for a bare PM).
 *
 * The number steps follow java.time's NumberPrinterParser in strict mode, adjacent value parsing
 * included: a variable-width number followed directly by fixed-width ones ("yyyyMMdd") first reads
 * every digit it can, then gives the fixed-width ones their share. The program comes from
 * vpush/codec/datetime_pattern.py, which refuses the letters and forms this file does not follow. */
#include "spark_datetime_format.h"

#include <string.h>

#define MAX_JAVA_YEAR 999999999LL
#define MAX_OFFSET_SECONDS (18LL * 3600)
/* Beyond this many digits java.time switches to a BigInteger; no field takes such a value. */
#define MAX_LONG_DIGITS 18

static const char *const MONTHS_SHORT[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const MONTHS_FULL[12] = {"January", "February", "March",     "April",   "May",      "June",
                                            "July",    "August",   "September", "October", "November", "December"};
static const char *const AMPM[2] = {"AM", "PM"};

static int64_t floor_div64(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t civil_days(int64_t year, int64_t month, int64_t day) {
    int64_t era, year_of_era, day_of_year, day_of_era;
    year -= month <= 2;
    era = floor_div64(year, 400);
    year_of_era = year - era * 400;
    day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + day_of_era - 719468;
}

static int is_leap(int64_t year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

static int lower_ascii(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* The bytes at text[pos] equal the ASCII character c as Java's parseCaseInsensitive compares
 * chars (equal upper or lower cases): the count of bytes matched, 0 for none. Besides ASCII case,
 * four other characters fold onto ASCII letters: U+017F (to 'S'), U+0131 (to 'I'), U+0130 (to 'i')
 * and U+212A, the Kelvin sign (to 'k'). */
static int char_matches(const uint8_t *text, int64_t length, int64_t pos, int c) {
    int lc = lower_ascii(c);
    uint8_t b = text[pos];
    if (b < 0x80) return lower_ascii(b) == lc ? 1 : 0;
    if (pos + 1 < length) {
        uint8_t b1 = text[pos + 1];
        if (b == 0xC5 && b1 == 0xBF && lc == 's') return 2;
        if (b == 0xC4 && (b1 == 0xB1 || b1 == 0xB0) && lc == 'i') return 2;
    }
    if (pos + 2 < length && b == 0xE2 && text[pos + 1] == 0x84 && text[pos + 2] == 0xAA && lc == 'k') return 3;
    return 0;
}

/* The end of `word` matched at pos, or -1. */
static int64_t match_word(const uint8_t *text, int64_t length, int64_t pos, const char *word, int64_t size) {
    int64_t k;
    for (k = 0; k < size; k++) {
        int used;
        if (pos >= length) return -1;
        used = char_matches(text, length, pos, (unsigned char)word[k]);
        if (used == 0) return -1;
        pos += used;
    }
    return pos;
}

/* SignStyle.parse in strict mode. */
static int sign_allowed(int style, int positive) {
    if (style == SIGN_NORMAL) return !positive;
    if (style == SIGN_ALWAYS || style == SIGN_EXCEEDS_PAD) return 1;
    return 0;
}

static int is_digit(uint8_t b) { return b >= '0' && b <= '9'; }

/* NumberPrinterParser.parse (strict): the end of the number, or -1; *value, *too_long. */
static int64_t parse_number(const FormatStep *step, const uint8_t *text, int64_t length, int64_t position,
                            int64_t *value, int *too_long) {
    int64_t min_width = step->a, max_width = step->b, subsequent = step->d, total = 0, pos, eff_max, start;
    int style = step->c, negative = 0, positive = 0, pass;
    *too_long = 0;
    if (position == length) return -1;
    if (text[position] == '+') {
        if (!sign_allowed(style, 1)) return -1;
        positive = 1;
        position++;
    } else if (text[position] == '-') {
        if (!sign_allowed(style, 0)) return -1;
        negative = 1;
        position++;
    }
    start = position;
    if (position + min_width > length) return -1;
    eff_max = max_width + (subsequent > 0 ? subsequent : 0);
    pos = position;
    for (pass = 0; pass < 2; pass++) {
        int64_t max_end = pos + eff_max < length ? pos + eff_max : length;
        while (pos < max_end) {
            if (!is_digit(text[pos])) {
                if (pos < start + min_width) return -1;
                break;
            }
            if (pos - start >= MAX_LONG_DIGITS) *too_long = 1;
            else total = total * 10 + (text[pos] - '0');
            pos++;
        }
        if (subsequent > 0 && pass == 0) {
            int64_t parsed = pos - start;
            eff_max = parsed - subsequent > min_width ? parsed - subsequent : min_width;
            pos = start;
            total = 0;
            *too_long = 0;
        } else {
            break;
        }
    }
    if (negative) {
        if (total == 0 && !*too_long) return -1;  /* "-0" */
        total = -total;
    } else if (style == SIGN_EXCEEDS_PAD) {
        int64_t parsed = pos - start;
        if (positive ? parsed <= min_width : parsed > min_width) return -1;
    }
    *value = total;
    return pos;
}

/* FractionPrinterParser.parse (strict, no decimal point): nanoseconds, from min to max digits
 * (Spark 4.3 measured: a fraction with no digit before an offset fails). */
static int64_t parse_fraction(const FormatStep *step, const uint8_t *text, int64_t length, int64_t position,
                              int64_t *nanos) {
    int64_t min_end = position + step->a, max_end, pos = position, total = 0, digits, scale;
    if (min_end > length) return -1;
    max_end = position + step->b < length ? position + step->b : length;
    while (pos < max_end) {
        uint8_t b = text[pos++];
        if (!is_digit(b)) {
            pos--;
            break;
        }
        total = total * 10 + (b - '0');
    }
    if (pos < min_end) return -1;
    digits = pos - position;
    for (scale = digits; scale < 9; scale++) total *= 10;
    *nanos = total;
    return pos;
}

static int64_t parse_text(const FormatStep *step, const uint8_t *text, int64_t length, int64_t position,
                          int64_t *value) {
    const char *const *words = step->a == TEXT_MONTH_SHORT ? MONTHS_SHORT : step->a == TEXT_MONTH_FULL ? MONTHS_FULL : AMPM;
    int count = step->a == TEXT_AMPM ? 2 : 12, k, best = -1;
    int64_t best_end = -1, best_size = -1;
    /* java.time tries the longest text first; every text of a style differs, so the longest match wins */
    for (k = 0; k < count; k++) {
        int64_t size = (int64_t)strlen(words[k]), end = match_word(text, length, position, words[k], size);
        if (end >= 0 && size > best_size) {
            best = k;
            best_end = end;
            best_size = size;
        }
    }
    if (best < 0) return -1;
    *value = step->a == TEXT_AMPM ? best : best + 1;
    return best_end;
}

/* Two digits, 0 to 59 (OffsetIdPrinterParser.parseDigits), after a colon where asked. */
static int64_t offset_digits(const uint8_t *text, int64_t length, int64_t pos, int colon, int64_t *value) {
    if (colon) {
        if (pos + 1 > length || text[pos] != ':') return -1;
        pos++;
    }
    if (pos + 2 > length || !is_digit(text[pos]) || !is_digit(text[pos + 1])) return -1;
    *value = (text[pos] - '0') * 10 + (text[pos + 1] - '0');
    if (*value > 59) return -1;
    return pos + 2;
}

static int64_t parse_offset(const FormatStep *step, const uint8_t *text, int64_t length, int64_t position,
                            int64_t *seconds, int *out_of_range) {
    int64_t hours = 0, minutes = 0, pos, after;
    int negative;
    *out_of_range = 0;
    if (position == length) return -1;
    if (step->b == NO_OFFSET_Z) {
        if (char_matches(text, length, position, 'Z') == 1) {
            *seconds = 0;
            return position + 1;
        }
    } else {
        int64_t end = match_word(text, length, position, "+0000", 5);
        if (end >= 0) {
            *seconds = 0;
            return end;
        }
    }
    if (text[position] != '+' && text[position] != '-') return -1;
    negative = text[position] == '-';
    pos = offset_digits(text, length, position + 1, 0, &hours);
    if (pos < 0) return -1;
    after = offset_digits(text, length, pos, step->a == OFFSET_HH_COLON_MM, &minutes);
    if (after < 0) {
        if (step->a != OFFSET_HH_MM_OPTIONAL) return -1;
        minutes = 0;
    } else {
        pos = after;
    }
    if (hours > 23) *out_of_range = 1;  /* java.time raises: "Value out of range: Hour[0-23]" */
    *seconds = (negative ? -1 : 1) * (hours * 3600 + minutes * 60);
    return pos;
}

static FormattedDatetime failed_row(void) {
    FormattedDatetime r = {FMT_ROW_FAILED, 0, 0, 0};
    return r;
}

FormattedDatetime spark_parse_formatted(const FormatStep *steps, int64_t count, const uint8_t *literals,
                                        const uint8_t *text, int64_t length) {
    static const int lengths[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t values[FMT_FIELDS], pos = 0, k, year, days, hour;
    int present[FMT_FIELDS] = {0};
    FormattedDatetime r = {FMT_ROW_LOCAL, 0, 0, 0};
    for (k = 0; k < count; k++) {
        const FormatStep *step = &steps[k];
        int64_t value = 0, end = -1;
        int too_long = 0, bad = 0;
        switch (step->kind) {
            case FMT_VALUE:
                end = parse_number(step, text, length, pos, &value, &too_long);
                bad = too_long;
                break;
            case FMT_REDUCED:
                end = parse_number(step, text, length, pos, &value, &too_long);
                if (end >= 0 && end - pos == 2) value += 2000;  /* ReducedPrinterParser, base 2000 */
                break;
            case FMT_FRACTION:
                end = parse_fraction(step, text, length, pos, &value);
                break;
            case FMT_TEXT:
                end = parse_text(step, text, length, pos, &value);
                break;
            case FMT_LITERAL:
                end = match_word(text, length, pos, (const char *)literals + step->a, step->b);
                break;
            case FMT_OFFSET:
                end = parse_offset(step, text, length, pos, &value, &bad);
                break;
            default:
                return failed_row();
        }
        if (end < 0 || bad) return failed_row();
        pos = end;
        if (step->kind != FMT_LITERAL) {
            values[step->field] = value;
            present[step->field] = 1;
        }
    }
    if (pos != length) return failed_row();  /* "unparsed text found" */
    /* ResolverStyle.STRICT: each field within its range */
    if (present[FMT_YEAR] && (values[FMT_YEAR] < -MAX_JAVA_YEAR || values[FMT_YEAR] > MAX_JAVA_YEAR)) return failed_row();
    if (present[FMT_MONTH] && (values[FMT_MONTH] < 1 || values[FMT_MONTH] > 12)) return failed_row();
    if (present[FMT_DAY] && (values[FMT_DAY] < 1 || values[FMT_DAY] > 31)) return failed_row();
    if (present[FMT_DAY_OF_YEAR] && (values[FMT_DAY_OF_YEAR] < 1 || values[FMT_DAY_OF_YEAR] > 366)) return failed_row();
    if (present[FMT_HOUR] && (values[FMT_HOUR] < 0 || values[FMT_HOUR] > 23)) return failed_row();
    if (present[FMT_CLOCK_HOUR_AMPM] && (values[FMT_CLOCK_HOUR_AMPM] < 1 || values[FMT_CLOCK_HOUR_AMPM] > 12))
        return failed_row();
    if (present[FMT_MINUTE] && (values[FMT_MINUTE] < 0 || values[FMT_MINUTE] > 59)) return failed_row();
    if (present[FMT_SECOND] && (values[FMT_SECOND] < 0 || values[FMT_SECOND] > 59)) return failed_row();
    /* ZoneOffset.ofTotalSeconds: at most 18 hours either way */
    if (present[FMT_OFFSET_SECONDS] && (values[FMT_OFFSET_SECONDS] < -MAX_OFFSET_SECONDS || values[FMT_OFFSET_SECONDS] > MAX_OFFSET_SECONDS))
        return failed_row();
    /* the date: LocalDate.of / ofYearDay, the year 1970 and month and day 1 where not written */
    year = present[FMT_YEAR] ? values[FMT_YEAR] : 1970;
    if (present[FMT_DAY_OF_YEAR]) {
        if (values[FMT_DAY_OF_YEAR] == 366 && !is_leap(year)) return failed_row();
        days = civil_days(year, 1, 1) + values[FMT_DAY_OF_YEAR] - 1;
    } else {
        int64_t month = present[FMT_MONTH] ? values[FMT_MONTH] : 1, day = present[FMT_DAY] ? values[FMT_DAY] : 1;
        int64_t last = month == 2 && is_leap(year) ? 29 : lengths[month - 1];
        if (day > last) return failed_row();
        days = civil_days(year, month, day);
    }
    /* the time: Spark's toLocalTime (a clock hour without AM/PM is AM; PM alone is noon) */
    if (present[FMT_HOUR]) {
        hour = values[FMT_HOUR];
    } else if (present[FMT_CLOCK_HOUR_AMPM]) {
        hour = values[FMT_CLOCK_HOUR_AMPM] % 12 + (present[FMT_AMPM] ? values[FMT_AMPM] * 12 : 0);
    } else {
        hour = present[FMT_AMPM] && values[FMT_AMPM] == 1 ? 12 : 0;
    }
    r.local_seconds = days * 86400 + hour * 3600 + (present[FMT_MINUTE] ? values[FMT_MINUTE] * 60 : 0) +
                      (present[FMT_SECOND] ? values[FMT_SECOND] : 0);
    r.micros = present[FMT_NANO] ? (int32_t)(values[FMT_NANO] / 1000) : 0;
    if (present[FMT_OFFSET_SECONDS]) {
        r.status = FMT_ROW_OFFSET;
        r.offset_seconds = (int32_t)values[FMT_OFFSET_SECONDS];
    }
    return r;
}
