/* Spark's hash, xxhash64 and crc32 over Arrow columns (codec/spark_hash.c). */
#ifndef VPUSH_SPARK_HASH_H
#define VPUSH_SPARK_HASH_H

#include <stdint.h>

/* HASH_SCALA: Scala's `##` of the element Spark's collect_set holds for the value (CollectSet
 * keeps a double as the long of its bits, a float as the int of its bits, a binary as an
 * UnsafeArrayData of its bytes, a decimal as Spark's Decimal), for its HashSet's order. */
enum { HASH_MURMUR3 = 0, HASH_XXHASH64 = 1, HASH_CRC32 = 2, HASH_SCALA = 3 };

/* What the values buffer holds: Spark hashes an int of 4 bytes and a long of 8 as numbers, a float
 * and a double by their bits (-0.0 as 0.0), and a string, a binary and a decimal of more than 18
 * digits (BigInteger.toByteArray of its unscaled 128-bit value) as bytes. */
enum { HASH_INT32 = 0, HASH_INT64 = 1, HASH_FLOAT32 = 2, HASH_FLOAT64 = 3, HASH_BYTES32 = 4, HASH_BYTES64 = 5, HASH_INT128 = 6 };

/* One step of Spark's hash chain over `length` rows from `offset`: out[i] = hash(value[i], seed[i])
 * (int32 seeds and results for murmur3, int64 for xxhash64), or seed[i] where the value is NULL
 * (Spark skips a NULL argument). For crc32, out[i] is the CRC-32 of the bytes (int64; seeds unused)
 * and NULL where the value is; out_validity gets the bits and the return value counts the NULLs.
 * HASH_SCALA answers as crc32 does, out[i] an int32; its seeds are the int32 scales of decimals
 * (HASH_INT64 and HASH_INT128: unscaled values), unused for the other kinds.
 * offsets: the offsets buffer of a HASH_BYTES column (else NULL); validity NULL: no NULLs.
 * Returns -1 for an unknown algorithm or kind. */
int64_t spark_hash_column(int algorithm, int kind, const uint8_t *values, const uint8_t *offsets, const uint8_t *validity,
                          int64_t offset, const uint8_t *seeds, int64_t seed_offset, int64_t length, uint8_t *out,
                          uint8_t *out_validity);

/* Spark's hash (HASH_MURMUR3: an int seed and result in the low 32 bits) or xxhash64 of one value,
 * as HashExpression.computeHash hashes an atom: width 4, the int `word` (hashInt); 8, the long
 * `word` (hashLong); 0, the `size` bytes at `data` (hashUnsafeBytes). */
uint64_t spark_hash_value(int algorithm, int width, uint64_t word, const uint8_t *data, int64_t size, uint64_t seed);

/* A float's and a double's bits as Spark hashes and writes them: -0.0 as 0.0, every NaN as Java's. */
uint32_t spark_float_bits(float f);
uint64_t spark_double_bits(double d);

/* BigInteger.toByteArray of a 16-byte little-endian two's complement value into out (16 bytes):
 * the count written. */
int spark_big_integer_bytes(const uint8_t *le, uint8_t *out);

/* The hashCode of an UnsafeRow or UnsafeArrayData of `size` bytes (a whole count of words):
 * Murmur3_x86_32 with seed 42. */
int32_t spark_unsafe_hash(const uint8_t *bytes, int64_t size);

/* Java 17's Double.toString of the double with these bits (codec/_native.c). */
int format_java_double(char *out, uint64_t bits);

#endif
