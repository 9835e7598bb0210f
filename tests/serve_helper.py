"""Start `mafiacheck serve` on a free port for a test, and talk to it over HTTP."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import time


class Served:
    def __init__(self, *args: str, cwd=None):
        self.proc = subprocess.Popen([sys.executable, "-m", "mafiacheck", "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     cwd=cwd, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        line = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"the server did not start: {line!r} {self.proc.stderr.read()[-2000:]}")
        self.port = int(m.group(1))
        self.url = f"http://127.0.0.1:{self.port}/"

    def request(self, method: str, path: str, body=None, headers=None, timeout=60.0):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode("utf-8")
        hdrs = {"Content-Type": "application/json"} if data is not None else {}
        hdrs.update(headers or {})
        conn.request(method, path, body=data, headers=hdrs)
        reply = conn.getresponse()
        raw = reply.read()
        conn.close()
        return reply.status, dict(reply.getheaders()), raw

    def ask(self, spec: str, query: str, **extra):
        status, _, raw = self.request("POST", "/api/ask", {"spec": spec, "query": query, **extra})
        return status, raw

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()
        time.sleep(0.1)
