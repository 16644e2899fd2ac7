"""Declares the compiled extension only; the project's metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "vpush.codec._native",
            ["codec/_native.c", "codec/strict_math.c", "codec/spark_datetime.c", "codec/spark_datetime_format.c",
             "codec/json_path.c", "codec/spark_url.c", "codec/from_json.c", "codec/spark_hash.c", "codec/spark_conv.c", "codec/spark_number_format.c",
             "codec/spark_hll.c", "codec/spark_aggregates.c"],
            depends=["codec/strict_math.h", "codec/spark_datetime.h", "codec/spark_datetime_format.h", "codec/json_path.h", "codec/spark_url.h", "codec/json_reader.h", "codec/from_json.h",
                     "codec/spark_hash.h", "codec/spark_conv.h", "codec/spark_number_format.h", "codec/spark_hll.h",
                     "codec/spark_hll_tables.h", "codec/spark_aggregates.h"],
            # No fused multiply-add: Java's StrictMath rounds every product (codec/strict_math.c).
            extra_compile_args=["-O2", "-ffp-contract=off"],
        )
    ],
)
