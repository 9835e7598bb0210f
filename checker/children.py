"""Child processes that are stopped with everything they started.

`mafiacheck check` runs its analyses in a pool of worker processes, forked from it: killing
the `check` alone leaves those workers solving, orphaned, for as long as their question
takes. So the servers (`lsp`, `serve`) start each child as the leader of a process group
of its own, which its workers join, and stop the whole group.
"""

from __future__ import annotations

import os
import signal

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
