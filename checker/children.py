"""Child processes that are stopped with everything they started.

`mafiacheck check` runs its analyses in a pool of worker processes, forked from it: killing
the `check` alone leaves those workers solving, orphaned, for as long as their question
takes. So the servers (`lsp`, `serve`) start each child as the leader of a process group
of its own, which its workers join, and stop the whole group.

A server killed outright (SIGKILL, an editor that gives up on it) stops nothing, and a
`check` killed so leaves its workers: so on Linux each child asks the kernel to kill it when
its parent dies (`die_with_parent`): a server's child, told the server's pid in its
environment (`child_env`), and every worker of a check.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

# `start_new_session=OWN_GROUP` (Popen, create_subprocess_exec): the child leads a new
# session, hence a new process group (POSIX; elsewhere there are no groups to kill, and the
# child alone is).
OWN_GROUP: bool = os.name == "posix"


def kill_group(pid: int) -> None:
    """Kill the process group the child `pid` leads (started with OWN_GROUP): it and every
    process it started that has not left the group. Nothing happens when all are gone."""
    try:
        if os.name == "posix":
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone (a reused id is no longer in our group)


# The environment variable that tells a child which process it is to die with.
PARENT_ENV = "MAFIACHECK_PARENT"
_PR_SET_PDEATHSIG = 1  # prctl(2)


def child_env() -> dict[str, str]:
    """The environment for a child that is to die with this process (die_with_parent)."""
    return {**os.environ, PARENT_ENV: str(os.getpid())}


def die_with_parent(parent: int | None = None) -> None:
    """Be killed when `parent` (by default the pid PARENT_ENV names; none: nothing to do)
    dies. Linux only (prctl's PR_SET_PDEATHSIG); elsewhere nothing. A parent already gone
    when this is asked (its child then belongs to init) is gone for good: exit at once."""
    if parent is None:
        # Taken out of the environment: a process this one starts has another parent.
        named = os.environ.pop(PARENT_ENV, "")
        if not named.isdigit():
            return
        parent = int(named)
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return  # no prctl to ask: the servers still stop the groups they know of
    if os.getppid() != parent:
        os._exit(1)
