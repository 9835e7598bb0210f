"""children.kill_group: a child started with OWN_GROUP is stopped with what it started."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from processes import end, survivors, wait_for
from mafiacheck.children import OWN_GROUP, kill_group

# A child that starts a grandchild, as `mafiacheck check` forks its analysis workers.
PARENT = ("import subprocess, sys, time\n"
          "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
          "time.sleep(60)\n")

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def test_killing_the_group_stops_the_grandchildren_too():
    proc = subprocess.Popen([sys.executable, "-c", PARENT], start_new_session=OWN_GROUP)
    grandchild = wait_for(proc.pid, depth=1)
    try:
        assert grandchild
        kill_group(proc.pid)  # `proc.kill()` would leave the grandchild sleeping
        proc.wait(10)
        assert not survivors(grandchild)
    finally:
        end(grandchild)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_group_already_gone_is_nothing_to_kill():
    proc = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=OWN_GROUP)
    proc.wait(10)
    kill_group(proc.pid)  # no error


# A server that starts a child told to die with it, then waits (to be killed outright).
SERVER = ("import subprocess, sys, time\n"
          "from mafiacheck.children import child_env\n"
          "code = 'from mafiacheck.children import die_with_parent; die_with_parent(); "
          "import time; time.sleep(60)'\n"
          "subprocess.Popen([sys.executable, '-c', code], env=child_env(), start_new_session=True)\n"
          "time.sleep(60)\n")


def test_a_child_told_its_parent_dies_with_it():
    """A server killed outright (SIGKILL) stops no group; its child, in a session of its own,
    is killed by the kernel all the same (children.die_with_parent)."""
    proc = subprocess.Popen([sys.executable, "-c", SERVER])
    child = wait_for(proc.pid, depth=1)
    try:
        assert child
        time.sleep(1.0)  # the child has asked the kernel by now (it imports mafiacheck first)
        proc.kill()
        proc.wait(10)
        assert not survivors(child)
    finally:
        end(child)


def test_a_check_killed_outright_takes_its_workers_with_it():
    """`mafiacheck check` forks its analysis workers; SIGKILL on the check alone (no group
    kill) leaves none of them solving."""
    spec = Path(__file__).resolve().parent.parent / "specs" / "godfather_nostradamus.mafia"
    proc = subprocess.Popen([sys.executable, "-m", "mafiacheck", "check", str(spec), "--no-config"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    workers = wait_for(proc.pid, depth=1)
    try:
        assert workers
        time.sleep(1.0)  # past the workers' start
        proc.kill()
        proc.wait(10)
        assert not survivors(workers)
    finally:
        end(workers)
        kill_group(proc.pid)
