"""Limits on what a spec may contain. Past them the input is refused with a clear message,
so no input can make the checker hang or exhaust memory."""

import math

MAX_FILE_BYTES = 1_000_000
MAX_NAME_LENGTH = 200
MAX_INT = 1_000_000
MAX_NESTING = 64
MAX_PLAYERS = 60
MAX_WITHIN = 20  # rounds an open question (`can … within N`) searches, as --bound at most
MAX_DEPTH = 100  # levels of the parse tree: expressions and effects inside one another
MAX_TIMEOUT = 86_400.0  # seconds per solver question: a day; past it a timeout is no safety net
MIN_TIMEOUT = 0.001  # Z3 counts milliseconds and reads 0 as "no limit": never round down to it
MAX_RLIMIT = 2**32 - 1  # Z3 keeps the resource limit in an unsigned 32-bit integer


def timeout_problem(seconds: float) -> str | None:
    """Why `seconds` is not a usable solver timeout (nan, inf, 1e308, 0, negative), or None."""
    if not math.isfinite(seconds) or not MIN_TIMEOUT <= seconds <= MAX_TIMEOUT:
        return f"must be a number of seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}"
    return None


def rlimit_problem(rlimit: int) -> str | None:
    if not 1 <= rlimit <= MAX_RLIMIT:
        return f"must be a whole number from 1 to {MAX_RLIMIT}"
    return None
