/* Spark's aggregates whose answer depends on the order of rows (codec/spark_aggregates.c). */
#ifndef VPUSH_SPARK_AGGREGATES_H
#define VPUSH_SPARK_AGGREGATES_H

#include <stdint.h>

/* The kinds of spark_moments_column, in the order of codec/spark_aggregates.py's MOMENT_KINDS. */
enum spark_moment_kind {
    SPARK_VAR_POP, SPARK_VAR_SAMP, SPARK_STDDEV_POP, SPARK_STDDEV_SAMP, SPARK_SKEWNESS, SPARK_KURTOSIS,
    SPARK_COVAR_POP, SPARK_COVAR_SAMP, SPARK_CORR, SPARK_REGR_SXX, SPARK_REGR_SYY, SPARK_REGR_SXY, SPARK_REGR_SLOPE,
    SPARK_REGR_INTERCEPT, SPARK_REGR_R2, SPARK_MOMENT_KINDS
};

/* For each of `length` lists (list i is x[offsets[i]..offsets[i+1]), and y's alike for the
 * kinds of two arguments, SPARK_COVAR_POP on, in Spark's order of arguments: regr_*(y, x) takes
 * its y as x here; valid[i] 0 for a NULL list), Spark's aggregate `kind` of the list's
 * values in order: CentralMomentAgg's (or Covariance's, PearsonCorrelation's) update for each
 * value, the empty buffer merged into it, then the evaluation, with Spark's NULLs. Writes
 * out[i] and out_valid[i]; returns the number of NULL results, or -1 for an unknown kind. Where
 * `tasks` (each value's Spark task, or NULL) holds several tasks in a list, each task's buffer
 * is merged into the first one's in task order (no `before` then). */
int64_t spark_moments_column(int kind, const int64_t *offsets, const uint8_t *valid, int64_t length,
                             const double *x, const double *y, const int64_t *before, const int64_t *tasks, double *out,
                             uint8_t *out_valid);

/* For each list of longs, Spark's ANSI sum row by row: out_valid[i] 0 where the list is NULL or a
 * running total overflows a long. Returns the number of NULL results. */
int64_t spark_long_sum_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const int64_t *x,
                              int64_t *out, uint8_t *out_valid);

/* For each list of decimals (x: Arrow decimal128's 16-byte little-endian unscaled integers, one
 * scale), Spark's sum with GROUP BY row by row: its hash map keeps a group's running total as a
 * decimal(38, s), which becomes NULL once the total passes 38 digits and stays NULL. out (16
 * bytes a list) and out_valid[i]: 0 where the list is NULL or a running total passed. Returns
 * the number of NULL results. */
int64_t spark_decimal_sum_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const unsigned char *x,
                                 unsigned char *out, uint8_t *out_valid);

/* For each list of doubles, Spark's sum of doubles row by row (from 0.0, in list order):
 * out_valid[i] 0 where the list is NULL or empty. Returns the number of NULL results. */
int64_t spark_double_sum_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const double *x,
                                const int64_t *before, double *out, uint8_t *out_valid);

/* For each list of doubles (in order: each row's value as Spark converts it), Spark's
 * percentile_approx at each of the `npercentages` percentages with `accuracy`: its
 * QuantileSummaries (a head of 50000 values, samples compressed from 10000 on, relative error
 * 1 / accuracy) fed the values in order, compressed as the task serializes it (the final
 * aggregation's empty buffer merged with it leaves it as it is), then queried. Where before[i]
 * (before may be NULL) is from 0 to below the list's length, the list's first before[i] values
 * make one digest and the rest another, merged into it as Spark's hash aggregation does after it
 * falls back to sorting. out holds npercentages doubles a list; out_valid[i] 0 where the list is
 * NULL or empty. Where `tasks` (each value's Spark task, or NULL) holds several tasks in a list,
 * each task's digest is merged into the first one's in task order instead. Returns the number of
 * NULL results, -1 for a bad accuracy or no percentages, -2 where memory runs out. */
int64_t spark_percentile_approx_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const double *x,
                                       const int64_t *before, const int64_t *tasks, const double *percentages, int64_t npercentages,
                                       int64_t accuracy, double *out, uint8_t *out_valid);

/* For each list of doubles (in order: each row's value as Spark converts it), Spark's
 * histogram_numeric with `nbins` bins: Hive's NumericHistogram (as Spark 4.3 copies it) fed the
 * values in order, the closest pair of bins merged as each value past nbins bins arrives, ties
 * broken by java.util.Random(31183). `before` and `tasks` as for spark_percentile_approx_column
 * (the later values' buffer merges the earlier one's; the final aggregation's new buffer copies
 * the first task's and merges the later ones'). out holds 2 * nbins + 1 doubles a list: the bins
 * used, then each bin's x and y; out_valid[i] 0 where no value was added. Returns the number of
 * NULL results, -1 for fewer than 2 bins, -2 where memory runs out. */
int64_t spark_histogram_numeric_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const double *x,
                                       const int64_t *before, const int64_t *tasks, int64_t nbins, double *out, uint8_t *out_valid);

/* For each of `length` lists (list i is positions[offsets[i]..offsets[i+1])), the indices of its
 * items in order of their positions, stably: permutation[offsets[i] + k] is the index of list
 * i's k-th. A list already in order costs one pass; one gathered from runs in order that do not
 * overlap (each chunk of rows DuckDB gathered it from) a pass and a sort of the runs; any other
 * a merge sort. Returns 0, or -1 where memory runs out. */
int64_t spark_order_lists(const int64_t *offsets, int64_t length, const int64_t *positions, int64_t *permutation);

/* For each of `length` groups (group i is keys offsets[i]..offsets[i+1], in the order Spark first
 * met them, each with its OpenHashSet position hash `mixed` (murmur3_32 of its Java hashCode) and
 * its count): Spark's mode(x): the keys put into an OpenHashMap (capacity 64, load factor 0.7,
 * doubled past it, triangular probing), rebuilt twice in its iteration order (the partial buffer
 * serialized and read back, then merged into the final one), and the first key of the most
 * frequent in the last one's order. Writes chosen[i] (an index into the keys, -1 for an empty
 * group); returns 0, or -1 where memory runs out. */
/* Where `tasks` is not NULL, a group's keys come as runs of one Spark task each (the task of each
 * entry, in task order; a key once a task) and `ids` gives each entry the index of its key's
 * first entry in the group: each task's map is built and read back, and the tasks' maps merged
 * into the final one in task order, the counts of a key added. */
int spark_mode_choose(const int64_t *offsets, int64_t length, const int32_t *mixed, const int64_t *counts,
                      const int64_t *tasks, const int64_t *ids, int64_t *chosen);

#endif
