/* Java's StrictMath functions in C (codec/strict_math.c), and Spark's math over Arrow columns. */
#ifndef VPUSH_STRICT_MATH_H
#define VPUSH_STRICT_MATH_H

#include <stdint.h>

double strict_log(double x);
double strict_log10(double x);
double strict_log1p(double x);
double strict_exp(double x);
double strict_expm1(double x);
double strict_sinh(double x);
double strict_cosh(double x);
double strict_tanh(double x);
double strict_cbrt(double x);
double strict_pow(double x, double y);
double strict_asin(double x);
double strict_acos(double x);
double strict_atan(double x);
double strict_atan2(double y, double x);
double strict_hypot(double x, double y);

/* One Arrow double array: its values and validity buffers (validity NULL: no nulls) and offset. */
typedef struct {
    const double *values;
    const uint8_t *validity;
    int64_t offset;
} StrictColumn;

/* 1 or 2: the number of arguments of Spark's function `name`; 0: not one of them. */
int strict_math_arity(const char *name);

/* Spark's `name` of every row into out and out_validity (length doubles and (length+7)/8 bytes);
 * y is the second argument of a function of two (log with a base, pow), else NULL. Returns the
 * number of NULL results, or -1 for an unknown name. Touches no Python state (runs without the GIL). */
int64_t strict_math_column(const char *name, const StrictColumn *x, const StrictColumn *y, int64_t length,
                           double *out, uint8_t *out_validity);

#endif
