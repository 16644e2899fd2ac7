/* Spark's conv (codec/spark_conv.c). */
#ifndef VPUSH_SPARK_CONV_H
#define VPUSH_SPARK_CONV_H

#include <stdint.h>

#define SPARK_CONV_NULL (-1)
#define SPARK_CONV_OVERFLOW (-2)
#define SPARK_CONV_MAX_OUTPUT 65

/* conv of the `length` bytes of `text` from from_base to to_base into out (room for
 * SPARK_CONV_MAX_OUTPUT bytes): the length written, SPARK_CONV_NULL where Spark's answer is NULL,
 * or SPARK_CONV_OVERFLOW where Spark raises ARITHMETIC_OVERFLOW. */
int spark_conv(const uint8_t *text, int64_t length, int from_base, int to_base, uint8_t *out);

#endif
