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
    """Return the session time zone ``name`` names, as Spark accepts it: an IANA region as
    given, a fixed offset (``+05:30``, ``UTC+05:30``, ``-8``, ``Z``) as its offset id, one of
    Java's short ids (``PST``) as its region; else raise a vpush error.

    Example:
        >>> check_time_zone("Europe/Paris"), check_time_zone("+5:30"), check_time_zone("PST")
        ('Europe/Paris', '+05:30', 'America/Los_Angeles')
    """
    from vpush.codec.errors import CodecError
    from vpush.codec.java_format import offset_id, resolve_time_zone

    if _valid(name):
        return name
    try:
        zone = resolve_time_zone(name)
    except CodecError:
        raise VpushError(
            f"unknown time zone {name!r}; use an IANA name such as 'UTC' or 'Europe/Paris', or an offset such as '+05:30'"
        ) from None
    return offset_id(zone) if isinstance(zone, int) else zone.key
