/* Spark's approx_count_distinct (HyperLogLog++) over lists of xxhash64 values (codec/spark_hll.c). */
#ifndef VPUSH_SPARK_HLL_H
#define VPUSH_SPARK_HLL_H

#include <stdint.h>

enum { HLL_MIN_PRECISION = 4, HLL_MAX_PRECISION = 18 };

/* For each of `length` rows, Spark's estimate of the number of distinct values among the hashes
 * at hash_offset + starts[i] .. hash_offset + ends[i] - 1 of `hashes` (int64: Spark's xxhash64 of
 * each value, seed 42), skipping those whose bit in `validity` (NULL: none) is clear, with
 * `precision` bits of register index. Returns -1 for a precision outside 4..18 or no memory. */
int spark_hll_estimates(int precision, const int64_t *starts, const int64_t *ends, int64_t length, const uint8_t *hashes,
                        const uint8_t *validity, int64_t hash_offset, int64_t *out);

#endif
