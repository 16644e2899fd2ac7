/* Spark's aggregates whose answer depends on the order of rows, computed in that order.
 *
 * Spark updates an aggregate's buffer row by row within a task, then merges the task's buffer
 * with the final aggregation's empty one: as measured on Spark 4.3, the empty buffer comes second
 * (a regression's intercept, which reads the averages, keeps the task's averages' bits; merged
 * the other way they would be (avg / n) * n). The formulas are Spark's own (CentralMomentAgg, Covariance,
 * PearsonCorrelation, Sum of longs and of decimals), written as Spark's expression trees evaluate them: left to right, every
 * product and sum rounded (built without fused multiply-add, as Java computes doubles). A division
 * of doubles by zero in an evaluation is NULL, as Spark's Divide gives it there.
 */
#include "spark_aggregates.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double n, avg, m2, m3, m4;
} moments;

typedef struct {
    double n, x_avg, y_avg, ck, x_mk, y_mk;
} comoments;

static int moment_order(int kind) {
    return kind == SPARK_SKEWNESS ? 3 : kind == SPARK_KURTOSIS ? 4 : 2;
}

/* CentralMomentAgg.updateExpressions for one value. */
static void update_moments(moments *b, double value, int order) {
    double new_n = b->n + 1.0;
    double delta = value - b->avg;
    double delta_n = delta / new_n;
    double new_avg = b->avg + delta_n;
    double new_m2 = b->m2 + delta * (delta - delta_n);
    double delta2 = delta * delta;
    double delta_n2 = delta_n * delta_n;
    double new_m3 = 0.0, new_m4 = 0.0;
    if (order >= 3) new_m3 = b->m3 - 3.0 * delta_n * new_m2 + delta * (delta2 - delta_n2);
    if (order >= 4) new_m4 = b->m4 - 4.0 * delta_n * new_m3 - 6.0 * delta_n2 * new_m2 + delta * (delta * delta2 - delta_n * delta_n2);
    b->n = new_n, b->avg = new_avg, b->m2 = new_m2, b->m3 = new_m3, b->m4 = new_m4;
}

/* CentralMomentAgg.mergeExpressions: left merged with right. */
static moments merge_moments(moments l, moments r, int order) {
    moments out;
    double n1 = l.n, n2 = r.n;
    double new_n = n1 + n2;
    double delta = r.avg - l.avg;
    double delta_n = new_n == 0.0 ? 0.0 : delta / new_n;
    out.n = new_n;
    out.avg = l.avg + delta_n * n2;
    out.m2 = l.m2 + r.m2 + delta * delta_n * n1 * n2;
    out.m3 = 0.0, out.m4 = 0.0;
    if (order >= 3)
        out.m3 = l.m3 + r.m3 + delta_n * delta_n * delta * n1 * n2 * (n1 - n2) + 3.0 * delta_n * (n1 * r.m2 - n2 * l.m2);
    if (order >= 4)
        out.m4 = l.m4 + r.m4 + delta_n * delta_n * delta_n * delta * n1 * n2 * (n1 * n1 - n1 * n2 + n2 * n2)
                 + 6.0 * delta_n * delta_n * (n1 * n1 * r.m2 + n2 * n2 * l.m2) + 4.0 * delta_n * (n1 * r.m3 - n2 * l.m3);
    return out;
}

/* Covariance's and PearsonCorrelation's updateExpressions (their x average moves alike). */
static void update_comoments(comoments *b, double x, double y) {
    double new_n = b->n + 1.0;
    double dx = x - b->x_avg;
    double dx_n = dx / new_n;
    double dy = y - b->y_avg;
    double dy_n = dy / new_n;
    double new_x_avg = b->x_avg + dx_n;
    double new_y_avg = b->y_avg + dy_n;
    b->ck = b->ck + dx * (y - new_y_avg);
    b->x_mk = b->x_mk + dx * (x - new_x_avg);
    b->y_mk = b->y_mk + dy * (y - new_y_avg);
    b->n = new_n, b->x_avg = new_x_avg, b->y_avg = new_y_avg;
}

static comoments merge_comoments(comoments l, comoments r) {
    comoments out;
    double n1 = l.n, n2 = r.n;
    double new_n = n1 + n2;
    double dx = r.x_avg - l.x_avg;
    double dx_n = new_n == 0.0 ? 0.0 : dx / new_n;
    double dy = r.y_avg - l.y_avg;
    double dy_n = new_n == 0.0 ? 0.0 : dy / new_n;
    out.n = new_n;
    out.x_avg = l.x_avg + dx_n * n2;
    out.y_avg = l.y_avg + dy_n * n2;
    out.ck = l.ck + r.ck + dx * dy_n * n1 * n2;
    out.x_mk = l.x_mk + r.x_mk + dx * dx_n * n1 * n2;
    out.y_mk = l.y_mk + r.y_mk + dy * dy_n * n1 * n2;
    return out;
}

/* Spark's Divide of doubles in an evaluation: NULL (0 returned in *valid) for a zero divisor. */
static double divide(double a, double b, uint8_t *valid) {
    if (b == 0.0) {
        *valid = 0;
        return 0.0;
    }
    return a / b;
}

static double evaluate_moments(int kind, moments b, uint8_t *valid) {
    *valid = 1;
    if (b.n == 0.0) {
        *valid = 0;
        return 0.0;
    }
    switch (kind) {
    case SPARK_VAR_POP: return divide(b.m2, b.n, valid);
    case SPARK_STDDEV_POP: {
        double v = divide(b.m2, b.n, valid);
        return sqrt(v);
    }
    case SPARK_VAR_SAMP:
    case SPARK_STDDEV_SAMP: {
        double v;
        if (b.n == 1.0) {
            *valid = 0;
            return 0.0;
        }
        v = divide(b.m2, b.n - 1.0, valid);
        return kind == SPARK_VAR_SAMP ? v : sqrt(v);
    }
    case SPARK_SKEWNESS:
        if (b.m2 == 0.0) {
            *valid = 0;
            return 0.0;
        }
        return divide(sqrt(b.n) * b.m3, sqrt(b.m2 * b.m2 * b.m2), valid);
    default: /* SPARK_KURTOSIS */
        if (b.m2 == 0.0) {
            *valid = 0;
            return 0.0;
        }
        return divide(b.n * b.m4, b.m2 * b.m2, valid) - 3.0;
    }
}

static double evaluate_comoments(int kind, comoments b, uint8_t *valid) {
    *valid = 1;
    if (b.n == 0.0 || (kind != SPARK_COVAR_POP && b.n == 1.0)) {
        *valid = 0;
        return 0.0;
    }
    if (kind == SPARK_COVAR_POP) return divide(b.ck, b.n, valid);
    if (kind == SPARK_COVAR_SAMP) return divide(b.ck, b.n - 1.0, valid);
    return divide(b.ck, sqrt(b.x_mk * b.y_mk), valid);
}

/* The task's buffer of the values [begin, end): fed in order, or where Spark's hash aggregation
 * fell back to sorting after the value at `cut` (begin <= cut <= end, cut < 0 for none), the
 * later values' new buffer with the kept buffer of the earlier ones merged into it (an empty new
 * buffer where no value came later: SortBasedAggregator). */
static moments task_moments(const double *x, int64_t begin, int64_t end, int64_t cut, int order) {
    int64_t j;
    moments later = {0.0, 0.0, 0.0, 0.0, 0.0}, kept = {0.0, 0.0, 0.0, 0.0, 0.0};
    if (cut <= begin) cut = begin;
    for (j = cut; j < end; j++) update_moments(&later, x[j], order);
    if (cut == begin) return later;
    for (j = begin; j < cut; j++) update_moments(&kept, x[j], order);
    return merge_moments(later, kept, order);
}

static comoments task_comoments(const double *x, const double *y, int64_t begin, int64_t end, int64_t cut) {
    int64_t j;
    comoments later = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, kept = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (cut <= begin) cut = begin;
    for (j = cut; j < end; j++) update_comoments(&later, x[j], y[j]);
    if (cut == begin) return later;
    for (j = begin; j < cut; j++) update_comoments(&kept, x[j], y[j]);
    return merge_comoments(later, kept);
}

/* The end of the run of values of one Spark task that starts at `start` (before `end`). */
static int64_t run_end(const int64_t *tasks, int64_t start, int64_t end) {
    int64_t j = start + 1;
    if (tasks == NULL) return end;
    while (j < end && tasks[j] == tasks[start]) j++;
    return j;
}

/* The final aggregation's buffer of the values [begin, end) read by Spark's tasks (`tasks`: each
 * value's task, NULL for one task): the first task's buffer, each later task's merged into it in
 * task order (the left side the buffer so far). With several tasks there is no fallback `cut`
 * (vpush refuses it). */
static moments tasks_moments(const double *x, int64_t begin, int64_t end, int64_t cut, int order, const int64_t *tasks) {
    int64_t start = begin, stop = run_end(tasks, begin, end);
    moments b;
    if (stop >= end) return task_moments(x, begin, end, cut, order);
    b = task_moments(x, start, stop, -1, order);
    for (start = stop; start < end; start = stop) {
        stop = run_end(tasks, start, end);
        b = merge_moments(b, task_moments(x, start, stop, -1, order), order);
    }
    return b;
}

static comoments tasks_comoments(const double *x, const double *y, int64_t begin, int64_t end, int64_t cut, const int64_t *tasks) {
    int64_t start = begin, stop = run_end(tasks, begin, end);
    comoments b;
    if (stop >= end) return task_comoments(x, y, begin, end, cut);
    b = task_comoments(x, y, start, stop, -1);
    for (start = stop; start < end; start = stop) {
        stop = run_end(tasks, start, end);
        b = merge_comoments(b, task_comoments(x, y, start, stop, -1));
    }
    return b;
}

/* regr_*(y, x) over pairs (Spark's linearRegression.scala): a kind's buffers over the values in
 * order (split at `cut` as task_moments does), empty ones merged into them, then its evaluation. */
static double evaluate_regression(int kind, const double *y, const double *x, int64_t begin, int64_t end, int64_t cut,
                                  const int64_t *tasks, uint8_t *valid) {
    comoments c, empty_c = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    moments m, empty_m = {0.0, 0.0, 0.0, 0.0, 0.0};
    *valid = 1;
    switch (kind) {
    case SPARK_REGR_SXX:
    case SPARK_REGR_SYY:
        /* RegrReplacement of x (of y): the second moment */
        m = merge_moments(tasks_moments(kind == SPARK_REGR_SXX ? x : y, begin, end, cut, 2, tasks), empty_m, 2);
        if (m.n == 0.0) *valid = 0;
        return m.m2;
    case SPARK_REGR_SXY:
        /* Covariance(y, x): its ck */
        c = merge_comoments(tasks_comoments(y, x, begin, end, cut, tasks), empty_c);
        if (c.n == 0.0) *valid = 0;
        return c.ck;
    case SPARK_REGR_R2: {
        /* PearsonCorrelation(y, x) (its "x" is y here): NULL where x is constant, else 1 where y is */
        double corr;
        c = merge_comoments(tasks_comoments(y, x, begin, end, cut, tasks), empty_c);
        if (c.y_mk == 0.0) {
            *valid = 0;
            return 0.0;
        }
        if (c.x_mk == 0.0) return 1.0;
        corr = divide(c.ck, sqrt(c.x_mk * c.y_mk), valid);
        return corr * corr;
    }
    default: /* SPARK_REGR_SLOPE, SPARK_REGR_INTERCEPT: CovPopulation(x, y) and VariancePop(x) */
        c = merge_comoments(tasks_comoments(x, y, begin, end, cut, tasks), empty_c);
        m = merge_moments(tasks_moments(x, begin, end, cut, 2, tasks), empty_m, 2);
        if (m.m2 == 0.0) {
            *valid = 0;
            return 0.0;
        }
        if (kind == SPARK_REGR_SLOPE) return c.ck / m.m2;
        return c.y_avg - c.ck / m.m2 * c.x_avg;
    }
}

/* Where the hash aggregation fell back to sorting, the end of the values of list i it kept
 * (`before` its count of them, -1 for none); else -1. */
static int64_t fallback_cut(const int64_t *before, int64_t i, int64_t begin, int64_t end) {
    if (before == NULL || before[i] < 0) return -1;
    return before[i] < end - begin ? begin + before[i] : end;
}

int64_t spark_moments_column(int kind, const int64_t *offsets, const uint8_t *valid, int64_t length,
                             const double *x, const double *y, const int64_t *before, const int64_t *tasks, double *out,
                             uint8_t *out_valid) {
    int64_t i, nulls = 0;
    if (kind < 0 || kind >= SPARK_MOMENT_KINDS) return -1;
    for (i = 0; i < length; i++) {
        uint8_t ok = 0;
        double result = 0.0;
        int64_t begin = offsets[i], end = offsets[i + 1], cut = fallback_cut(before, i, begin, end);
        if (valid[i] && kind >= SPARK_REGR_SXX) {
            result = evaluate_regression(kind, x, y, begin, end, cut, tasks, &ok);
        } else if (valid[i]) {
            if (kind >= SPARK_COVAR_POP) {
                comoments empty = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
                result = evaluate_comoments(kind, merge_comoments(tasks_comoments(x, y, begin, end, cut, tasks), empty), &ok);
            } else {
                int order = moment_order(kind);
                moments empty = {0.0, 0.0, 0.0, 0.0, 0.0};
                result = evaluate_moments(kind, merge_moments(tasks_moments(x, begin, end, cut, order, tasks), empty, order), &ok);
            }
        }
        out[i] = ok ? result : 0.0;
        out_valid[i] = ok;
        nulls += !ok;
    }
    return nulls;
}

int64_t spark_long_sum_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const int64_t *x,
                              int64_t *out, uint8_t *out_valid) {
    int64_t i, j, nulls = 0;
    for (i = 0; i < length; i++) {
        int64_t sum = 0;
        uint8_t ok = valid[i] != 0;
        for (j = offsets[i]; ok && j < offsets[i + 1]; j++)
            if (__builtin_add_overflow(sum, x[j], &sum)) ok = 0;
        out[i] = ok ? sum : 0;
        out_valid[i] = ok;
        nulls += !ok;
    }
    return nulls;
}

int64_t spark_decimal_sum_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const unsigned char *x,
                                 unsigned char *out, uint8_t *out_valid) {
    /* 10^38: a decimal(38, s) holds unscaled integers below it (UnsafeRow.setDecimal's
     * changePrecision fails from there on, and the buffer's sum becomes NULL) */
    const __int128 limit = (__int128)10000000000000000000ULL * (__int128)10000000000000000000ULL;
    int64_t i, j, nulls = 0;
    for (i = 0; i < length; i++) {
        __int128 sum = 0, value;
        uint8_t ok = valid[i] != 0;
        /* each value is below 10^38 and so is the total before it: the sum stays far inside 2^127 */
        for (j = offsets[i]; ok && j < offsets[i + 1]; j++) {
            memcpy(&value, x + 16 * j, 16);
            sum += value;
            if (sum >= limit || sum <= -limit) ok = 0;
        }
        if (!ok) sum = 0;
        memcpy(out + 16 * i, &sum, 16);
        out_valid[i] = ok;
        nulls += !ok;
    }
    return nulls;
}

int64_t spark_double_sum_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const double *x,
                                const int64_t *before, double *out, uint8_t *out_valid) {
    int64_t i, j, nulls = 0;
    for (i = 0; i < length; i++) {
        /* Sum's update, coalesce(sum, 0.0) + x, row by row; merged with the empty buffer unchanged.
         * Past the hash aggregation's fallback the later values' sum comes first, the kept one
         * added to it (Sum.merge: left + right) */
        double sum = 0.0, kept = 0.0;
        int64_t cut = fallback_cut(before, i, offsets[i], offsets[i + 1]);
        uint8_t ok = valid[i] != 0 && offsets[i + 1] > offsets[i];
        if (cut <= offsets[i]) cut = offsets[i];
        for (j = cut; ok && j < offsets[i + 1]; j++) sum = sum + x[j];
        for (j = offsets[i]; ok && j < cut; j++) kept = kept + x[j];
        if (cut > offsets[i]) sum = cut < offsets[i + 1] ? sum + kept : kept;
        out[i] = ok ? sum : 0.0;
        out_valid[i] = ok;
        nulls += !ok;
    }
    return nulls;
}

/* Sort idx[0..n) (indices into key) by key, stably: a bottom-up merge sort through tmp. */
static void sort_by_key(int64_t *idx, int64_t *tmp, int64_t n, const int64_t *key) {
    int64_t width, lo, *from = idx, *to = tmp, *swap;
    for (width = 1; width < n; width *= 2) {
        for (lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) to[k++] = key[from[b]] < key[from[a]] ? from[b++] : from[a++];
            while (a < mid) to[k++] = from[a++];
            while (b < hi) to[k++] = from[b++];
        }
        swap = from, from = to, to = swap;
    }
    if (from != idx)
        for (lo = 0; lo < n; lo++) idx[lo] = from[lo];
}

int64_t spark_order_lists(const int64_t *offsets, int64_t length, const int64_t *positions, int64_t *permutation) {
    int64_t i, j, longest = 0;
    int64_t *run_start = NULL, *run_key = NULL, *idx = NULL, *tmp = NULL;
    for (i = 0; i < length; i++)
        if (offsets[i + 1] - offsets[i] > longest) longest = offsets[i + 1] - offsets[i];
    for (i = 0; i < length; i++) {
        int64_t begin = offsets[i], end = offsets[i + 1], runs = 0, k, at;
        int ordered = 1;
        for (j = begin + 1; j < end && ordered; j++) ordered = positions[j - 1] <= positions[j];
        if (ordered) {
            for (j = begin; j < end; j++) permutation[j] = j;
            continue;
        }
        if (run_start == NULL) {
            run_start = malloc((size_t)(longest + 1) * sizeof(int64_t));
            run_key = malloc((size_t)(longest + 1) * sizeof(int64_t));
            idx = malloc((size_t)(longest + 1) * sizeof(int64_t));
            tmp = malloc((size_t)(longest + 1) * sizeof(int64_t));
            if (run_start == NULL || run_key == NULL || idx == NULL || tmp == NULL) {
                free(run_start), free(run_key), free(idx), free(tmp);
                return -1;
            }
        }
        /* the list as ascending runs (the chunks it was gathered from, each in order) */
        for (j = begin; j < end; j++)
            if (j == begin || positions[j] < positions[j - 1]) {
                run_start[runs] = j;
                run_key[runs] = positions[j];
                idx[runs] = runs;
                runs++;
            }
        run_start[runs] = end;
        sort_by_key(idx, tmp, runs, run_key);
        /* runs that do not overlap, put in order of their first positions, are the list in order */
        ordered = 1;
        for (k = 1; k < runs && ordered; k++) ordered = positions[run_start[idx[k - 1] + 1] - 1] <= run_key[idx[k]];
        if (ordered) {
            at = begin;
            for (k = 0; k < runs; k++)
                for (j = run_start[idx[k]]; j < run_start[idx[k] + 1]; j++) permutation[at++] = j;
            continue;
        }
        for (j = begin; j < end; j++) idx[j - begin] = j;
        sort_by_key(idx, tmp, end - begin, positions);
        for (j = begin; j < end; j++) permutation[j] = idx[j - begin];
    }
    free(run_start), free(run_key), free(idx), free(tmp);
    return 0;
}

/* ---- percentile_approx: Spark's QuantileSummaries (Greenwald-Khanna) ------------------------ */

/* QuantileSummaries.defaultHeadSize and defaultCompressThreshold (the digest's summaries are
 * always made with the latter, whatever the accuracy). */
#define GK_HEAD_SIZE 50000
#define GK_COMPRESS_THRESHOLD 10000

typedef struct {
    double value;
    int64_t g, delta;
} gk_stats;

typedef struct {
    gk_stats *sampled, *spare; /* the summary's samples; room for the next ones */
    int64_t size, capacity;
    double *head; /* headSampled: the values not yet inserted */
    uint64_t *keys, *keys_spare;
    int64_t head_size;
    int64_t count; /* the values inserted into `sampled` (not the head's) */
    int compressed;
    double relative_error;
} gk_summary;

/* A double as an unsigned key in java.lang.Double.compare's order (-0.0 before 0.0; NaN, all
 * of one key as doubleToLongBits makes them, after +Infinity). */
static uint64_t java_order_key(double value) {
    uint64_t bits;
    if (value != value) return 0xFFF8000000000000ULL; /* 0x7ff8000000000000, the sign bit flipped */
    memcpy(&bits, &value, 8);
    return (bits >> 63) ? ~bits : bits ^ 0x8000000000000000ULL;
}

static double java_order_value(uint64_t key) {
    uint64_t bits = (key >> 63) ? key ^ 0x8000000000000000ULL : ~key;
    double value;
    memcpy(&value, &bits, 8);
    return value;
}

/* Sort keys[0..n) ascending by bytes, least significant first (tmp as large); a byte all keys
 * share costs no pass. Returns the array that holds the result (keys or tmp). */
static uint64_t *radix_sort(uint64_t *keys, uint64_t *tmp, int64_t n) {
    int shift;
    int64_t i, counts[256];
    for (shift = 0; shift < 64; shift += 8) {
        uint64_t *swap;
        int64_t at = 0;
        memset(counts, 0, sizeof counts);
        for (i = 0; i < n; i++) counts[(keys[i] >> shift) & 0xFF]++;
        if (n == 0 || counts[(keys[0] >> shift) & 0xFF] == n) continue;
        for (i = 0; i < 256; i++) {
            int64_t c = counts[i];
            counts[i] = at;
            at += c;
        }
        for (i = 0; i < n; i++) tmp[counts[(keys[i] >> shift) & 0xFF]++] = keys[i];
        swap = keys, keys = tmp, tmp = swap;
    }
    return keys;
}

static int gk_reserve(gk_summary *s, int64_t capacity) {
    gk_stats *a, *b;
    if (capacity <= s->capacity) return 0;
    a = realloc(s->sampled, (size_t)capacity * sizeof(gk_stats));
    if (a == NULL) return -1;
    s->sampled = a;
    b = realloc(s->spare, (size_t)capacity * sizeof(gk_stats));
    if (b == NULL) return -1;
    s->spare = b;
    s->capacity = capacity;
    return 0;
}

/* withHeadBufferInserted: the head's values, sorted in Java's order, merged among the samples
 * (each after the samples <= it), g 1 and delta floor(2 * relativeError * count) but for the
 * first sample and the last value inserted after every sample. A new summary: not compressed. */
static int gk_insert_head(gk_summary *s) {
    int64_t i, op, sample = 0, out = 0, current = s->count;
    uint64_t *sorted;
    gk_stats *swap;
    if (s->head_size == 0) return 0;
    if (gk_reserve(s, s->size + s->head_size) < 0) return -1;
    for (i = 0; i < s->head_size; i++) s->keys[i] = java_order_key(s->head[i]);
    sorted = radix_sort(s->keys, s->keys_spare, s->head_size);
    for (op = 0; op < s->head_size; op++) {
        double value = java_order_value(sorted[op]);
        int64_t delta;
        while (sample < s->size && s->sampled[sample].value <= value) s->spare[out++] = s->sampled[sample++];
        current += 1;
        delta = (out == 0 || (sample == s->size && op == s->head_size - 1)) ? 0
                : (int64_t)floor(2 * s->relative_error * (double)current);
        s->spare[out].value = value, s->spare[out].g = 1, s->spare[out].delta = delta;
        out++;
    }
    while (sample < s->size) s->spare[out++] = s->sampled[sample++];
    swap = s->sampled, s->sampled = s->spare, s->spare = swap;
    s->size = out;
    s->count = current;
    s->head_size = 0;
    s->compressed = 0;
    return 0;
}

/* compressImmut: from the last sample down to the second, each merged into the one after it
 * (its g added there) while their g's and the latter's delta stay under the threshold; the
 * first sample kept where it is no greater than the first one kept after it. */
static void gk_compress_samples(gk_summary *s, double threshold) {
    int64_t i, at = s->size, n = s->size;
    gk_stats head;
    gk_stats *swap;
    if (n == 0) return;
    head = s->sampled[n - 1];
    for (i = n - 2; i >= 1; i--) {
        gk_stats sample = s->sampled[i];
        if ((double)(sample.g + head.g + head.delta) < threshold) {
            head.g += sample.g;
        } else {
            s->spare[--at] = head;
            head = sample;
        }
    }
    s->spare[--at] = head;
    if (s->sampled[0].value <= head.value && n > 1) s->spare[--at] = s->sampled[0];
    memmove(s->spare, s->spare + at, (size_t)(n - at) * sizeof(gk_stats));
    swap = s->sampled, s->sampled = s->spare, s->spare = swap;
    s->size = n - at;
}

/* QuantileSummaries.compress: the head inserted, then the samples compressed. */
static int gk_compress(gk_summary *s) {
    if (gk_insert_head(s) < 0) return -1;
    gk_compress_samples(s, 2 * s->relative_error * (double)s->count);
    s->compressed = 1;
    return 0;
}

/* QuantileSummaries.insert (PercentileDigest.add): into the head; a full head is inserted, and
 * the samples compressed where they number compressThreshold or more. */
static int gk_add(gk_summary *s, double value) {
    s->head[s->head_size++] = value;
    s->compressed = 0;
    if (s->head_size >= GK_HEAD_SIZE) {
        if (gk_insert_head(s) < 0) return -1;
        if (s->size >= GK_COMPRESS_THRESHOLD) return gk_compress(s);
    }
    return 0;
}

/* QuantileSummaries.query(percentiles): the percentages taken in ascending order (order[] their
 * indices), each from where the one before it stopped. */
static void gk_query(const gk_summary *s, const double *percentages, const int64_t *order, int64_t npercentages,
                     double *out) {
    int64_t k, index = 0, min_rank = s->sampled[0].g, largest = INT64_MIN;
    double target_error;
    for (k = 0; k < s->size; k++)
        if (s->sampled[k].delta + s->sampled[k].g > largest) largest = s->sampled[k].delta + s->sampled[k].g;
    target_error = (double)(largest / 2);
    for (k = 0; k < npercentages; k++) {
        double percentile = percentages[order[k]], found;
        if (percentile <= s->relative_error) {
            found = s->sampled[0].value;
        } else if (percentile >= 1 - s->relative_error) {
            found = s->sampled[s->size - 1].value;
        } else {
            /* findApproxQuantile */
            int64_t rank = (int64_t)ceil(percentile * (double)s->count), i = index, rank_at = min_rank;
            gk_stats current = s->sampled[index];
            found = s->sampled[s->size - 1].value;
            for (;;) {
                if (i >= s->size - 1) {
                    index = s->size - 1, min_rank = 0;
                    break;
                }
                if ((double)(rank_at + current.delta) - target_error <= (double)rank && (double)rank <= (double)rank_at + target_error) {
                    index = i, min_rank = rank_at, found = current.value;
                    break;
                }
                i++;
                current = s->sampled[i];
                rank_at += current.g;
            }
        }
        out[order[k]] = found;
    }
}

/* QuantileSummaries.merge of `other` into `self` (both compressed and not empty), into `self`:
 * the samples merged by value, those of one side placed between the other's given the other's
 * rank error as more delta, then compressed at the merged count. */
static int gk_merge(gk_summary *self, const gk_summary *other) {
    int64_t a = 0, b = 0, out = 0, count = self->count + other->count;
    int64_t more_self = (int64_t)floor(2 * other->relative_error * (double)other->count);
    int64_t more_other = (int64_t)floor(2 * self->relative_error * (double)self->count);
    double error = self->relative_error > other->relative_error ? self->relative_error : other->relative_error;
    gk_stats *swap;
    if (gk_reserve(self, self->size + other->size) < 0) return -1;
    while (a < self->size && b < other->size) {
        if (self->sampled[a].value < other->sampled[b].value) {
            self->spare[out] = self->sampled[a++];
            self->spare[out++].delta += b > 0 ? more_self : 0;
        } else {
            self->spare[out] = other->sampled[b++];
            self->spare[out++].delta += a > 0 ? more_other : 0;
        }
    }
    while (a < self->size) self->spare[out++] = self->sampled[a++];
    while (b < other->size) self->spare[out++] = other->sampled[b++];
    swap = self->sampled, self->sampled = self->spare, self->spare = swap;
    self->size = out;
    self->count = count;
    self->relative_error = error;
    gk_compress_samples(self, 2 * error * (double)count);
    self->compressed = 1;
    return 0;
}

static void gk_reset(gk_summary *s, double relative_error) {
    s->size = 0, s->count = 0, s->head_size = 0, s->compressed = 1, s->relative_error = relative_error;
}

static int gk_alloc_head(gk_summary *s) {
    s->head = malloc(GK_HEAD_SIZE * sizeof(double));
    s->keys = malloc(GK_HEAD_SIZE * sizeof(uint64_t));
    s->keys_spare = malloc(GK_HEAD_SIZE * sizeof(uint64_t));
    return s->head == NULL || s->keys == NULL || s->keys_spare == NULL ? -1 : 0;
}

static void gk_free(gk_summary *s) {
    free(s->head), free(s->keys), free(s->keys_spare), free(s->sampled), free(s->spare);
}

/* The digest of x[begin..end) fed in order, as a task serializes it (compressed). */
static int gk_digest(gk_summary *s, const double *x, int64_t begin, int64_t end) {
    int64_t j;
    gk_reset(s, s->relative_error);
    for (j = begin; j < end; j++)
        if (gk_add(s, x[j]) < 0) return -1;
    return s->compressed ? 0 : gk_compress(s);
}

int64_t spark_percentile_approx_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const double *x,
                                       const int64_t *before, const int64_t *tasks, const double *percentages, int64_t npercentages,
                                       int64_t accuracy, double *out, uint8_t *out_valid) {
    int64_t i, k, nulls = 0;
    int64_t *order;
    gk_summary s, early;
    if (accuracy <= 0 || npercentages <= 0) return -1;
    memset(&s, 0, sizeof s);
    memset(&early, 0, sizeof early);
    s.relative_error = early.relative_error = 1.0 / (double)accuracy;
    order = malloc((size_t)npercentages * sizeof(int64_t));
    if (order == NULL || gk_alloc_head(&s) < 0 || gk_alloc_head(&early) < 0) goto oom;
    /* the percentages in ascending order, stably (Scala's sortBy over Ordering.Double) */
    for (k = 0; k < npercentages; k++) {
        int64_t at = k;
        while (at > 0 && java_order_key(percentages[order[at - 1]]) > java_order_key(percentages[k])) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    for (i = 0; i < length; i++) {
        int64_t begin = offsets[i], end = valid[i] ? offsets[i + 1] : offsets[i];
        int64_t cut = before != NULL && before[i] >= 0 && before[i] < end - begin ? begin + before[i] : end;
        /* the values before the hash aggregation fell back to sorting: that digest, serialized;
         * the rest fed to a new buffer, compressed and merged with it (SortBasedAggregator) */
        if (begin < end && run_end(tasks, begin, end) < end) {
            /* several tasks' digests: the first task's, each later one merged into it in task
             * order (PercentileDigest.merge: the final buffer's summaries merge the task's) */
            int64_t start, stop = run_end(tasks, begin, end);
            if (gk_digest(&s, x, begin, stop) < 0) goto oom;
            for (start = stop; start < end; start = stop) {
                stop = run_end(tasks, start, end);
                if (gk_digest(&early, x, start, stop) < 0 || gk_merge(&s, &early) < 0) goto oom;
            }
        } else if (cut == begin || cut == end) {
            if (gk_digest(&s, x, begin, end) < 0) goto oom;
        } else {
            if (gk_digest(&early, x, begin, cut) < 0 || gk_digest(&s, x, cut, end) < 0 || gk_merge(&s, &early) < 0) goto oom;
        }
        /* the final aggregation's empty buffer merged with the task's leaves it as it is */
        out_valid[i] = s.count > 0;
        if (out_valid[i]) {
            gk_query(&s, percentages, order, npercentages, out + i * npercentages);
        } else {
            for (k = 0; k < npercentages; k++) out[i * npercentages + k] = 0.0;
            nulls++;
        }
    }
    free(order), gk_free(&s), gk_free(&early);
    return nulls;
oom:
    free(order), gk_free(&s), gk_free(&early);
    return -2;
}
/* ---- mode: the order of Spark's OpenHashMap ----------------------------------------------------- */
#define OPEN_HASH_INITIAL_CAPACITY 64
#define OPEN_HASH_LOAD_FACTOR 0.7

/* The keys `order[0..m)` (indices into mixed) put into an OpenHashSet one by one, written to out
 * in its iteration order (its positions ascending). `table` has room for twice the capacity m
 * keys grow it to, and `grown` as much. */
static void open_hash_order(const int32_t *mixed, const int64_t *order, int64_t m, int64_t *table, int64_t *grown, int64_t *out) {
    int64_t capacity = OPEN_HASH_INITIAL_CAPACITY, threshold = (int64_t)(OPEN_HASH_LOAD_FACTOR * (double)capacity), size = 0, k, i, n = 0;
    for (i = 0; i < capacity; i++) table[i] = -1;
    for (k = 0; k < m; k++) {
        int64_t mask = capacity - 1, pos = (uint32_t)mixed[order[k]] & mask, delta = 1;
        while (table[pos] >= 0) pos = (pos + delta++) & mask;
        table[pos] = order[k];
        if (++size > threshold) {
            /* OpenHashSet.rehash: the old positions in order, each put at its first free place */
            int64_t bigger = capacity * 2, big_mask = bigger - 1, old, *swap;
            for (i = 0; i < bigger; i++) grown[i] = -1;
            for (old = 0; old < capacity; old++) {
                int64_t key = table[old], at, step = 1;
                if (key < 0) continue;
                at = (uint32_t)mixed[key] & big_mask;
                while (grown[at] >= 0) at = (at + step++) & big_mask;
                grown[at] = key;
            }
            swap = table, table = grown, grown = swap;
            capacity = bigger;
            threshold = (int64_t)(OPEN_HASH_LOAD_FACTOR * (double)capacity);
        }
    }
    for (i = 0; i < capacity; i++) {
        if (table[i] >= 0) out[n++] = table[i];
    }
}

int spark_mode_choose(const int64_t *offsets, int64_t length, const int32_t *mixed, const int64_t *counts,
                      const int64_t *tasks, const int64_t *ids, int64_t *chosen) {
    int64_t g, most = 0, room;
    int64_t *table, *grown, *a, *b, *seq, *total;
    uint8_t *seen;
    for (g = 0; g < length; g++) {
        if (offsets[g + 1] - offsets[g] > most) most = offsets[g + 1] - offsets[g];
    }
    room = OPEN_HASH_INITIAL_CAPACITY;
    while ((int64_t)(OPEN_HASH_LOAD_FACTOR * (double)room) < most) room *= 2;
    room *= 2;
    table = (int64_t *)malloc((size_t)room * sizeof(int64_t));
    grown = (int64_t *)malloc((size_t)room * sizeof(int64_t));
    a = (int64_t *)malloc((size_t)(most + 1) * sizeof(int64_t));
    b = (int64_t *)malloc((size_t)(most + 1) * sizeof(int64_t));
    seq = (int64_t *)malloc((size_t)(most + 1) * sizeof(int64_t));
    total = (int64_t *)malloc((size_t)(most + 1) * sizeof(int64_t));
    seen = (uint8_t *)malloc((size_t)(most + 1));
    if (table == NULL || grown == NULL || a == NULL || b == NULL || seq == NULL || total == NULL || seen == NULL) {
        free(table), free(grown), free(a), free(b), free(seq), free(total), free(seen);
        return -1;
    }
    for (g = 0; g < length; g++) {
        int64_t begin = offsets[g], m = offsets[g + 1] - begin, k, best = -1, pass, start, n = 0, distinct = 0;
        /* each task's map, its buffer serialized and read back (its keys a run of one task) */
        for (start = 0; start < m;) {
            int64_t end = start + 1, r = 0;
            while (tasks != NULL && end < m && tasks[begin + end] == tasks[begin + start]) end++;
            if (tasks == NULL) end = m;
            for (k = start; k < end; k++) a[r++] = begin + k;
            for (pass = 0; pass < 2; pass++) {
                open_hash_order(mixed, a, r, table, grown, b);
                memcpy(a, b, (size_t)r * sizeof(int64_t));
            }
            memcpy(seq + n, a, (size_t)r * sizeof(int64_t));
            n += r;
            start = end;
        }
        /* the tasks' maps merged into the empty final one in task order: a key met again only
         * adds its count (ids: each entry's first entry of the same key) */
        for (k = 0; k < m; k++) seen[k] = 0, total[k] = 0;
        for (k = 0; k < n; k++) {
            int64_t id = ids != NULL ? ids[seq[k]] : seq[k];
            total[id - begin] += counts[seq[k]];
            if (!seen[id - begin]) seen[id - begin] = 1, a[distinct++] = id;
        }
        open_hash_order(mixed, a, distinct, table, grown, b);
        /* Scala's maxBy: the first of the greatest count */
        for (k = 0; k < distinct; k++) {
            if (best < 0 || total[b[k] - begin] > total[best - begin]) best = b[k];
        }
        chosen[g] = best;
    }
    free(table), free(grown), free(a), free(b), free(seq), free(total), free(seen);
    return 0;
}

/* ---- histogram_numeric: Hive's NumericHistogram as Spark 4.3 copies it ------------------------- */
typedef struct {
    double x, y;
} hist_bin;

typedef struct {
    hist_bin *bins; /* room for 2 * nbins + 1 */
    int64_t used, nbins;
    uint64_t seed; /* java.util.Random(31183), which breaks ties between equally close pairs */
} numeric_histogram;

#define JAVA_RANDOM_MULTIPLIER 0x5DEECE66DULL
#define JAVA_RANDOM_MASK ((1ULL << 48) - 1)

static void hist_reset(numeric_histogram *h, int64_t nbins) {
    h->used = 0;
    h->nbins = nbins;
    h->seed = (31183ULL ^ JAVA_RANDOM_MULTIPLIER) & JAVA_RANDOM_MASK; /* new Random(31183) */
}

static int64_t java_random_next(numeric_histogram *h, int bits) {
    h->seed = (h->seed * JAVA_RANDOM_MULTIPLIER + 0xBULL) & JAVA_RANDOM_MASK;
    return (int64_t)(h->seed >> (48 - bits));
}

static double java_random_next_double(numeric_histogram *h) {
    int64_t high = java_random_next(h, 26);
    return (double)((high << 27) + java_random_next(h, 27)) * 0x1.0p-53;
}

/* NumericHistogram.trim: merge the closest pair of bins (ties broken by the generator) until
 * nbins are left, each merged bin at the mean of the two weighted by their heights. */
static void hist_trim(numeric_histogram *h) {
    while (h->used > h->nbins) {
        double smallest = h->bins[1].x - h->bins[0].x, d;
        int64_t at = 0, ties = 1, i;
        hist_bin *bin;
        for (i = 1; i < h->used - 1; i++) {
            double diff = h->bins[i + 1].x - h->bins[i].x;
            if (diff < smallest) {
                smallest = diff;
                at = i;
                ties = 1;
            } else if (diff == smallest && java_random_next_double(h) <= 1.0 / (double)++ties) {
                at = i;
            }
        }
        d = h->bins[at].y + h->bins[at + 1].y;
        bin = &h->bins[at];
        bin->x *= bin->y / d;
        bin->x += h->bins[at + 1].x / d * h->bins[at + 1].y;
        bin->y = d;
        memmove(&h->bins[at + 1], &h->bins[at + 2], (size_t)(h->used - at - 2) * sizeof(hist_bin));
        h->used--;
    }
}

/* NumericHistogram.add: the value's bin found by binary search, counted there where its centre
 * equals the value, else a new bin there, trimmed back to nbins. */
static void hist_add(numeric_histogram *h, double v) {
    int64_t bin = 0, l = 0, r = h->used;
    while (l < r) {
        bin = (l + r) / 2;
        if (h->bins[bin].x > v) {
            r = bin;
        } else if (h->bins[bin].x < v) {
            l = ++bin;
        } else {
            break;
        }
    }
    if (bin < h->used && h->bins[bin].x == v) {
        h->bins[bin].y++;
        return;
    }
    memmove(&h->bins[bin + 1], &h->bins[bin], (size_t)(h->used - bin) * sizeof(hist_bin));
    h->bins[bin].x = v;
    h->bins[bin].y = 1;
    if (++h->used > h->nbins) hist_trim(h);
}

/* Double.compare's order (-0.0 before 0.0, NaN last), as a key. */
static int hist_before(double a, double b) { return java_order_key(a) < java_order_key(b); }

/* NumericHistogram.merge(other): a copy of other into an empty histogram; else both histograms'
 * bins sorted stably by x (Collections.sort), trimmed with this histogram's generator. */
static void hist_merge(numeric_histogram *h, const numeric_histogram *other) {
    int64_t i, total;
    if (h->nbins == 0 || h->used == 0) {
        h->nbins = other->nbins;
        h->used = other->used;
        memcpy(h->bins, other->bins, (size_t)other->used * sizeof(hist_bin));
        return;
    }
    total = h->used + other->used;
    memcpy(&h->bins[h->used], other->bins, (size_t)other->used * sizeof(hist_bin));
    for (i = 1; i < total; i++) { /* a stable insertion sort: both halves are sorted already */
        hist_bin moved = h->bins[i];
        int64_t at = i;
        while (at > 0 && hist_before(moved.x, h->bins[at - 1].x)) {
            h->bins[at] = h->bins[at - 1];
            at--;
        }
        h->bins[at] = moved;
    }
    h->used = total;
    hist_trim(h);
}

static void hist_fill(numeric_histogram *h, int64_t nbins, const double *x, int64_t begin, int64_t end) {
    hist_reset(h, nbins);
    for (int64_t k = begin; k < end; k++) hist_add(h, x[k]);
}

int64_t spark_histogram_numeric_column(const int64_t *offsets, const uint8_t *valid, int64_t length, const double *x,
                                       const int64_t *before, const int64_t *tasks, int64_t nbins, double *out, uint8_t *out_valid) {
    int64_t i, k, nulls = 0, stride = 2 * nbins + 1;
    numeric_histogram h, other;
    const numeric_histogram *result;
    if (nbins < 2) return -1;
    h.bins = malloc((size_t)(2 * nbins + 2) * sizeof(hist_bin));
    other.bins = malloc((size_t)(2 * nbins + 2) * sizeof(hist_bin));
    if (h.bins == NULL || other.bins == NULL) {
        free(h.bins), free(other.bins);
        return -2;
    }
    for (i = 0; i < length; i++) {
        int64_t begin = offsets[i], end = valid[i] ? offsets[i + 1] : offsets[i];
        int64_t cut = before != NULL && before[i] >= 0 && before[i] < end - begin ? begin + before[i] : end;
        if (begin < end && run_end(tasks, begin, end) < end) {
            /* several tasks: the final aggregation's new buffer copies the first task's bins (its
             * generator untouched), then merges each later task's in task order */
            int64_t start, stop = run_end(tasks, begin, end);
            hist_fill(&other, nbins, x, begin, stop);
            hist_reset(&h, nbins);
            hist_merge(&h, &other);
            for (start = stop; start < end; start = stop) {
                stop = run_end(tasks, start, end);
                hist_fill(&other, nbins, x, start, stop);
                hist_merge(&h, &other);
            }
            result = &h;
        } else if (cut == begin || cut == end) {
            hist_fill(&h, nbins, x, begin, end);
            result = &h;
        } else {
            /* past the hash aggregation's fallback: a new buffer takes the later values, then
             * merges the buffer of the earlier ones (SortBasedAggregator) */
            hist_fill(&other, nbins, x, begin, cut);
            hist_fill(&h, nbins, x, cut, end);
            hist_merge(&h, &other);
            result = &h;
        }
        out_valid[i] = result->used > 0;
        nulls += !out_valid[i];
        out[i * stride] = (double)result->used;
        for (k = 0; k < result->used; k++) {
            out[i * stride + 1 + 2 * k] = result->bins[k].x;
            out[i * stride + 2 + 2 * k] = result->bins[k].y;
        }
        for (k = 1 + 2 * result->used; k < stride; k++) out[i * stride + k] = 0.0;
    }
    free(h.bins), free(other.bins);
    return nulls;
}
