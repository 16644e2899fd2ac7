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
 */
#include "spark_hash.h"

#include <string.h>

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint32_t read32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t read64(const uint8_t *p) { return (uint64_t)read32(p) | ((uint64_t)read32(p + 4) << 32); }

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

static inline int bit_set(const uint8_t *bitmap, int64_t i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }

int64_t spark_hash_column(int algorithm, int kind, const uint8_t *values, const uint8_t *offsets, const uint8_t *validity,
                          int64_t offset, const uint8_t *seeds, int64_t seed_offset, int64_t length, uint8_t *out,
                          uint8_t *out_validity) {
    int64_t i, nulls = 0;
    if (algorithm < HASH_MURMUR3 || algorithm > HASH_CRC32 || kind < HASH_INT32 || kind > HASH_INT128) return -1;
    if (algorithm == HASH_CRC32) {
        if (kind != HASH_BYTES32 && kind != HASH_BYTES64) return -1;
        if (!crc_ready) crc_init();
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
