"""The machine's time zone, as an IANA name: vpush's session time zone unless a user sets one.

Spark takes its default session time zone from the JVM, which reads ``TZ`` and then the system
setting; vpush follows the same order so that both agree on one machine.
"""
from __future__ import annotations

import os
import zoneinfo

from vpush.codec.errors import VpushError


def local_time_zone() -> str:
    """The IANA name of the machine's time zone (``UTC`` when none can be found).

    Example:
        >>> isinstance(local_time_zone(), str)
        True
    """
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and _valid(tz):
        return tz
    try:
        target = os.path.realpath("/etc/localtime")
        marker = "zoneinfo" + os.sep
        if marker in target:
            name = target.split(marker, 1)[1]
            if _valid(name):
                return name
    except OSError:
        pass
    try:
        with open("/etc/timezone", encoding="utf-8") as fh:
            name = fh.read().strip()
        if _valid(name):
            return name
    except OSError:
        pass
    return "UTC"


def _valid(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def check_time_zone(name: str) -> str:
    """Return ``name`` if it is a known IANA time zone, else raise a vpush error.

    Example:
        >>> check_time_zone("Europe/Paris")
        'Europe/Paris'
    """
    if not _valid(name):
        raise VpushError(f"unknown time zone {name!r}; use an IANA name such as 'UTC' or 'Europe/Paris'")
    return name
