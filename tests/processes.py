"""The processes a test started, read from /proc (Linux): to show that a server stopped
every one of them, its children and theirs. A process is named by its id and its start
time, so that an id the system has since given to another process is not taken for it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # the fields after the command's name


def _below(pid: int) -> dict[tuple[int, str], int]:
    """(id, start time) of every living process below `pid`, with how far below it is."""
    parents: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                parents.setdefault(int(fields[1]), []).append(int(entry.name))
    out: dict[tuple[int, str], int] = {}
    todo = [(pid, 0)]
    while todo:
        parent, depth = todo.pop()
        for child in parents.get(parent, []):
            fields = _stat(child)
            if fields is not None:
                out[(child, fields[19])] = depth + 1
                todo.append((child, depth + 1))
    return out


def descendants(pid: int) -> set[tuple[int, str]]:
    """(id, start time) of every living process below `pid`."""
    return set(_below(pid))


def survivors(started: set[tuple[int, str]], wait: float = 5.0) -> list[str]:
    """Those of `started` still running after up to `wait` seconds (a zombie has ended)."""
    deadline = time.monotonic() + wait
    while True:
        left = []
        for pid, start in started:
            fields = _stat(pid)
            if fields is not None and fields[19] == start and fields[0] != "Z":
                try:
                    cmd = (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue  # gone meanwhile
                left.append(f"{pid}: {cmd.strip()}")
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def end(started: set[tuple[int, str]]) -> None:
    """Kill those of `started` still running: a failed test leaves nothing behind."""
    for pid, start in started:
        fields = _stat(pid)
        if fields is not None and fields[19] == start:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def wait_for(pid: int, depth: int, timeout: float = 60.0) -> set[tuple[int, str]]:
    """The descendants of `pid` once one runs `depth` levels below it (2: a grandchild), or
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = _below(pid)
        if max(found.values(), default=0) >= depth or time.monotonic() > deadline:
            return set(found)
        time.sleep(0.1)
