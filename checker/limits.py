"""Limits on what the checker accepts, in one place (the README's "Limits" section lists
them). Past them the input is refused with a clear, located message, so no input can make
the checker hang, exhaust memory or recurse without end."""

import math

# A spec or query file.
MAX_FILE_BYTES = 1_000_000  # bytes of one file (the largest bundled spec is about 40 KB)
MAX_NAME_LENGTH = 200  # characters of one name
MAX_INT = 1_000_000  # any number written in a spec or query
MAX_NESTING = 64  # brackets ( and { inside one another, counted before parsing
MAX_DEPTH = 100  # levels of the parse tree: expressions and effects inside one another,
#                  with or without brackets (`not not …`, `if … then if …`)
MAX_PLAYERS = 60  # players in a composition

# The search.
MAX_BOUND = 20  # rounds `check --bound` searches
MAX_WITHIN = 20  # rounds an open question (`can … within N`) searches, as --bound at most
MAX_TIMEOUT = 86_400.0  # seconds per solver question: a day; past it a timeout is no safety net
MIN_TIMEOUT = 0.001  # Z3 counts milliseconds and reads 0 as "no limit": never round down to it
MAX_RLIMIT = 2**32 - 1  # Z3 keeps the resource limit in an unsigned 32-bit integer


def timeout_problem(seconds: float) -> str | None:
    """Why `seconds` is not a usable solver timeout (nan, inf, 1e308, 0, negative), or None."""
    if not math.isfinite(seconds) or not MIN_TIMEOUT <= seconds <= MAX_TIMEOUT:
        return f"must be a number of seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}"
    return None


def rlimit_problem(rlimit: int) -> str | None:
    """Why `rlimit` is not a usable solver resource limit, or None."""
    if not 1 <= rlimit <= MAX_RLIMIT:
        return f"must be a whole number from 1 to {MAX_RLIMIT}"
    return None
