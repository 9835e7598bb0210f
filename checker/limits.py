"""Limits on what a spec may contain. Past them the input is refused with a clear message,
so no input can make the checker hang or exhaust memory."""

MAX_FILE_BYTES = 1_000_000
MAX_NAME_LENGTH = 200
MAX_INT = 1_000_000
MAX_NESTING = 64
MAX_PLAYERS = 60
