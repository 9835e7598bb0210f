"""A small LSP client for the tests: starts `mafiacheck lsp` and speaks JSON-RPC over its
stdio with Content-Length framing, as an editor does."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time


class LspClient:
    def __init__(self, cwd=None, env=None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mafiacheck", "lsp"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
            env={**os.environ, **(env or {})})
        self.next_id = 0
        self.messages: queue.Queue = queue.Queue()
        self.pending: list = []  # notifications and server requests not consumed yet
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        stream = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body.decode("utf-8")))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode("utf-8")
        self.proc.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params, timeout: float = 30.0):
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)
        if "error" in reply:
            raise AssertionError(f"{method} failed: {reply['error']}")
        return reply.get("result")

    def wait(self, match, timeout: float = 30.0) -> dict:
        """The first message (already received or to come) that `match` accepts."""
        for i, m in enumerate(self.pending):
            if match(m):
                return self.pending.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching message within {timeout} s; "
                                     f"unconsumed: {[m.get('method') for m in self.pending]}")
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if m is None:
                raise AssertionError("the server exited: " + self.proc.stderr.read().decode("utf-8", "replace")[-2000:])
            if m.get("method") and "id" in m:
                self._answer_server_request(m)
            if match(m):
                return m
            self.pending.append(m)

    def _answer_server_request(self, m: dict) -> None:
        # window/workDoneProgress/create and the like: accept them.
        self.send({"id": m["id"], "result": None})

    def diagnostics(self, uri: str, version=None, timeout: float = 30.0) -> dict:
        def match(m):
            return (m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == uri
                    and (version is None or m["params"].get("version") == version))
        return self.wait(match, timeout)["params"]

    def initialize(self, root_uri=None, progress=True, encodings=None) -> dict:
        general = {"positionEncodings": encodings} if encodings else {}
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": root_uri,
            "capabilities": {"general": general, "window": {"workDoneProgress": progress},
                             "textDocument": {"hover": {"contentFormat": ["markdown"]},
                                              "publishDiagnostics": {"relatedInformation": True}}}})
        self.notify("initialized", {})
        return result

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except Exception:  # noqa: BLE001
                pass
