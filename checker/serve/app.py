"""`mafiacheck serve`: the moderator's what-if page and the JSON API it uses.

Built on the standard library's `http.server` (a ThreadingHTTPServer): the page has four
routes and must run at a game table with no network, from a plain `pip install .`; a web
framework would add dependencies without removing any of the work below (limits on bodies
and questions, timeouts, the Host check, escaping is the page's). Every asset is a file of
this package; nothing is fetched from elsewhere.

Routes:
  GET  /                 the page
  GET  /static/NAME      its script, style sheet and font-free icons (only files listed here)
  GET  /api/scenarios    the specs served, with their compositions, seats and abilities
  POST /api/ask          {"spec": ID, "query": TEXT[, "job": ID]} -> exactly the JSON of
                         `mafiacheck ask SPEC QUERY --format json`; errors as JSON with places
  POST /api/cancel       {"job": ID}: stop that question
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from ..children import OWN_GROUP, child_env, kill_group

if TYPE_CHECKING:
    from ..model import Ability

MAX_BODY = 64 * 1024  # bytes of a request body
MAX_QUERY = 16 * 1024  # characters of a question
DEFAULT_TIMEOUT = 20.0  # seconds of work per question (the solver's own rlimit applies too)
STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8",
          "index.html": "text/html; charset=utf-8"}
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


# ------------------------------------------------------------------ what is served

def bundled_specs() -> list[str]:
    folder = resources.files("mafiacheck.specs")
    return sorted(str(p) for p in folder.iterdir() if str(p).endswith(".mafia"))


def describe(path: str) -> dict:
    """A spec as the page needs it: names as the rulebook writes them (the page escapes them)."""
    from ..pipeline import check_file

    result = check_file(path, ())
    entry: dict[str, object] = {"path": os.path.basename(path)}
    if result.diagnostics:
        entry["errors"] = [d.to_json() for d in result.diagnostics]
        return entry
    sc = result.scenario
    assert sc is not None  # a spec with no diagnostics was resolved
    role = sc.role_by_key
    entry.update({
        "scenario": sc.text, "label": sc.label, "language": sc.language,
        "sides": [{"key": s.key, "name": s.display, "kind": s.kind} for s in sc.sides],
        "roles": [{"key": r.key, "name": r.display, "side": r.side} for r in sc.roles],
        "compositions": [{
            "players": c.players, "name": c.name.text if c.name else None, "ref": c.ref,
            "label": c.label,
            "seats": [{"seat": i + 1, "role": k, "name": role[k].display, "side": role[k].side}
                      for i, k in enumerate(c.seats())]}
            for c in sc.compositions if c.total == c.players],
        "abilities": [_ability(a) for a in sc.abilities if a.phases],
        "day": sc.day is not None,
        # What a query's `state { … }` can set: counters per role, items held, memories.
        "counters": {r.key: [{"key": c.key, "initial": getattr(c.initial, "value", None)}
                             for c in r.counters] for r in sc.roles if r.counters},
        "items": [{"key": i.name.key, "name": i.label or i.name.text,
                   "variants": [{"key": v.key, "name": label or v.text} for v, label in i.variants]}
                  for i in sc.items if i.variants],
        "memories": [{"key": m.name.key, "name": m.label or m.name.text, "type": m.type}
                     for m in sc.memories],
    })
    return entry


def _ability(a: Ability) -> dict:
    count = a.target_count
    from ..ast import Num  # the model (and the AST) only once a spec is described

    targets = count.value if isinstance(count, Num) else (0 if count is None else 1)
    return {"key": a.key, "name": a.display,
            "phases": sorted({p.phase.key for p in a.phases}),
            "by": None if a.actor is None else {"kind": a.actor.kind,
                                               "name": a.actor.name.key if a.actor.name else None,
                                               "roles": [n.key for n in a.actor.roles]},
            "targets": targets,
            "choices": [{"kind": c.kind, "names": [n.key for n in c.names]} for c in a.choices],
            "optional": a.optional}


class Catalog:
    def __init__(self, paths: list[str]):
        self.paths: dict[str, str] = {}
        self.entries: list[dict] = []
        for path in paths:
            ident = Path(path).stem
            n = 2
            while ident in self.paths:
                ident, n = f"{Path(path).stem}-{n}", n + 1
            self.paths[ident] = os.path.abspath(path)
            self.entries.append({"id": ident, **describe(path)})

    def json(self) -> bytes:
        return json.dumps({"version": 1, "scenarios": self.entries}, ensure_ascii=False).encode("utf-8")


# ------------------------------------------------------------------ the workers

class Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from mafiacheck.serve.worker import main; main()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, encoding="utf-8", bufsize=1, start_new_session=OWN_GROUP, env=child_env())
        self.ready = False
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout or ():  # a pipe (Popen(stdout=PIPE))
            self.lines.put(line)
        self.lines.put(None)

    def wait_ready(self, timeout: float) -> None:
        """Until the worker has imported everything (about a second), so that the first
        question is as quick as the others."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return
        if line is not None and json.loads(line).get("ready"):
            self.ready = True

    def kill(self) -> None:
        """The worker and whatever it started (children.kill_group): a question stopped
        leaves nothing solving."""
        if self.proc.poll() is None:
            kill_group(self.proc.pid)
        self.proc.wait()


class Pool:
    """Warm worker processes; a question takes one, and a question stopped kills it."""

    def __init__(self, size: int, timeout: float):
        self.timeout = timeout
        self.idle: queue.Queue[Worker] = queue.Queue()
        self.jobs: dict[str, Worker] = {}
        self.cancelled: set[str] = set()
        self.lock = threading.Lock()
        self.workers: list[Worker] = []  # every worker started, to stop them all at the end
        started = [self._new() for _ in range(size)]
        for worker in started:
            worker.wait_ready(60.0)
            self.idle.put(worker)

    def ask(self, spec: str, query: str, job: str | None) -> tuple[int, bytes]:
        try:
            worker = self.idle.get(timeout=self.timeout)
        except queue.Empty:
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "every worker is busy; try again")
        if not worker.ready:
            worker.wait_ready(60.0)  # a replacement still warming up: not the question's time
        if job:
            with self.lock:
                self.jobs[job] = worker
        try:
            return self._ask(worker, spec, query, job)
        finally:
            if job:
                with self.lock:
                    self.jobs.pop(job, None)
                    self.cancelled.discard(job)

    def _ask(self, worker: Worker, spec: str, query: str, job: str | None) -> tuple[int, bytes]:
        deadline = time.monotonic() + self.timeout
        try:
            if worker.proc.stdin is None:  # never: a pipe (Popen(stdin=PIPE))
                raise OSError("the worker has no input")
            worker.proc.stdin.write(json.dumps({"spec": spec, "query": query}) + "\n")
            worker.proc.stdin.flush()
        except OSError:
            return self._replace(worker, HTTPStatus.INTERNAL_SERVER_ERROR, "the worker stopped")
        while True:
            try:
                line = worker.lines.get(timeout=0.05)
            except queue.Empty:
                if job and job in self.cancelled:
                    return self._replace(worker, HTTPStatus.CONFLICT, "cancelled")
                if time.monotonic() > deadline:
                    return self._replace(worker, HTTPStatus.REQUEST_TIMEOUT,
                                         f"the question took longer than {self.timeout:g} s and was stopped")
                continue
            if line is None:
                return self._replace(worker, HTTPStatus.INTERNAL_SERVER_ERROR, "the worker stopped")
            message = json.loads(line)
            if message.get("ready"):  # a replacement worker, started after a stop
                worker.ready = True
                continue
            self.idle.put(worker)
            return message["status"], message["body"].encode("utf-8")

    def _new(self) -> Worker:
        worker = Worker()
        with self.lock:
            self.workers = [w for w in self.workers if w.proc.poll() is None] + [worker]
        return worker

    def _replace(self, worker: Worker, status: HTTPStatus, message: str) -> tuple[int, bytes]:
        worker.kill()
        self.idle.put(self._new())
        return _error(status, message)

    def cancel(self, job: str) -> bool:
        with self.lock:
            if job in self.jobs:
                self.cancelled.add(job)
                return True
        return False

    def close(self) -> None:
        with self.lock:
            workers = list(self.workers)
        for w in workers:
            w.kill()


def _error(status: HTTPStatus, message: str, **extra: object) -> tuple[int, bytes]:
    return int(status), json.dumps({"error": message, **extra}, ensure_ascii=False).encode("utf-8")


# ------------------------------------------------------------------ HTTP

class Handler(BaseHTTPRequestHandler):
    server_version = "mafiacheck"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    catalog: Catalog
    pool: Pool
    allowed_hosts: set[str] | None  # None: any Host (not served on loopback)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        if os.environ.get("MAFIACHECK_SERVE_LOG"):
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, ctype: str = "application/json; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _host_ok(self) -> bool:
        # A page elsewhere must not reach a loopback server through a DNS name that points
        # here (DNS rebinding). Served on another address (`--host 0.0.0.0`, for phones at
        # the table), the server was exposed on purpose and answers any name.
        host = (self.headers.get("Host") or "").lower()
        if self.allowed_hosts is None or host in self.allowed_hosts:
            return True
        self._send(*_error(HTTPStatus.MISDIRECTED_REQUEST, f"unexpected Host header {host!r}"))
        return False

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            return self._static("index.html")
        if path.startswith("/static/") and path[len("/static/"):] in STATIC:
            return self._static(path[len("/static/"):])
        if path == "/api/scenarios":
            return self._send(200, self.catalog.json())
        self._send(*_error(HTTPStatus.NOT_FOUND, "no such page"))

    def _static(self, name: str) -> None:
        body = resources.files("mafiacheck.serve").joinpath("static").joinpath(name).read_bytes()
        self._send(200, body, STATIC[name])

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            return
        path = self.path.split("?", 1)[0]
        if path not in ("/api/ask", "/api/cancel"):
            self.close_connection = True
            return self._send(*_error(HTTPStatus.NOT_FOUND, "no such endpoint"))
        data = self._body()
        if data is None:
            return
        if path == "/api/cancel":
            job = data.get("job")
            if not isinstance(job, str):
                return self._send(*_error(HTTPStatus.BAD_REQUEST, '{"job": ID} expected'))
            return self._send(200, json.dumps({"cancelled": self.pool.cancel(job)}).encode())
        spec, query, job = data.get("spec"), data.get("query"), data.get("job")
        if not isinstance(spec, str) or not isinstance(query, str) or not (job is None or isinstance(job, str)):
            return self._send(*_error(HTTPStatus.BAD_REQUEST,
                                      '{"spec": ID, "query": TEXT} expected, both strings'))
        if spec not in self.catalog.paths:
            return self._send(*_error(HTTPStatus.NOT_FOUND, "no such scenario is served",
                                      scenarios=sorted(self.catalog.paths)))
        if len(query) > MAX_QUERY:
            return self._send(*_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                                      f"the question is over {MAX_QUERY} characters"))
        self._send(*self.pool.ask(self.catalog.paths[spec], query, job))

    def _body(self) -> dict | None:
        length = self.headers.get("Content-Length")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            # Also what keeps other sites' forms out: a cross-site JSON post needs a
            # preflight this server never grants.
            self.close_connection = True
            self._send(*_error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json"))
            return None
        if length is None or not length.isdigit():
            self.close_connection = True
            self._send(*_error(HTTPStatus.LENGTH_REQUIRED, "a Content-Length is required"))
            return None
        if int(length) > MAX_BODY:
            self.close_connection = True
            self._send(*_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                               f"the request body is over {MAX_BODY} bytes"))
            return None
        try:
            data = json.loads(self.rfile.read(int(length)).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            self._send(*_error(HTTPStatus.BAD_REQUEST, "the body is not JSON"))
            return None
        if not isinstance(data, dict):
            self._send(*_error(HTTPStatus.BAD_REQUEST, "the body must be a JSON object"))
            return None
        return data


class Server(ThreadingHTTPServer):
    """The HTTP server, and the pool of workers that answer its questions (closed with it)."""

    pool: Pool


def make_server(paths: list[str], host: str = "127.0.0.1", port: int = 8765,
                timeout: float = DEFAULT_TIMEOUT, workers: int = 2) -> Server:
    catalog = Catalog(paths)
    pool = Pool(workers, timeout)
    httpd = Server((host, port), Handler)
    httpd.daemon_threads = True
    real_port = httpd.server_address[1]
    allowed = None
    if host in ("127.0.0.1", "localhost", "::1"):
        names = {"localhost", "127.0.0.1", "[::1]"}
        allowed = {f"{n}:{real_port}" for n in names} | (names if real_port == 80 else set())
    handler = type("BoundHandler", (Handler,), {"catalog": catalog, "pool": pool,
                                                 "allowed_hosts": allowed})
    httpd.RequestHandlerClass = handler
    httpd.pool = pool
    return httpd


def main(specs: list[str], host: str, port: int, timeout: float, out: TextIO, err: TextIO) -> int:
    from ..loader import collect_paths

    if specs:
        paths, problems = collect_paths(specs)
        for d in problems:
            err.write(d.render() + "\n")
        if problems:
            return 2
    else:
        paths = bundled_specs()
    try:
        httpd = make_server(paths, host, port, timeout)
    except OSError as exc:
        err.write(f"mafiacheck: cannot listen on {host}:{port}: {exc.strerror or exc}\n")
        return 2
    shown = f"[{host}]" if ":" in host else host
    out.write(f"mafiacheck: serving {len(paths)} scenario{'s' if len(paths) != 1 else ''} on "
              f"http://{shown}:{httpd.server_address[1]}/ (Ctrl-C stops)\n")
    out.flush()
    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # `kill`: stop as Ctrl-C does, and the workers with the server

    signal.signal(signal.SIGTERM, stop)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        httpd.pool.close()
        httpd.server_close()
    return 0
