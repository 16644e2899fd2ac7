"""Seeded doubles that reach every branch of fdlibm's math, for tests against Spark's functions."""

from __future__ import annotations

import math
import random
import struct

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, 10.0, 0.5, math.e, float("inf"), float("-inf"), float("nan"), 5e-324,
           2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, -5e-324,
           709.782712893384, 709.7827128933841, -745.1332191019411, -745.1332191019412, 709.0, 710.0,
           -708.3964185322641, -746.0, 22.0, 0.34657359027997264, 1e-300, 1e300, -0.2929, 0.41422, -0.999999]
"""Zeros, infinities, NaN, the extremes, exp's overflow and underflow thresholds, and the
boundaries of fdlibm's argument reductions."""


def _bits(rng: random.Random) -> float:
    return struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]  # type: ignore[no-any-return]


def seeded_doubles(seed: int, scale: int = 1) -> tuple[list[float], list[float]]:
    """The x and y of every row (``scale`` times the base counts of each kind of x): random bit
    patterns, subnormals, values near 1, near exp's thresholds, moderate and tiny values, positive
    values over the whole exponent range, negatives, then every special x with every special y;
    y is in turn random bits, an integer, moderate, huge or special (pow's cases)."""
    rng = random.Random(seed)
    xs: list[float] = []
    xs += [_bits(rng) for _ in range(4000 * scale)]
    xs += [struct.unpack("<d", rng.getrandbits(52).to_bytes(8, "little"))[0] for _ in range(500 * scale)]
    xs += [1.0 + rng.uniform(-1e-6, 1e-6) for _ in range(1000 * scale)] + [rng.uniform(0.5, 2.0) for _ in range(1000 * scale)]
    xs += [rng.uniform(700.0, 710.0) for _ in range(500 * scale)] + [rng.uniform(-750.0, -700.0) for _ in range(500 * scale)]
    xs += [rng.uniform(-40.0, 40.0) for _ in range(1000 * scale)] + [rng.uniform(-1.0, 1.0) * 1e-8 for _ in range(300 * scale)]
    xs += [math.exp(rng.uniform(-700.0, 700.0)) for _ in range(1000 * scale)]
    xs += [-math.exp(rng.uniform(-5.0, 5.0)) for _ in range(500 * scale)]
    ys: list[float] = []
    for k in range(len(xs)):
        kind = k % 5
        ys.append(_bits(rng) if kind == 0 else float(rng.randint(-300, 300)) if kind == 1
                  else rng.uniform(-20.0, 20.0) if kind == 2 else rng.uniform(-1e12, 1e12) if kind == 3
                  else rng.choice(SPECIAL))
    xs += [x for x in SPECIAL for _ in SPECIAL]
    ys += [y for _ in SPECIAL for y in SPECIAL]
    return xs, ys
