/* Java's StrictMath in C, bit for bit: the functions Spark computes its transcendental math with.
 *
 * Spark 4.3 evaluates ln, log, log10, log2, exp, pow, expm1 and log1p with java.lang.StrictMath,
 * and sinh, cosh, tanh and cbrt with java.lang.Math, which on Java 17 hands them to StrictMath.
 * StrictMath is specified as the algorithms of fdlibm 5.3 ("Freely Distributable Math Library"),
 * evaluated in IEEE double arithmetic; the C library's libm is free to round otherwise, so
 * DuckDB's answers can differ from Spark's in the last bit. Each function below follows the
 * fdlibm algorithm step by step (the same argument reduction, the same polynomial coefficients,
 * the same order of operations), so that every intermediate rounds exactly as in Java.
 *
 * Two things keep the arithmetic Java's: the file is compiled with -ffp-contract=off (a fused
 * multiply-add would skip a rounding that Java performs), and only SSE2-style double arithmetic
 * is assumed (no x87 extended precision; every supported 64-bit target qualifies).
 *
 * Java's int arithmetic wraps and its `>>` is arithmetic; the word manipulations below use
 * int32_t with the same meaning, and shift negative values left only through uint32_t.
 *
 * strict_math_column() applies one function to an Arrow double array (or two, for log with a
 * base and pow), with Spark's NULL results: a logarithm of a number at or below its asymptote
 * (0 for ln, log, log10 and log2, -1 for log1p) is NULL, not NaN or -Infinity.
 */
#include "strict_math.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- the two 32-bit halves of a double (fdlibm's __HI and __LO) ---------------------------- */
static inline int32_t hi_word(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (int32_t)(uint32_t)(bits >> 32);
}

static inline uint32_t lo_word(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (uint32_t)bits;
}

static inline double from_words(int32_t hi, uint32_t lo) {
    uint64_t bits = ((uint64_t)(uint32_t)hi << 32) | lo;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static inline double with_hi(double x, int32_t hi) { return from_words(hi, lo_word(x)); }
static inline double with_lo(double x, uint32_t lo) { return from_words(hi_word(x), lo); }

/* k << 20 and a + b as Java computes them for any int (wrapping; in C, shifting a negative value
 * or overflowing a signed sum is undefined). */
static inline int32_t exponent_bits(int32_t k) { return (int32_t)((uint32_t)k << 20); }
static inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

#define SIGN_BIT ((int32_t)0x80000000)
#define EXP_BITS 0x7ff00000
#define EXP_SIGNIF_BITS 0x7fffffff

static const double TWO54 = 0x1.0p54;
static const double HUGE_VALUE = 1.0e300;
static const double TINY_VALUE = 1.0e-300;

/* ---- log ----------------------------------------------------------------------------------- */
/* x = 2^k * (1+f) with sqrt(2)/2 < 1+f < sqrt(2); log(1+f) from s = f/(2+f) and a degree-14
 * polynomial in s; log(x) = k*ln2_hi + (log(1+f) + k*ln2_lo). */
static const double LN2_HI = 0x1.62e42feep-1;
static const double LN2_LO = 0x1.a39ef35793c76p-33;
static const double LG1 = 0x1.5555555555593p-1;
static const double LG2 = 0x1.999999997fa04p-2;
static const double LG3 = 0x1.2492494229359p-2;
static const double LG4 = 0x1.c71c51d8e78afp-3;
static const double LG5 = 0x1.7466496cb03dep-3;
static const double LG6 = 0x1.39a09d078c69fp-3;
static const double LG7 = 0x1.2f112df3e5244p-3;

double strict_log(double x) {
    double hfsq, f, s, z, r, w, t1, t2, dk;
    int32_t k = 0, hx = hi_word(x), i, j;
    uint32_t lx = lo_word(x);

    if (hx < 0x00100000) { /* below 2^-1022: zero, negative or subnormal */
        if (((hx & EXP_SIGNIF_BITS) | (int32_t)lx) == 0) return -INFINITY;
        if (hx < 0) return NAN;
        k -= 54;
        x *= TWO54;
        hx = hi_word(x);
    }
    if (hx >= EXP_BITS) return x + x;
    k += (hx >> 20) - 1023;
    hx &= 0x000fffff;
    i = (hx + 0x95f64) & 0x100000;
    x = with_hi(x, hx | (i ^ 0x3ff00000)); /* x or x/2, into [sqrt(2)/2, sqrt(2)) */
    k += i >> 20;
    f = x - 1.0;
    if ((0x000fffff & (2 + hx)) < 3) { /* |f| < 2^-20 */
        if (f == 0.0) {
            if (k == 0) return 0.0;
            dk = (double)k;
            return dk * LN2_HI + dk * LN2_LO;
        }
        r = f * f * (0.5 - 0.33333333333333333 * f);
        if (k == 0) return f - r;
        dk = (double)k;
        return dk * LN2_HI - ((r - dk * LN2_LO) - f);
    }
    s = f / (2.0 + f);
    dk = (double)k;
    z = s * s;
    i = hx - 0x6147a;
    w = z * z;
    j = 0x6b851 - hx;
    t1 = w * (LG2 + w * (LG4 + w * LG6));
    t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    i |= j;
    r = t2 + t1;
    if (i > 0) {
        hfsq = 0.5 * f * f;
        if (k == 0) return f - (hfsq - s * (hfsq + r));
        return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
    }
    if (k == 0) return f - s * (f - r);
    return dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f);
}

/* ---- log10 --------------------------------------------------------------------------------- */
/* n = ilogb(x) (plus one when negative), log10(x) = n*log10_2hi + (n*log10_2lo + log(x/2^n)/ln10). */
static const double IVLN10 = 0x1.bcb7b1526e50ep-2;
static const double LOG10_2HI = 0x1.34413509f6p-2;
static const double LOG10_2LO = 0x1.9fef311f12b36p-42;

double strict_log10(double x) {
    double y, z;
    int32_t i, k = 0, hx = hi_word(x);
    uint32_t lx = lo_word(x);

    if (hx < 0x00100000) {
        if (((hx & EXP_SIGNIF_BITS) | (int32_t)lx) == 0) return -INFINITY;
        if (hx < 0) return NAN;
        k -= 54;
        x *= TWO54;
        hx = hi_word(x);
    }
    if (hx >= EXP_BITS) return x + x;
    k += (hx >> 20) - 1023;
    i = (int32_t)(((uint32_t)k & 0x80000000u) >> 31);
    hx = (hx & 0x000fffff) | exponent_bits(0x3ff - i);
    y = (double)(k + i);
    x = with_hi(x, hx);
    z = y * LOG10_2LO + IVLN10 * strict_log(x);
    return z + y * LOG10_2HI;
}

/* ---- log1p --------------------------------------------------------------------------------- */
/* As log, on 1+x = 2^k * (1+f), with a correction c/u for the rounding of u = 1+x. */
double strict_log1p(double x) {
    double hfsq, f = 0.0, c = 0.0, s, z, r, u;
    int32_t k = 1, hx = hi_word(x), hu = 0, ax = hx & EXP_SIGNIF_BITS;

    if (hx < 0x3fda827a) { /* x < 0.41422 */
        if (ax >= 0x3ff00000) { /* x <= -1.0 */
            return x == -1.0 ? -INFINITY : NAN;
        }
        if (ax < 0x3e200000) { /* |x| < 2^-29 */
            if (TWO54 + x > 0.0 && ax < 0x3c900000) return x;
            return x - x * x * 0.5;
        }
        if (hx > 0 || hx <= (int32_t)0xbfd2bec3) { /* -0.2929 < x < 0.41422 */
            k = 0;
            f = x;
            hu = 1;
        }
    }
    if (hx >= EXP_BITS) return x + x;
    if (k != 0) {
        if (hx < 0x43400000) {
            u = 1.0 + x;
            hu = hi_word(u);
            k = (hu >> 20) - 1023;
            c = (k > 0) ? 1.0 - (u - x) : x - (u - 1.0);
            c /= u;
        } else {
            u = x;
            hu = hi_word(u);
            k = (hu >> 20) - 1023;
            c = 0;
        }
        hu &= 0x000fffff;
        if (hu < 0x6a09e) {
            u = with_hi(u, hu | 0x3ff00000);
        } else {
            k += 1;
            u = with_hi(u, hu | 0x3fe00000);
            hu = (0x00100000 - hu) >> 2;
        }
        f = u - 1.0;
    }
    hfsq = 0.5 * f * f;
    if (hu == 0) { /* |f| < 2^-20 */
        if (f == 0.0) {
            if (k == 0) return 0.0;
            c += k * LN2_LO;
            return k * LN2_HI + c;
        }
        r = hfsq * (1.0 - 0.66666666666666666 * f);
        if (k == 0) return f - r;
        return k * LN2_HI - ((r - (k * LN2_LO + c)) - f);
    }
    s = f / (2.0 + f);
    z = s * s;
    r = z * (LG1 + z * (LG2 + z * (LG3 + z * (LG4 + z * (LG5 + z * (LG6 + z * LG7))))));
    if (k == 0) return f - (hfsq - s * (hfsq + r));
    return k * LN2_HI - ((hfsq - (s * (hfsq + r) + (k * LN2_LO + c))) - f);
}

/* ---- exp ----------------------------------------------------------------------------------- */
/* x = k*ln2 + r with |r| <= ln2/2; exp(r) from a degree-5 rational approximation; 2^k * exp(r). */
static const double EXP_O_THRESHOLD = 0x1.62e42fefa39efp9;
static const double EXP_U_THRESHOLD = -0x1.74910d52d3051p9;
static const double TWOM1000 = 0x1.0p-1000;
static const double INVLN2 = 0x1.71547652b82fep0;
static const double P1 = 0x1.555555555553ep-3;
static const double P2 = -0x1.6c16c16bebd93p-9;
static const double P3 = 0x1.1566aaf25de2cp-14;
static const double P4 = -0x1.bbd41c5d26bf1p-20;
static const double P5 = 0x1.6376972bea4d0p-25;

double strict_exp(double x) {
    double y, hi = 0.0, lo = 0.0, c, t;
    int32_t k = 0, hx = hi_word(x), xsb;

    xsb = (hx >> 31) & 1;
    hx &= EXP_SIGNIF_BITS;
    if (hx >= 0x40862e42) { /* |x| >= 709.78... */
        if (hx >= EXP_BITS) {
            if (((hx & 0xfffff) | (int32_t)lo_word(x)) != 0) return x + x; /* NaN */
            return xsb == 0 ? x : 0.0;
        }
        if (x > EXP_O_THRESHOLD) return INFINITY;
        if (x < EXP_U_THRESHOLD) return 0.0;
    }
    if (hx > 0x3fd62e42) { /* |x| > ln2/2 */
        if (hx < 0x3ff0a2b2) { /* and |x| < 1.5 ln2 */
            hi = x - LN2_HI * (1 - 2 * xsb);
            lo = xsb == 0 ? LN2_LO : -LN2_LO;
            k = 1 - xsb - xsb;
        } else {
            k = (int32_t)(INVLN2 * x + 0.5 * (1 - 2 * xsb));
            t = k;
            hi = x - t * LN2_HI; /* exact */
            lo = t * LN2_LO;
        }
        x = hi - lo;
    } else if (hx < 0x3e300000) { /* |x| < 2^-28 */
        return 1.0 + x;
    }
    t = x * x;
    c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    if (k == 0) return 1.0 - ((x * c) / (c - 2.0) - x);
    y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi);
    if (k >= -1021) return with_hi(y, wrap_add(hi_word(y), exponent_bits(k)));
    y = with_hi(y, wrap_add(hi_word(y), exponent_bits(k + 1000)));
    return y * TWOM1000;
}

/* ---- expm1 --------------------------------------------------------------------------------- */
/* exp(x) - 1 without cancellation: the reduction of exp with a correction term, and a rational
 * approximation of r*(exp(r)+1)/(exp(r)-1) in scaled coefficients Q1..Q5. */
static const double Q1 = -0x1.11111111110f4p-5;
static const double Q2 = 0x1.a01a019fe5585p-10;
static const double Q3 = -0x1.4ce199eaadbb7p-14;
static const double Q4 = 0x1.0cfca86e65239p-18;
static const double Q5 = -0x1.afdb76e09c32dp-23;

double strict_expm1(double x) {
    double y, hi, lo, c = 0.0, t, e, hxs, hfx, r1;
    int32_t k, xsb, hx = hi_word(x);

    xsb = hx & SIGN_BIT;
    hx &= EXP_SIGNIF_BITS;
    if (hx >= 0x4043687a) { /* |x| >= 56*ln2 */
        if (hx >= 0x40862e42) { /* |x| >= 709.78... */
            if (hx >= EXP_BITS) {
                if (((hx & 0xfffff) | (int32_t)lo_word(x)) != 0) return x + x;
                return xsb == 0 ? x : -1.0;
            }
            if (x > EXP_O_THRESHOLD) return INFINITY;
        }
        if (xsb != 0) { /* x < -56*ln2 */
            if (x + TINY_VALUE < 0.0) return TINY_VALUE - 1.0;
        }
    }
    if (hx > 0x3fd62e42) { /* |x| > ln2/2 */
        if (hx < 0x3ff0a2b2) {
            if (xsb == 0) {
                hi = x - LN2_HI;
                lo = LN2_LO;
                k = 1;
            } else {
                hi = x + LN2_HI;
                lo = -LN2_LO;
                k = -1;
            }
        } else {
            k = (int32_t)(INVLN2 * x + ((xsb == 0) ? 0.5 : -0.5));
            t = k;
            hi = x - t * LN2_HI;
            lo = t * LN2_LO;
        }
        x = hi - lo;
        c = (hi - x) - lo;
    } else if (hx < 0x3c900000) { /* |x| < 2^-54 */
        t = HUGE_VALUE + x;
        return x - (t - (HUGE_VALUE + x));
    } else {
        k = 0;
    }
    hfx = 0.5 * x;
    hxs = x * hfx;
    r1 = 1.0 + hxs * (Q1 + hxs * (Q2 + hxs * (Q3 + hxs * (Q4 + hxs * Q5))));
    t = 3.0 - r1 * hfx;
    e = hxs * ((r1 - t) / (6.0 - x * t));
    if (k == 0) return x - (x * e - hxs);
    e = (x * (e - c) - c);
    e -= hxs;
    if (k == -1) return 0.5 * (x - e) - 0.5;
    if (k == 1) {
        if (x < -0.25) return -2.0 * (e - (x + 0.5));
        return 1.0 + 2.0 * (x - e);
    }
    if (k <= -2 || k > 56) {
        y = 1.0 - (e - x);
        y = with_hi(y, wrap_add(hi_word(y), exponent_bits(k)));
        return y - 1.0;
    }
    t = 1.0;
    if (k < 20) {
        t = with_hi(t, 0x3ff00000 - (0x200000 >> k)); /* 1 - 2^-k */
        y = t - (e - x);
        y = with_hi(y, wrap_add(hi_word(y), exponent_bits(k)));
    } else {
        t = with_hi(t, exponent_bits(0x3ff - k)); /* 2^-k */
        y = x - (e + t);
        y += 1.0;
        y = with_hi(y, wrap_add(hi_word(y), exponent_bits(k)));
    }
    return y;
}

/* ---- sinh, cosh, tanh ---------------------------------------------------------------------- */
static const double SHUGE = 1.0e307;

double strict_sinh(double x) {
    double t, w, h;
    int32_t jx = hi_word(x), ix = jx & EXP_SIGNIF_BITS;
    uint32_t lx;

    if (ix >= EXP_BITS) return x + x;
    h = jx < 0 ? -0.5 : 0.5;
    if (ix < 0x40360000) { /* |x| < 22 */
        if (ix < 0x3e300000 && SHUGE + x > 1.0) return x; /* |x| < 2^-28 */
        t = strict_expm1(fabs(x));
        if (ix < 0x3ff00000) return h * (2.0 * t - t * t / (t + 1.0));
        return h * (t + t / (t + 1.0));
    }
    if (ix < 0x40862e42) return h * strict_exp(fabs(x)); /* |x| below log(MAX_VALUE) */
    lx = lo_word(x);
    if (ix < 0x408633ce || (ix == 0x408633ce && lx <= 0x8fb9f87du)) {
        w = strict_exp(0.5 * fabs(x));
        t = h * w;
        return t * w;
    }
    return x * SHUGE; /* overflow */
}

double strict_cosh(double x) {
    double t, w;
    int32_t ix = hi_word(x) & EXP_SIGNIF_BITS;
    uint32_t lx;

    if (ix >= EXP_BITS) return x * x;
    if (ix < 0x3fd62e43) { /* |x| < ln2/2 */
        t = strict_expm1(fabs(x));
        w = 1.0 + t;
        if (ix < 0x3c800000) return w;
        return 1.0 + (t * t) / (w + w);
    }
    if (ix < 0x40360000) { /* |x| < 22 */
        t = strict_exp(fabs(x));
        return 0.5 * t + 0.5 / t;
    }
    if (ix < 0x40862e42) return 0.5 * strict_exp(fabs(x));
    lx = lo_word(x);
    if (ix < 0x408633ce || (ix == 0x408633ce && lx <= 0x8fb9f87du)) {
        w = strict_exp(0.5 * fabs(x));
        t = 0.5 * w;
        return t * w;
    }
    return INFINITY;
}

double strict_tanh(double x) {
    double t, z;
    int32_t jx = hi_word(x), ix = jx & EXP_SIGNIF_BITS;

    if (ix >= EXP_BITS) return jx >= 0 ? 1.0 / x + 1.0 : 1.0 / x - 1.0; /* +-1, or NaN */
    if (ix < 0x40360000) { /* |x| < 22 */
        if (ix < 0x3c800000) return x * (1.0 + x); /* |x| < 2^-55 */
        if (ix >= 0x3ff00000) { /* |x| >= 1 */
            t = strict_expm1(2.0 * fabs(x));
            z = 1.0 - 2.0 / (t + 2.0);
        } else {
            t = strict_expm1(-2.0 * fabs(x));
            z = -t / (t + 2.0);
        }
    } else {
        z = 1.0 - TINY_VALUE;
    }
    return jx >= 0 ? z : -z;
}

/* ---- cbrt ---------------------------------------------------------------------------------- */
/* A 5-bit guess from the exponent, a rational step to 23 bits, then one Newton step. */
static const int32_t CBRT_B1 = 715094163; /* (682 - 0.03306235651) * 2^20 */
static const int32_t CBRT_B2 = 696219795; /* (664 - 0.03306235651) * 2^20 */
static const double CBRT_C = 0x1.15f15f15f15f1p-1;
static const double CBRT_D = -0x1.691de2532c834p-1;
static const double CBRT_E = 0x1.6a0ea0ea0ea0fp0;
static const double CBRT_F = 0x1.9b6db6db6db6ep0;
static const double CBRT_G = 0x1.6db6db6db6db7p-2;

double strict_cbrt(double x) {
    double t = 0.0, sign, r, s, w;

    if (x == 0.0 || !isfinite(x)) return x;
    sign = x < 0.0 ? -1.0 : 1.0;
    x = fabs(x);
    if (x < 0x1.0p-1022) { /* subnormal */
        t = 0x1.0p54;
        t *= x;
        t = with_hi(t, hi_word(t) / 3 + CBRT_B2);
    } else {
        t = with_hi(t, hi_word(x) / 3 + CBRT_B1);
    }
    r = t * t / x;
    s = CBRT_C + r * t;
    t *= CBRT_G + CBRT_F / (s + CBRT_E + CBRT_D / s);
    t = with_lo(t, 0);
    t = with_hi(t, hi_word(t) + 1);
    s = t * t;
    r = x / s;
    w = t + t;
    r = (r - t) / (w + r);
    t = t + t * r;
    return sign * t;
}

/* ---- pow ----------------------------------------------------------------------------------- */
/* x^y = 2^(y*log2(x)): log2(x) in two pieces to extra precision, y split likewise, then 2^z by
 * the exp kernel. Special cases first, in the order Java's port checks them. */
static const double POW_INV_LN2 = 0x1.71547652b82fep0;
static const double POW_INV_LN2_H = 0x1.715476p0;
static const double POW_INV_LN2_L = 0x1.4ae0bf85ddf44p-26;
static const double POW_CP = 0x1.ec709dc3a03fdp-1;
static const double POW_CP_H = 0x1.ec709ep-1;
static const double POW_CP_L = -0x1.e2fe0145b01f5p-28;
static const double POW_DP_H1 = 0x1.2b8034p-1;
static const double POW_DP_L1 = 0x1.cfdeb43cfd006p-27;
static const double POW_L1 = 0x1.3333333333303p-1;
static const double POW_L2 = 0x1.b6db6db6fabffp-2;
static const double POW_L3 = 0x1.55555518f264dp-2;
static const double POW_L4 = 0x1.17460a91d4101p-2;
static const double POW_L5 = 0x1.d864a93c9db65p-3;
static const double POW_L6 = 0x1.a7e284a454eefp-3;
static const double POW_OVT = 8.0085662595372944372e-17;
static const double POW_LG2 = 0x1.62e42fefa39efp-1;
static const double POW_LG2_H = 0x1.62e43p-1;
static const double POW_LG2_L = -0x1.05c610ca86c39p-29;

double strict_pow(double x, double y) {
    double z, r, s, t, u, v, w, p_h, p_l, t1, t2, y1;
    double y_abs, x_abs;
    int32_t i, j, k, n, hx, ix, y_is_int = 0;

    if (y == 0.0) return 1.0;
    if (isnan(x) || isnan(y)) return x + y;
    y_abs = fabs(y);
    x_abs = fabs(x);
    if (y == 2.0) {
        return x * x;
    } else if (y == 0.5) {
        if (x >= -DBL_MAX) return sqrt(x + 0.0);
    } else if (y_abs == 1.0) {
        return y == 1.0 ? x : 1.0 / x;
    } else if (y_abs == INFINITY) {
        if (x_abs == 1.0) return y - y;
        if (x_abs > 1.0) return y >= 0 ? y : 0.0;
        return y < 0 ? -y : 0.0;
    }
    hx = hi_word(x);
    ix = hx & EXP_SIGNIF_BITS;
    /* for x < 0: y_is_int 0 (not an integer), 1 (odd) or 2 (even) */
    if (hx < 0) {
        if (y_abs >= 0x1.0p53) {
            y_is_int = 2;
        } else if (y_abs >= 1.0) {
            int64_t whole = (int64_t)y_abs;
            if ((double)whole == y_abs) y_is_int = 2 - (int32_t)(whole & 1);
        }
    }
    if (x_abs == 0.0 || x_abs == INFINITY || x_abs == 1.0) {
        z = x_abs;
        if (y < 0.0) z = 1.0 / z;
        if (hx < 0) {
            if (((ix - 0x3ff00000) | y_is_int) == 0) {
                z = (z - z) / (z - z); /* (-1)^non-integer */
            } else if (y_is_int == 1) {
                z = -1.0 * z;
            }
        }
        return z;
    }
    n = (hx >> 31) + 1;
    if ((n | y_is_int) == 0) return (x - x) / (x - x); /* negative^non-integer */
    s = 1.0;
    if ((n | (y_is_int - 1)) == 0) s = -1.0; /* negative^odd */

    if (y_abs > 0x1.00000ffffffffp31) { /* |y| > ~2^31 */
        if (x_abs < 0x1.fffff00000000p-1) return y < 0.0 ? s * INFINITY : s * 0.0;
        if (x_abs > 0x1.00000ffffffffp0) return y > 0.0 ? s * INFINITY : s * 0.0;
        /* |1-x| <= 2^-20: log(x) by x - x^2/2 + x^3/3 - x^4/4 */
        t = x_abs - 1.0;
        w = (t * t) * (0.5 - t * (0.3333333333333333333333 - t * 0.25));
        u = POW_INV_LN2_H * t;
        v = t * POW_INV_LN2_L - w * POW_INV_LN2;
        t1 = u + v;
        t1 = with_lo(t1, 0);
        t2 = v - (t1 - u);
    } else {
        double z_h, z_l, ss, s2, s_h, s_l, t_h, t_l, bp_k;
        n = 0;
        if (ix < 0x00100000) { /* subnormal x */
            x_abs *= 0x1.0p53;
            n -= 53;
            ix = hi_word(x_abs);
        }
        n += (ix >> 20) - 0x3ff;
        j = ix & 0x000fffff;
        ix = j | 0x3ff00000;
        if (j <= 0x3988e) {
            k = 0; /* |x| < sqrt(3/2) */
        } else if (j < 0xbb67a) {
            k = 1; /* |x| < sqrt(3) */
        } else {
            k = 0;
            n += 1;
            ix -= 0x00100000;
        }
        x_abs = with_hi(x_abs, ix);
        bp_k = 1.0 + 0.5 * k;
        u = x_abs - bp_k;
        v = 1.0 / (x_abs + bp_k);
        ss = u * v;
        s_h = ss;
        s_h = with_lo(s_h, 0);
        t_h = 0.0;
        t_h = with_hi(t_h, ((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18));
        t_l = x_abs - (t_h - bp_k);
        s_l = v * ((u - s_h * t_h) - s_h * t_l);
        s2 = ss * ss;
        r = s2 * s2 * (POW_L1 + s2 * (POW_L2 + s2 * (POW_L3 + s2 * (POW_L4 + s2 * (POW_L5 + s2 * POW_L6)))));
        r += s_l * (s_h + ss);
        s2 = s_h * s_h;
        t_h = 3.0 + s2 + r;
        t_h = with_lo(t_h, 0);
        t_l = r - ((t_h - 3.0) - s2);
        u = s_h * t_h;
        v = s_l * t_h + t_l * ss;
        p_h = u + v;
        p_h = with_lo(p_h, 0);
        p_l = v - (p_h - u);
        z_h = POW_CP_H * p_h;
        z_l = POW_CP_L * p_h + p_l * POW_CP + POW_DP_L1 * k;
        t = (double)n;
        t1 = (((z_h + z_l) + POW_DP_H1 * k) + t);
        t1 = with_lo(t1, 0);
        t2 = z_l - (((t1 - t) - POW_DP_H1 * k) - z_h);
    }

    /* (y1 + y2) * (t1 + t2) */
    y1 = with_lo(y, 0);
    p_l = (y - y1) * t1 + y * t2;
    p_h = y1 * t1;
    z = p_l + p_h;
    j = hi_word(z);
    i = (int32_t)lo_word(z);
    if (j >= 0x40900000) { /* z >= 1024 */
        if (((j - 0x40900000) | i) != 0) return s * INFINITY;
        if (p_l + POW_OVT > z - p_h) return s * INFINITY;
    } else if ((j & EXP_SIGNIF_BITS) >= 0x4090cc00) { /* z <= -1075 */
        if (((int32_t)((uint32_t)j - 0xc090cc00u) | i) != 0) return s * 0.0;
        if (p_l <= z - p_h) return s * 0.0;
    }
    /* 2^(p_h + p_l) */
    i = j & EXP_SIGNIF_BITS;
    k = (i >> 20) - 0x3ff;
    n = 0;
    if (i > 0x3fe00000) { /* |z| > 0.5: n = [z + 0.5] */
        n = j + (0x00100000 >> (k + 1));
        k = ((n & EXP_SIGNIF_BITS) >> 20) - 0x3ff;
        t = 0.0;
        t = with_hi(t, n & ~(0x000fffff >> k));
        n = ((n & 0x000fffff) | 0x00100000) >> (20 - k);
        if (j < 0) n = -n;
        p_h -= t;
    }
    t = p_l + p_h;
    t = with_lo(t, 0);
    u = t * POW_LG2_H;
    v = (p_l - (t - p_h)) * POW_LG2 + t * POW_LG2_L;
    z = u + v;
    w = v - (z - u);
    t = z * z;
    t1 = z - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    r = (z * t1) / (t1 - 2.0) - (w + z * w);
    z = 1.0 - (r - z);
    j = hi_word(z);
    j = wrap_add(j, exponent_bits(n));
    if ((j >> 20) <= 0) {
        z = ldexp(z, n); /* subnormal result: one rounding, as Java's Math.scalb */
    } else {
        z = with_hi(z, wrap_add(hi_word(z), exponent_bits(n)));
    }
    return s * z;
}

/* ---- asin, acos ---------------------------------------------------------------------------- */
/* Near 0, x + x*R(x^2) with R a rational function; from |x| = 0.5 on, through
 * asin(x) = pi/2 - 2*asin(sqrt((1-|x|)/2)), with sqrt's low half split off for extra precision. */
static const double PIO2_HI = 0x1.921fb54442d18p+0;
static const double PIO2_LO = 0x1.1a62633145c07p-54;
static const double PIO4_HI = 0x1.921fb54442d18p-1;
static const double PI_HI = 0x1.921fb54442d18p+1;
static const double PI_LO = 0x1.1a62633145c07p-53;
static const double AS_P0 = 0x1.5555555555555p-3;
static const double AS_P1 = -0x1.4d61203eb6f7dp-2;
static const double AS_P2 = 0x1.9c1550e884455p-3;
static const double AS_P3 = -0x1.48228b5688f3bp-5;
static const double AS_P4 = 0x1.9efe07501b288p-11;
static const double AS_P5 = 0x1.23de10dfdf709p-15;
static const double AS_Q1 = -0x1.33a271c8a2d4bp+1;
static const double AS_Q2 = 0x1.02ae59c598ac8p+1;
static const double AS_Q3 = -0x1.6066c1b8d0159p-1;
static const double AS_Q4 = 0x1.3b8c5b12e9282p-4;

static inline double asin_p(double t) { return t * (AS_P0 + t * (AS_P1 + t * (AS_P2 + t * (AS_P3 + t * (AS_P4 + t * AS_P5))))); }
static inline double asin_q(double t) { return 1.0 + t * (AS_Q1 + t * (AS_Q2 + t * (AS_Q3 + t * AS_Q4))); }

double strict_asin(double x) {
    double t, w, p, q, c, r, s;
    int32_t hx = hi_word(x), ix = hx & EXP_SIGNIF_BITS;

    if (ix >= 0x3ff00000) { /* |x| >= 1 */
        if (((ix - 0x3ff00000) | (int32_t)lo_word(x)) == 0) return x * PIO2_HI + x * PIO2_LO; /* +-pi/2 */
        return (x - x) / (x - x); /* NaN */
    }
    if (ix < 0x3fe00000) { /* |x| < 0.5 */
        if (ix < 0x3e400000) return x; /* |x| < 2^-27 */
        t = x * x;
        return x + x * (asin_p(t) / asin_q(t));
    }
    w = 1.0 - fabs(x);
    t = w * 0.5;
    p = asin_p(t);
    q = asin_q(t);
    s = sqrt(t);
    if (ix >= 0x3fef3333) { /* |x| > 0.975 */
        w = p / q;
        t = PIO2_HI - (2.0 * (s + s * w) - PIO2_LO);
    } else {
        w = with_lo(s, 0);
        c = (t - w * w) / (s + w);
        r = p / q;
        p = 2.0 * s * r - (PIO2_LO - 2.0 * c);
        q = PIO4_HI - 2.0 * w;
        t = PIO4_HI - (p - q);
    }
    return hx > 0 ? t : -t;
}

double strict_acos(double x) {
    double z, r, w, s, c, df;
    int32_t hx = hi_word(x), ix = hx & EXP_SIGNIF_BITS;

    if (ix >= 0x3ff00000) { /* |x| >= 1 */
        if (((ix - 0x3ff00000) | (int32_t)lo_word(x)) == 0) return hx > 0 ? 0.0 : PI_HI + 2.0 * PIO2_LO;
        return (x - x) / (x - x); /* NaN */
    }
    if (ix < 0x3fe00000) { /* |x| < 0.5 */
        if (ix <= 0x3c600000) return PIO2_HI + PIO2_LO; /* |x| < 2^-57 */
        z = x * x;
        r = asin_p(z) / asin_q(z);
        return PIO2_HI - (x - (PIO2_LO - x * r));
    }
    if (hx < 0) { /* x < -0.5 */
        z = (1.0 + x) * 0.5;
        s = sqrt(z);
        r = asin_p(z) / asin_q(z);
        w = r * s - PIO2_LO;
        return PI_HI - 2.0 * (s + w);
    }
    z = (1.0 - x) * 0.5; /* x > 0.5 */
    s = sqrt(z);
    df = with_lo(s, 0);
    c = (z - df * df) / (s + df);
    r = asin_p(z) / asin_q(z);
    w = r * s + c;
    return 2.0 * (df + w);
}

/* ---- atan, atan2 --------------------------------------------------------------------------- */
/* |x| reduced to [0, 7/16] around 0.5, 1, 1.5 or infinity, then atan(x) = atan(c) + atan(t) with
 * atan(t) = t - t^3 * (an odd and an even polynomial in t^4). */
static const double ATAN_HI[] = {0x1.dac670561bb4fp-2, 0x1.921fb54442d18p-1, 0x1.f730bd281f69bp-1, 0x1.921fb54442d18p+0};
static const double ATAN_LO[] = {0x1.a2b7f222f65e2p-56, 0x1.1a62633145c07p-55, 0x1.007887af0cbbdp-56, 0x1.1a62633145c07p-54};
static const double ATAN_T[] = {
    0x1.555555555550dp-2, -0x1.999999998ebc4p-3, 0x1.24924920083ffp-3, -0x1.c71c6fe231671p-4,
    0x1.745cdc54c206ep-4, -0x1.3b0f2af749a6dp-4, 0x1.10d66a0d03d51p-4, -0x1.dde2d52defd9ap-5,
    0x1.97b4b24760debp-5, -0x1.2b4442c6a6c2fp-5, 0x1.0ad3ae322da11p-6,
};

double strict_atan(double x) {
    double w, s1, s2, z;
    int32_t hx = hi_word(x), ix = hx & EXP_SIGNIF_BITS, id;

    if (ix >= 0x44100000) { /* |x| >= 2^66 */
        if (ix > EXP_BITS || (ix == EXP_BITS && lo_word(x) != 0)) return x + x; /* NaN */
        return hx > 0 ? ATAN_HI[3] + ATAN_LO[3] : -ATAN_HI[3] - ATAN_LO[3];
    }
    if (ix < 0x3fdc0000) { /* |x| < 0.4375 */
        if (ix < 0x3e200000) return x; /* |x| < 2^-29 */
        id = -1;
    } else {
        x = fabs(x);
        if (ix < 0x3ff30000) { /* |x| < 1.1875 */
            if (ix < 0x3fe60000) { /* 7/16 <= |x| < 11/16 */
                id = 0;
                x = (2.0 * x - 1.0) / (2.0 + x);
            } else { /* 11/16 <= |x| < 19/16 */
                id = 1;
                x = (x - 1.0) / (x + 1.0);
            }
        } else if (ix < 0x40038000) { /* |x| < 2.4375 */
            id = 2;
            x = (x - 1.5) / (1.0 + 1.5 * x);
        } else { /* 2.4375 <= |x| < 2^66 */
            id = 3;
            x = -1.0 / x;
        }
    }
    z = x * x;
    w = z * z;
    s1 = z * (ATAN_T[0] + w * (ATAN_T[2] + w * (ATAN_T[4] + w * (ATAN_T[6] + w * (ATAN_T[8] + w * ATAN_T[10])))));
    s2 = w * (ATAN_T[1] + w * (ATAN_T[3] + w * (ATAN_T[5] + w * (ATAN_T[7] + w * ATAN_T[9]))));
    if (id < 0) return x - x * (s1 + s2);
    z = ATAN_HI[id] - ((x * (s1 + s2) - ATAN_LO[id]) - x);
    return hx < 0 ? -z : z;
}

double strict_atan2(double y, double x) {
    double z;
    int32_t hx = hi_word(x), ix = hx & EXP_SIGNIF_BITS, hy = hi_word(y), iy = hy & EXP_SIGNIF_BITS, k, m;
    uint32_t lx = lo_word(x), ly = lo_word(y);

    if (isnan(x) || isnan(y)) return x + y;
    if (((uint32_t)wrap_add(hx, -0x3ff00000) | lx) == 0) return strict_atan(y); /* x = 1.0 */
    m = ((hy >> 31) & 1) | ((hx >> 30) & 2); /* 2 * sign(x) + sign(y) */
    if ((iy | (int32_t)ly) == 0) { /* y = 0 */
        switch (m) {
        case 0:
        case 1: return y;
        case 2: return PI_HI + TINY_VALUE;
        default: return -PI_HI - TINY_VALUE;
        }
    }
    if ((ix | (int32_t)lx) == 0) return hy < 0 ? -PIO2_HI - TINY_VALUE : PIO2_HI + TINY_VALUE; /* x = 0 */
    if (ix == EXP_BITS) { /* x infinite */
        if (iy == EXP_BITS) {
            switch (m) {
            case 0: return PIO4_HI + TINY_VALUE;
            case 1: return -PIO4_HI - TINY_VALUE;
            case 2: return 3.0 * PIO4_HI + TINY_VALUE;
            default: return -3.0 * PIO4_HI - TINY_VALUE;
            }
        }
        switch (m) {
        case 0: return 0.0;
        case 1: return -0.0;
        case 2: return PI_HI + TINY_VALUE;
        default: return -PI_HI - TINY_VALUE;
        }
    }
    if (iy == EXP_BITS) return hy < 0 ? -PIO2_HI - TINY_VALUE : PIO2_HI + TINY_VALUE; /* y infinite */
    k = (iy - ix) >> 20;
    if (k > 60) {
        z = PIO2_HI + 0.5 * PI_LO; /* |y/x| > 2^60 */
    } else if (hx < 0 && k < -60) {
        z = 0.0; /* |y|/x < -2^60 */
    } else {
        z = strict_atan(fabs(y / x));
    }
    switch (m) {
    case 0: return z;
    case 1: return -z;
    case 2: return PI_HI - (z - PI_LO);
    default: return (z - PI_LO) - PI_HI;
    }
}

/* ---- hypot --------------------------------------------------------------------------------- */
/* sqrt(a^2 + b^2) with a and b split into high and low parts so that the sum is exact enough,
 * scaled by 2^+-600 away from overflow and underflow. As Java's port (Java 9 and up), which swaps
 * by value (fdlibm's C swapped by high word) and screens infinities and NaN first. */
double strict_hypot(double x, double y) {
    double a = fabs(x), b = fabs(y), t1, t2, w, y1, y2;
    int32_t ha, hb, k = 0;

    if (!isfinite(a) || !isfinite(b)) {
        if (isinf(a) || isinf(b)) return INFINITY;
        return a + b;
    }
    if (b > a) {
        t1 = a;
        a = b;
        b = t1;
    }
    ha = hi_word(a);
    hb = hi_word(b);
    if (ha - hb > 0x3c00000) return a + b; /* a / b > 2^60 */
    if (a > 0x1.00000ffffffffp500) { /* a > ~2^500: scale both by 2^-600 */
        ha -= 0x25800000;
        hb -= 0x25800000;
        a = a * 0x1.0p-600;
        b = b * 0x1.0p-600;
        k += 600;
    }
    if (b < 0x1.0p-500) {
        if (b < DBL_MIN) { /* subnormal b or 0: ha and hb are left as they were, as in Java */
            if (b == 0.0) return a;
            b *= 0x1.0p1022;
            a *= 0x1.0p1022;
            k -= 1022;
        } else { /* scale both by 2^600 */
            ha += 0x25800000;
            hb += 0x25800000;
            a = a * 0x1.0p600;
            b = b * 0x1.0p600;
            k -= 600;
        }
    }
    w = a - b;
    if (w > b) {
        t1 = from_words(ha, 0);
        t2 = a - t1;
        w = sqrt(t1 * t1 - (b * (-b) - t2 * (a + t1)));
    } else {
        a = a + a;
        y1 = from_words(hb, 0);
        y2 = b - y1;
        t1 = from_words(ha + 0x00100000, 0);
        t2 = a - t1;
        w = sqrt(t1 * y1 - (w * (-w) - (t1 * y2 + t2 * b)));
    }
    return k != 0 ? ldexp(1.0, k) * w : w;
}

/* ---- Spark's functions over Arrow arrays --------------------------------------------------- */
static double spark_log2(double x) { return strict_log(x) / strict_log(2.0); }
static double spark_log_base(double base, double x) { return strict_log(x) / strict_log(base); }
/* Spark 4's own formulas (ExpressionImplUtils.asinh and acosh, mathExpressions.scala's atanh),
 * with StrictMath.log and log1p and Math.sqrt (exact), in Java's order of operations. */
static double spark_asinh(double x) {
    double a = fabs(x), r, t;
    if (isinf(a) || isnan(a) || a < 0x1.0p-28) {
        r = a;
    } else if (a > 0x1.0p28) {
        r = strict_log(a) + strict_log(2.0);
    } else if (a > 2.0) {
        r = strict_log(2.0 * a + 1.0 / (sqrt(x * x + 1.0) + a));
    } else {
        t = x * x;
        r = strict_log1p(a + t / (1.0 + sqrt(1.0 + t)));
    }
    return copysign(r, x);
}

static double spark_acosh(double x) {
    double t;
    if (x < 1.0) return NAN;
    if (x >= 0x1.0p28) return strict_log(x) + strict_log(2.0);
    if (x == 1.0) return 0.0;
    if (x > 2.0) return strict_log(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
    t = x - 1.0; /* and NaN */
    return strict_log1p(t + sqrt(2.0 * t + t * t));
}
static double spark_atanh(double x) { return 0.5 * (strict_log1p(x) - strict_log1p(-x)); }
/* Spark's atan2 adds 0.0 to both arguments, so that -0.0 counts as 0.0 */
static double spark_atan2(double y, double x) { return strict_atan2(y + 0.0, x + 0.0); }
/* Java 9 and up: Math.toDegrees(x) = x * RADIANS_TO_DEGREES, Math.toRadians(x) = x * DEGREES_TO_RADIANS */
static double spark_degrees(double x) { return x * 57.29577951308232; }
static double spark_radians(double x) { return x * 0.017453292519943295; }
/* Math.rint: the nearest integer, ties to even, the sign of a zero kept (IEEE's roundToIntegral
 * in the default rounding mode, which C's rint is) */
static double spark_rint(double x) { return rint(x); }

typedef struct {
    const char *name;
    double (*unary)(double);
    double (*binary)(double, double);
    int null_at_or_below; /* 1: NULL where an argument <= asymptote (Spark's UnaryLogExpression) */
    double asymptote;
} StrictFunction;

static const StrictFunction FUNCTIONS[] = {
    {"ln", strict_log, NULL, 1, 0.0},
    {"log10", strict_log10, NULL, 1, 0.0},
    {"log2", spark_log2, NULL, 1, 0.0},
    {"log1p", strict_log1p, NULL, 1, -1.0},
    {"log", NULL, spark_log_base, 1, 0.0},
    {"exp", strict_exp, NULL, 0, 0.0},
    {"expm1", strict_expm1, NULL, 0, 0.0},
    {"pow", NULL, strict_pow, 0, 0.0},
    {"sinh", strict_sinh, NULL, 0, 0.0},
    {"cosh", strict_cosh, NULL, 0, 0.0},
    {"tanh", strict_tanh, NULL, 0, 0.0},
    {"cbrt", strict_cbrt, NULL, 0, 0.0},
    {"asin", strict_asin, NULL, 0, 0.0},
    {"acos", strict_acos, NULL, 0, 0.0},
    {"atan", strict_atan, NULL, 0, 0.0},
    {"atan2", NULL, spark_atan2, 0, 0.0},
    {"hypot", NULL, strict_hypot, 0, 0.0},
    {"asinh", spark_asinh, NULL, 0, 0.0},
    {"acosh", spark_acosh, NULL, 0, 0.0},
    {"atanh", spark_atanh, NULL, 0, 0.0},
    {"degrees", spark_degrees, NULL, 0, 0.0},
    {"radians", spark_radians, NULL, 0, 0.0},
    {"rint", spark_rint, NULL, 0, 0.0},
};
#define FUNCTION_COUNT (sizeof FUNCTIONS / sizeof FUNCTIONS[0])

static const StrictFunction *find_function(const char *name) {
    size_t i;
    for (i = 0; i < FUNCTION_COUNT; i++) {
        if (strcmp(FUNCTIONS[i].name, name) == 0) return &FUNCTIONS[i];
    }
    return NULL;
}

int strict_math_arity(const char *name) {
    const StrictFunction *fn = find_function(name);
    return fn == NULL ? 0 : fn->unary != NULL ? 1 : 2;
}

static inline int bit_set(const uint8_t *bitmap, int64_t i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }

/* One function over the rows. Always inlined with a constant `fn`, so that each function gets a
 * loop of its own with a direct call (no call through a pointer per row). */
static inline __attribute__((always_inline)) int64_t run_rows(const StrictFunction *fn, const StrictColumn *x,
                                                             const StrictColumn *y, int64_t length, double *out,
                                                             uint8_t *out_validity) {
    int64_t i, null_count = 0;
    memset(out_validity, 0, (size_t)((length + 7) / 8));
    for (i = 0; i < length; i++) {
        double a = x->values[x->offset + i], b = 0.0;
        int valid = x->validity == NULL || bit_set(x->validity, x->offset + i);
        if (fn->binary != NULL) {
            b = y->values[y->offset + i];
            valid = valid && (y->validity == NULL || bit_set(y->validity, y->offset + i));
        }
        /* Spark: `if (d <= asymptote) null`, so NaN is not NULL (the comparison is false) */
        if (valid && fn->null_at_or_below && (a <= fn->asymptote || (fn->binary != NULL && b <= fn->asymptote))) {
            valid = 0;
        }
        if (!valid) {
            out[i] = 0.0;
            null_count++;
            continue;
        }
        out[i] = fn->unary != NULL ? fn->unary(a) : fn->binary(a, b);
        out_validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    return null_count;
}

int64_t strict_math_column(const char *name, const StrictColumn *x, const StrictColumn *y, int64_t length,
                           double *out, uint8_t *out_validity) {
    const StrictFunction *fn = find_function(name);
    if (fn == NULL || (fn->binary != NULL && y == NULL)) return -1;
    switch (fn - FUNCTIONS) {
    case 0: return run_rows(&FUNCTIONS[0], x, y, length, out, out_validity);
    case 1: return run_rows(&FUNCTIONS[1], x, y, length, out, out_validity);
    case 2: return run_rows(&FUNCTIONS[2], x, y, length, out, out_validity);
    case 3: return run_rows(&FUNCTIONS[3], x, y, length, out, out_validity);
    case 4: return run_rows(&FUNCTIONS[4], x, y, length, out, out_validity);
    case 5: return run_rows(&FUNCTIONS[5], x, y, length, out, out_validity);
    case 6: return run_rows(&FUNCTIONS[6], x, y, length, out, out_validity);
    case 7: return run_rows(&FUNCTIONS[7], x, y, length, out, out_validity);
    case 8: return run_rows(&FUNCTIONS[8], x, y, length, out, out_validity);
    case 9: return run_rows(&FUNCTIONS[9], x, y, length, out, out_validity);
    case 10: return run_rows(&FUNCTIONS[10], x, y, length, out, out_validity);
    case 11: return run_rows(&FUNCTIONS[11], x, y, length, out, out_validity);
    case 12: return run_rows(&FUNCTIONS[12], x, y, length, out, out_validity);
    case 13: return run_rows(&FUNCTIONS[13], x, y, length, out, out_validity);
    case 14: return run_rows(&FUNCTIONS[14], x, y, length, out, out_validity);
    case 15: return run_rows(&FUNCTIONS[15], x, y, length, out, out_validity);
    case 16: return run_rows(&FUNCTIONS[16], x, y, length, out, out_validity);
    case 17: return run_rows(&FUNCTIONS[17], x, y, length, out, out_validity);
    case 18: return run_rows(&FUNCTIONS[18], x, y, length, out, out_validity);
    case 19: return run_rows(&FUNCTIONS[19], x, y, length, out, out_validity);
    case 20: return run_rows(&FUNCTIONS[20], x, y, length, out, out_validity);
    case 21: return run_rows(&FUNCTIONS[21], x, y, length, out, out_validity);
    default: return run_rows(&FUNCTIONS[22], x, y, length, out, out_validity);
    }
}
