/* Spark's approx_count_distinct in C: HyperLogLog++ (Heule, Nunkesser and Hall, 2013) as Spark's
 * HyperLogLogPlusPlusHelper computes it, bit for bit.
 *
 * Each value's 64-bit hash x (xxhash64 with seed 42, computed before: codec/spark_hash.c) picks
 * register x >>> (64 - p) and offers it the number of leading zeros of (x << p) | 2^(p-1), plus
 * one; a register keeps the most it is offered. The estimate folds the registers in index order:
 * zInverse = sum of 2^-M (exact), V = the registers still 0, E = alpha * m^2 / zInverse with
 * Spark's alpha for p (and its order of products). Linear counting H = m * ln(m / V) answers when
 * some register is 0 and H is at most the threshold for p, or E is at most 2.5 m; otherwise E less
 * the bias interpolated from the six raw estimates nearest E (found from Java's binary search
 * over a table that is not quite sorted, so its path matters) where E < 5 m, else E. Java's
 * Math.round gives the answer (halves up).
 */
#include "spark_hll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spark_hll_tables.h"

enum { HLL_NEIGHBOURS = 6 }; /* Spark's K */

/* java.util.Arrays.binarySearch(double[], key) for a key that is a number: the index of an equal
 * element, else -(insertion point) - 1, by Java's exact sequence of probes. */
static int java_binary_search(const double *values, int length, double key) {
    int low = 0, high = length - 1;
    while (low <= high) {
        int mid = (int)((unsigned)(low + high) >> 1);
        double value = values[mid];
        if (value < key) {
            low = mid + 1;
        } else if (value > key) {
            high = mid - 1;
        } else {
            return mid; /* neither is NaN or a signed zero here: equal bits */
        }
    }
    return -(low + 1);
}

static double estimate_bias(int precision, double e) {
    const double *estimates = HLL_RAW_ESTIMATES[precision - 4], *biases = HLL_BIASES[precision - 4];
    int count = HLL_TABLE_LENGTHS[precision - 4];
    int nearest = java_binary_search(estimates, count, e), low, high, i;
    double sum = 0.0;
    if (nearest < 0) nearest = -(nearest + 1);
    low = nearest - HLL_NEIGHBOURS + 1 > 0 ? nearest - HLL_NEIGHBOURS + 1 : 0;
    high = low + HLL_NEIGHBOURS < count ? low + HLL_NEIGHBOURS : count;
    while (high < count) {
        double above = e - estimates[high], below = e - estimates[low];
        if (!(above * above < below * below)) break;
        low++;
        high++;
    }
    for (i = low; i < high; i++) sum += biases[i];
    return sum / (double)(high - low);
}

/* Java's Math.round of a finite double that is not negative: the nearest long, halves up. */
static int64_t java_round(double x) {
    double whole = floor(x);
    return (int64_t)(x - whole >= 0.5 ? whole + 1.0 : whole);
}

static int64_t estimate(int precision, const uint8_t *registers) {
    int m = 1 << precision, i;
    double z_inverse = 0.0, zeros = 0.0, alpha_m2, e, h, result;
    for (i = 0; i < m; i++) {
        z_inverse += 1.0 / (double)((int64_t)1 << registers[i]);
        if (registers[i] == 0) zeros += 1.0;
    }
    if (precision == 4) {
        alpha_m2 = 0.673 * m * m;
    } else if (precision == 5) {
        alpha_m2 = 0.697 * m * m;
    } else if (precision == 6) {
        alpha_m2 = 0.709 * m * m;
    } else {
        alpha_m2 = (0.7213 / (1.0 + 1.079 / m)) * m * m;
    }
    e = alpha_m2 / z_inverse;
    result = e < 5.0 * m ? e - estimate_bias(precision, e) : e;
    if (zeros > 0) {
        h = m * log(m / zeros);
        if (h <= HLL_THRESHOLDS[precision - 4] || e <= 2.5 * m) result = h;
    }
    return java_round(result);
}

int spark_hll_estimates(int precision, const int64_t *starts, const int64_t *ends, int64_t length, const uint8_t *hashes,
                        const uint8_t *validity, int64_t hash_offset, int64_t *out) {
    int m, shift;
    uint64_t padding;
    uint8_t *registers;
    int64_t row, k;
    if (precision < HLL_MIN_PRECISION || precision > HLL_MAX_PRECISION) return -1;
    m = 1 << precision;
    shift = 64 - precision;
    padding = (uint64_t)1 << (precision - 1);
    registers = (uint8_t *)malloc((size_t)m);
    if (registers == NULL) return -1;
    for (row = 0; row < length; row++) {
        memset(registers, 0, (size_t)m);
        for (k = starts[row]; k < ends[row]; k++) {
            uint64_t x, w;
            uint8_t zeros;
            int64_t bit = hash_offset + k;
            if (validity != NULL && !(validity[bit >> 3] & (1u << (bit & 7)))) continue;
            memcpy(&x, hashes + 8 * bit, 8);
            w = (x << precision) | padding; /* never 0: the padding bit is set */
            zeros = (uint8_t)(__builtin_clzll(w) + 1);
            if (zeros > registers[x >> shift]) registers[x >> shift] = zeros;
        }
        out[row] = estimate(precision, registers);
    }
    free(registers);
    return 0;
}
