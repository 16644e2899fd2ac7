/* Spark's hash functions in C, bit for bit: hash (Murmur3_x86_32, seed 42), xxhash64 (XXH64,
 * seed 42) and crc32 (java.util.zip.CRC32).
 *
 * Spark's HashExpression folds its arguments left to right: the running hash is the seed of the
 * next argument's hash, and a NULL argument leaves it as it is. Each argument is hashed by its
 * type: a boolean, byte, short, int or date as an int (hashInt), a long or timestamp as a long
 * (hashLong), a float or double by Float.floatToIntBits / Double.doubleToLongBits of the value
 * with -0.0 taken as 0.0 (and every NaN as the canonical NaN), a decimal of up to 18 digits as
 * its unscaled long, a longer one, a string (UTF-8) and a binary by their bytes (hashUnsafeBytes).
 *
 * Spark's Murmur3 of bytes is not the reference one: the bytes after the last whole 4-byte word
 * are mixed one at a time, each sign-extended to an int (Murmur3_x86_32.hashUnsafeBytes). Its
 * XXH64 is the reference algorithm, so hashInt and hashLong equal XXH64 of the 4 or 8 bytes in
 * little-endian order. Words are read little-endian, as Spark's Platform.getInt/getLong on the
 * little-endian machines it runs on.
 *
 * HASH_SCALA is not one of Spark's functions: it is Scala's `##` of the element CollectSet keeps
 * for a value in its mutable.HashSet, whose order is collect_set's answer (Spark 4's
 * CollectSet.convertToBufferElement): a double as the long Double.doubleToLongBits gives (NaN and
 * -0.0 normalized first), hashed as Scala hashes a long; a float as the int of its bits; a binary
 * as UnsafeArrayData.fromPrimitiveArray of its bytes (Murmur3 of the array's bytes, seed 42); a
 * decimal as Spark's Decimal, whose hashCode is scala.math.BigDecimal's.
 */
#include <stdio.h>
#include <stdlib.h>
#include "spark_hash.h"

#include <string.h>

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint32_t read32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t read64(const uint8_t *p) { return (uint64_t)read32(p) | ((uint64_t)read32(p + 4) << 32); }

static inline int bit_set(const uint8_t *bitmap, int64_t i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }

/* ---- Murmur3_x86_32 -------------------------------------------------------------------------- */
static const uint32_t M3_C1 = 0xcc9e2d51u;
static const uint32_t M3_C2 = 0x1b873593u;

static inline uint32_t m3_mix_k1(uint32_t k1) { return rotl32(k1 * M3_C1, 15) * M3_C2; }
static inline uint32_t m3_mix_h1(uint32_t h1, uint32_t k1) { return rotl32(h1 ^ k1, 13) * 5u + 0xe6546b64u; }

static inline uint32_t m3_fmix(uint32_t h1, uint32_t length) {
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    h1 ^= h1 >> 16;
    return h1;
}

static inline uint32_t m3_int(uint32_t value, uint32_t seed) { return m3_fmix(m3_mix_h1(seed, m3_mix_k1(value)), 4); }

static inline uint32_t m3_long(uint64_t value, uint32_t seed) {
    uint32_t h1 = m3_mix_h1(seed, m3_mix_k1((uint32_t)value));
    h1 = m3_mix_h1(h1, m3_mix_k1((uint32_t)(value >> 32)));
    return m3_fmix(h1, 8);
}

static uint32_t m3_bytes(const uint8_t *data, int64_t length, uint32_t seed) {
    int64_t aligned = length - length % 4, i;
    uint32_t h1 = seed;
    for (i = 0; i < aligned; i += 4) h1 = m3_mix_h1(h1, m3_mix_k1(read32(data + i)));
    for (i = aligned; i < length; i++) h1 = m3_mix_h1(h1, m3_mix_k1((uint32_t)(int32_t)(int8_t)data[i]));
    return m3_fmix(h1, (uint32_t)length);
}

/* ---- XXH64 ----------------------------------------------------------------------------------- */
static const uint64_t P64_1 = 0x9E3779B185EBCA87ull;
static const uint64_t P64_2 = 0xC2B2AE3D27D4EB4Full;
static const uint64_t P64_3 = 0x165667B19E3779F9ull;
static const uint64_t P64_4 = 0x85EBCA77C2B2AE63ull;
static const uint64_t P64_5 = 0x27D4EB2F165667C5ull;

static inline uint64_t xx_round(uint64_t acc, uint64_t input) { return rotl64(acc + input * P64_2, 31) * P64_1; }
static inline uint64_t xx_merge(uint64_t hash, uint64_t v) { return (hash ^ xx_round(0, v)) * P64_1 + P64_4; }

static inline uint64_t xx_fmix(uint64_t hash) {
    hash ^= hash >> 33;
    hash *= P64_2;
    hash ^= hash >> 29;
    hash *= P64_3;
    hash ^= hash >> 32;
    return hash;
}

static uint64_t xx_bytes(const uint8_t *data, int64_t length, uint64_t seed) {
    const uint8_t *p = data, *end = data + length;
    uint64_t hash;
    if (length >= 32) {
        const uint8_t *limit = end - 32;
        uint64_t v1 = seed + P64_1 + P64_2, v2 = seed + P64_2, v3 = seed, v4 = seed - P64_1;
        do {
            v1 = xx_round(v1, read64(p));
            v2 = xx_round(v2, read64(p + 8));
            v3 = xx_round(v3, read64(p + 16));
            v4 = xx_round(v4, read64(p + 24));
            p += 32;
        } while (p <= limit);
        hash = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        hash = xx_merge(hash, v1);
        hash = xx_merge(hash, v2);
        hash = xx_merge(hash, v3);
        hash = xx_merge(hash, v4);
    } else {
        hash = seed + P64_5;
    }
    hash += (uint64_t)length;
    while (p + 8 <= end) {
        hash ^= xx_round(0, read64(p));
        hash = rotl64(hash, 27) * P64_1 + P64_4;
        p += 8;
    }
    if (p + 4 <= end) {
        hash ^= (uint64_t)read32(p) * P64_1;
        hash = rotl64(hash, 23) * P64_2 + P64_3;
        p += 4;
    }
    while (p < end) {
        hash ^= (uint64_t)(*p) * P64_5;
        hash = rotl64(hash, 11) * P64_1;
        p++;
    }
    return xx_fmix(hash);
}

static inline uint64_t xx_int(uint32_t value, uint64_t seed) {
    uint8_t bytes[4];
    bytes[0] = (uint8_t)value, bytes[1] = (uint8_t)(value >> 8), bytes[2] = (uint8_t)(value >> 16), bytes[3] = (uint8_t)(value >> 24);
    return xx_bytes(bytes, 4, seed);
}

static inline uint64_t xx_long(uint64_t value, uint64_t seed) {
    uint8_t bytes[8];
    int k;
    for (k = 0; k < 8; k++) bytes[k] = (uint8_t)(value >> (8 * k));
    return xx_bytes(bytes, 8, seed);
}

/* ---- CRC-32 (zlib's polynomial, reflected) --------------------------------------------------- */
static uint32_t crc_table[256];
static int crc_ready = 0;

static void crc_init(void) {
    uint32_t n, c;
    int k;
    for (n = 0; n < 256; n++) {
        c = n;
        for (k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
    crc_ready = 1;
}

static uint32_t crc32_bytes(const uint8_t *data, int64_t length) {
    uint32_t c = 0xFFFFFFFFu;
    int64_t i;
    for (i = 0; i < length; i++) c = crc_table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* ---- a value's bits or bytes, as Spark hashes it ----------------------------------------------- */
static inline uint32_t float_bits(float f) {
    uint32_t bits;
    if (f == 0.0f) return 0; /* -0.0 as 0.0 */
    if (f != f) return 0x7fc00000u; /* Float.floatToIntBits: the canonical NaN */
    memcpy(&bits, &f, 4);
    return bits;
}

static inline uint64_t double_bits(double d) {
    uint64_t bits;
    if (d == 0.0) return 0;
    if (d != d) return 0x7ff8000000000000ull;
    memcpy(&bits, &d, 8);
    return bits;
}

/* BigInteger.toByteArray of a 128-bit two's complement value (16 bytes, little-endian): big-endian,
 * with as few bytes as keep the sign (at least one). Returns the count written to out. */
static int big_integer_bytes(const uint8_t *le, uint8_t *out) {
    uint8_t be[16];
    int k, start = 0;
    for (k = 0; k < 16; k++) be[k] = le[15 - k];
    while (start < 15 && ((be[start] == 0x00 && !(be[start + 1] & 0x80)) || (be[start] == 0xFF && (be[start + 1] & 0x80)))) start++;
    memcpy(out, be + start, (size_t)(16 - start));
    return 16 - start;
}

/* ---- Scala's ## (scala.runtime.Statics, scala.math.BigDecimal) ------------------------------- */
/* Statics.longHash: a long within an int's range is its own hash, else Long.hashCode. */
static inline int32_t scala_long_hash(int64_t v) {
    return v == (int64_t)(int32_t)v ? (int32_t)v : (int32_t)(uint32_t)((uint64_t)v ^ ((uint64_t)v >> 32));
}

/* Java's (int) and (long) of a double: NaN as 0, saturated at the type's bounds. */
static inline int32_t java_d2i(double d) {
    if (d != d) return 0;
    if (d >= 2147483647.0) return INT32_MAX;
    if (d <= -2147483648.0) return INT32_MIN;
    return (int32_t)d;
}

static inline int64_t java_d2l(double d) {
    if (d != d) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}

/* Statics.doubleHash: a whole double as its int or long, one a float holds as the float's bits
 * (Float.hashCode), else Double.hashCode (Double.doubleToLongBits's halves xor'ed). */
static int32_t scala_double_hash(double d) {
    int32_t iv = java_d2i(d);
    int64_t lv;
    float fv;
    uint64_t bits;
    if ((double)iv == d) return iv;
    lv = java_d2l(d);
    if ((double)lv == d) return (int32_t)(uint32_t)((uint64_t)lv ^ ((uint64_t)lv >> 32));
    fv = (float)d;
    if ((double)fv == d) {
        uint32_t fbits;
        if (fv != fv) return 0x7fc00000;
        memcpy(&fbits, &fv, 4);
        return (int32_t)fbits;
    }
    if (d != d) bits = 0x7ff8000000000000ull;
    else memcpy(&bits, &d, 8);
    return (int32_t)(uint32_t)(bits ^ (bits >> 32));
}

/* java.math.BigInteger.hashCode of negative ? -magnitude : magnitude: its 32-bit words, most
 * significant first, folded by 31 * h + word, times the signum. */
static int32_t big_integer_hash(unsigned __int128 magnitude, int negative) {
    uint32_t h = 0;
    int k, started = 0;
    for (k = 3; k >= 0; k--) {
        uint32_t word = (uint32_t)(magnitude >> (32 * k));
        if (!started && word == 0) continue;
        started = 1;
        h = 31u * h + word;
    }
    return (int32_t)(negative ? 0u - h : h);
}

/* scala.math.BigDecimal.hashCode of unscaled * 10^-scale (Spark's Decimal.hashCode): a whole
 * number as its BigInt (a long's hash within a long's range, else BigInteger.hashCode); else, if
 * Double.toString of the nearest double is the same number (isDecimalDouble), the double's hash;
 * else MurmurHash3.mixLast of the BigInteger hash of the unscaled value without trailing zeros
 * and that value's scale. */
static int32_t scala_decimal_hash(__int128 unscaled, int32_t scale) {
    int negative = unscaled < 0;
    unsigned __int128 magnitude = negative ? (unsigned __int128)0 - (unsigned __int128)unscaled : (unsigned __int128)unscaled;
    char digits[48], text[48], number[64], java[48];
    int nd = 0, k, e, java_nd = 0, java_e = 0, point = -1, exponent = 0, leading = 0, seen = 0, length;
    double d;
    uint64_t bits;
    if (magnitude == 0) return 0;
    while (scale > 0 && magnitude % 10 == 0) magnitude /= 10, scale--;
    if (scale <= 0) {
        unsigned __int128 whole = magnitude;
        for (k = 0; k < -scale; k++) whole *= 10; /* (Spark's scales are never negative) */
        if (whole <= (unsigned __int128)INT64_MAX || (negative && whole == (unsigned __int128)INT64_MAX + 1))
            return scala_long_hash(negative ? (int64_t)(0 - (uint64_t)whole) : (int64_t)whole);
        return big_integer_hash(whole, negative);
    }
    for (unsigned __int128 m = magnitude; m > 0; m /= 10) digits[nd++] = (char)('0' + (int)(m % 10));
    for (k = 0; k < nd / 2; k++) {
        char t = digits[k];
        digits[k] = digits[nd - 1 - k], digits[nd - 1 - k] = t;
    }
    e = nd - scale; /* the value is 0.digits * 10^e */
    snprintf(number, sizeof number, "%s%.*se-%d", negative ? "-" : "", nd, digits, (int)scale);
    d = strtod(number, NULL); /* correctly rounded, as BigDecimal.doubleValue */
    memcpy(&bits, &d, 8);
    length = format_java_double(text, bits);
    /* Java's text as 0.D * 10^java_e, D without leading or trailing zeros */
    for (k = 0; k < length; k++) {
        char c = text[k];
        if (c == '.') {
            point = seen;
        } else if (c == 'E') {
            exponent = atoi(text + k + 1);
            break;
        } else if (c >= '0' && c <= '9') {
            if (c == '0' && java_nd == 0) {
                leading++;
            } else {
                if (java_nd >= (int)sizeof java) break; /* unreachable: Java prints at most 17 digits */
                java[java_nd++] = c;
            }
            seen++;
        }
    }
    while (java_nd > 0 && java[java_nd - 1] == '0') java_nd--;
    java_e = (point < 0 ? seen : point) - leading + exponent;
    if (!isinf(d) && java_nd == nd && java_e == e && memcmp(java, digits, (size_t)nd) == 0)
        return scala_double_hash(d);
    return (int32_t)((uint32_t)big_integer_hash(magnitude, negative) ^ m3_mix_k1((uint32_t)scale));
}

/* The hash of UnsafeArrayData.fromPrimitiveArray(bytes): Murmur3 (seed 42) of the array's bytes,
 * the element count as a long, a zero null bit per element in whole words, then the bytes padded
 * with zeros to a whole word. */
static int32_t unsafe_bytes_hash(const uint8_t *data, int64_t size) {
    int64_t null_words = (size + 63) / 64, padded = (size + 7) / 8 * 8, i;
    uint32_t h = 42;
    h = m3_mix_h1(h, m3_mix_k1((uint32_t)(uint64_t)size));
    h = m3_mix_h1(h, m3_mix_k1((uint32_t)((uint64_t)size >> 32)));
    for (i = 0; i < 2 * null_words; i++) h = m3_mix_h1(h, m3_mix_k1(0));
    for (i = 0; i < padded; i += 4) {
        uint8_t word[4] = {0, 0, 0, 0};
        int64_t n = size - i < 4 ? (size - i > 0 ? size - i : 0) : 4;
        memcpy(word, data + i, (size_t)n);
        h = m3_mix_h1(h, m3_mix_k1(read32(word)));
    }
    return (int32_t)m3_fmix(h, (uint32_t)(8 + 8 * null_words + padded));
}

/* Scala's ## of CollectSet's element for the value at `row` (data/size: a binary's bytes). */
static int32_t scala_hash(int kind, const uint8_t *values, int64_t row, const uint8_t *data, int64_t size, int32_t scale) {
    if (kind == HASH_FLOAT32) {
        float f;
        memcpy(&f, values + 4 * row, 4);
        return (int32_t)float_bits(f);
    }
    if (kind == HASH_FLOAT64) {
        double d;
        memcpy(&d, values + 8 * row, 8);
        return scala_long_hash((int64_t)double_bits(d));
    }
    if (kind == HASH_INT64) return scala_decimal_hash((__int128)(int64_t)read64(values + 8 * row), scale);
    if (kind == HASH_INT128) {
        __int128 v = (__int128)((unsigned __int128)read64(values + 16 * row + 8) << 64 | read64(values + 16 * row));
        return scala_decimal_hash(v, scale);
    }
    if (kind == HASH_INT32) return (int32_t)read32(values + 4 * row);
    return unsafe_bytes_hash(data, size);
}

/* The number a row of a numeric column is hashed as, in *word: 4 (an int: hashInt) or 8 (a long:
 * hashLong), floats and doubles by their bits */
static inline int number_word(int kind, const uint8_t *values, int64_t row, uint64_t *word) {
    if (kind == HASH_INT32) {
        *word = read32(values + 4 * row);
        return 4;
    }
    if (kind == HASH_FLOAT32) {
        float f;
        memcpy(&f, values + 4 * row, 4);
        *word = float_bits(f);
        return 4;
    }
    if (kind == HASH_FLOAT64) {
        double d;
        memcpy(&d, values + 8 * row, 8);
        *word = double_bits(d);
        return 8;
    }
    *word = read64(values + 8 * row);
    return 8;
}


int64_t spark_hash_column(int algorithm, int kind, const uint8_t *values, const uint8_t *offsets, const uint8_t *validity,
                          int64_t offset, const uint8_t *seeds, int64_t seed_offset, int64_t length, uint8_t *out,
                          uint8_t *out_validity) {
    int64_t i, nulls = 0;
    if (algorithm < HASH_MURMUR3 || algorithm > HASH_SCALA || kind < HASH_INT32 || kind > HASH_INT128) return -1;
    if (algorithm == HASH_CRC32 || algorithm == HASH_SCALA) {
        if (algorithm == HASH_CRC32 && kind != HASH_BYTES32 && kind != HASH_BYTES64) return -1;
        if (algorithm == HASH_CRC32 && !crc_ready) crc_init();
        memset(out_validity, 0, (size_t)((length + 7) / 8));
    }
    for (i = 0; i < length; i++) {
        int64_t row = offset + i;
        const uint8_t *data = NULL;
        int64_t size = 0;
        uint8_t big[16];
        if (validity != NULL && !bit_set(validity, row)) {
            if (algorithm == HASH_CRC32) {
                ((int64_t *)out)[i] = 0;
                nulls++;
            } else if (algorithm == HASH_SCALA) {
                memset(out + 4 * i, 0, 4);
                nulls++;
            } else if (algorithm == HASH_MURMUR3) {
                memcpy(out + 4 * i, seeds + 4 * (seed_offset + i), 4);
            } else {
                memcpy(out + 8 * i, seeds + 8 * (seed_offset + i), 8);
            }
            continue;
        }
        if (kind == HASH_BYTES32) {
            int32_t from, to;
            memcpy(&from, offsets + 4 * row, 4);
            memcpy(&to, offsets + 4 * (row + 1), 4);
            data = values + from, size = to - from;
        } else if (kind == HASH_BYTES64) {
            int64_t from, to;
            memcpy(&from, offsets + 8 * row, 8);
            memcpy(&to, offsets + 8 * (row + 1), 8);
            data = values + from, size = to - from;
        } else if (kind == HASH_INT128) {
            size = big_integer_bytes(values + 16 * row, big);
            data = big;
        }
        if (algorithm == HASH_CRC32) {
            ((int64_t *)out)[i] = (int64_t)crc32_bytes(data, size);
            out_validity[i >> 3] |= (uint8_t)(1u << (i & 7));
        } else if (algorithm == HASH_SCALA) {
            int32_t scale = 0, h;
            if (kind == HASH_INT64 || kind == HASH_INT128) memcpy(&scale, seeds + 4 * (seed_offset + i), 4);
            h = scala_hash(kind, values, row, data, size, scale);
            memcpy(out + 4 * i, &h, 4);
            out_validity[i >> 3] |= (uint8_t)(1u << (i & 7));
        } else {
            uint64_t word = 0;
            int width = data != NULL ? 0 : number_word(kind, values, row, &word);
            if (algorithm == HASH_MURMUR3) {
                uint32_t seed, h;
                memcpy(&seed, seeds + 4 * (seed_offset + i), 4);
                h = width == 4 ? m3_int((uint32_t)word, seed) : width == 8 ? m3_long(word, seed) : m3_bytes(data, size, seed);
                memcpy(out + 4 * i, &h, 4);
            } else {
                uint64_t seed, h;
                memcpy(&seed, seeds + 8 * (seed_offset + i), 8);
                h = width == 4 ? xx_int((uint32_t)word, seed) : width == 8 ? xx_long(word, seed) : xx_bytes(data, size, seed);
                memcpy(out + 8 * i, &h, 8);
            }
        }
    }
    return nulls;
}

/* ---- one value at a time, for the nested walks of codec/_native.c ---------------------------- */
uint64_t spark_hash_value(int algorithm, int width, uint64_t word, const uint8_t *data, int64_t size, uint64_t seed) {
    if (algorithm == HASH_MURMUR3) {
        uint32_t s = (uint32_t)seed;
        return width == 4 ? m3_int((uint32_t)word, s) : width == 8 ? m3_long(word, s) : m3_bytes(data, size, s);
    }
    return width == 4 ? xx_int((uint32_t)word, seed) : width == 8 ? xx_long(word, seed) : xx_bytes(data, size, seed);
}

uint32_t spark_float_bits(float f) { return float_bits(f); }

uint64_t spark_double_bits(double d) { return double_bits(d); }

int spark_big_integer_bytes(const uint8_t *le, uint8_t *out) { return big_integer_bytes(le, out); }

int32_t spark_unsafe_hash(const uint8_t *bytes, int64_t size) { return (int32_t)m3_bytes(bytes, size, 42); }
