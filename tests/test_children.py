"""children.kill_group: a child started with OWN_GROUP is stopped with what it started."""

from __future__ import annotations

import subprocess
import sys

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
