/* Spark's conv(num, from_base, to_base) in C (NumberConverter.convert of Spark 4, under ANSI).
 *
 * The text (spaces trimmed) is read as an unsigned 64-bit number in from_base: a leading '-'
 * negates it, reading stops at the first character that is not a digit of the base (what came
 * before counts; nothing at all is 0), and a number past 2^64 - 1 is an overflow (Spark's
 * ARITHMETIC_OVERFLOW under ANSI), as is any digit read after the value passed 2^63 - 1.
 * It is printed in |to_base|, upper case: unsigned for a positive to_base (a negative number as
 * its two's complement, or -1 where it did not fit), signed for a negative one. NULL for a base
 * outside 2..36 and for an empty text.
 */
#include "spark_conv.h"

#include <string.h>

/* Character.digit of one byte (a byte of a multi-byte UTF-8 character is no digit) */
static int digit_of(uint8_t c, int radix) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : c >= 'A' && c <= 'Z' ? c - 'A' + 10 : -1;
    return d < radix ? d : -1;
}

int spark_conv(const uint8_t *text, int64_t length, int from_base, int to_base, uint8_t *out) {
    int negative = 0, radix = to_base < 0 ? -to_base : to_base, k = 0, i;
    int64_t start = 0, end = length;
    uint64_t v = 0, bound;
    uint8_t digits[64];
    if (from_base < 2 || from_base > 36 || radix < 2 || radix > 36) return SPARK_CONV_NULL;
    while (start < end && text[start] == ' ') start++;
    while (end > start && text[end - 1] == ' ') end--;
    if (start == end) return SPARK_CONV_NULL;
    if (text[start] == '-') negative = 1, start++;
    bound = (uint64_t)(-1 - (int64_t)from_base) / (uint64_t)from_base;
    for (; start < end; start++) {
        int d = digit_of(text[start], from_base);
        if (d < 0) break;
        if ((int64_t)v < 0) return SPARK_CONV_OVERFLOW;
        /* Spark compares v with the bound as signed longs, and the limit for this digit unsigned */
        if ((int64_t)v >= (int64_t)bound && (uint64_t)(-1 - (int64_t)d) / (uint64_t)from_base < v) return SPARK_CONV_OVERFLOW;
        v = v * (uint64_t)from_base + (uint64_t)d;
    }
    if (negative && to_base > 0) v = (int64_t)v < 0 ? (uint64_t)-1 : (uint64_t)(-(int64_t)v);
    if (to_base < 0 && (int64_t)v < 0) v = (uint64_t)(-(int64_t)v), negative = 1;
    do {
        int d = (int)(v % (uint64_t)radix);
        digits[k++] = (uint8_t)(d < 10 ? '0' + d : 'A' + d - 10);
        v /= (uint64_t)radix;
    } while (v != 0);
    i = 0;
    if (negative && to_base < 0) out[i++] = '-';
    while (k > 0) out[i++] = digits[--k];
    return i;
}
