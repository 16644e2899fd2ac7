"""Declares the compiled extension only; the project's metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "vpush.codec._native",
            ["codec/_native.c"],
            extra_compile_args=["-O2"],
        )
    ],
)
