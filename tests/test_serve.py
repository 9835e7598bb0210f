"""`mafiacheck serve`, through its HTTP API."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT
from processes import descendants, end, survivors
from serve_helper import Served

STATIC = ROOT / "checker" / "serve" / "static"


@pytest.fixture(scope="module")
def served():
    s = Served()
    yield s
    s.close()


def _cli_ask(spec: str, query: str) -> bytes:
    return subprocess.run([sys.executable, "-m", "mafiacheck", "ask", spec, query, "--format", "json"],
                          capture_output=True, check=False).stdout


def test_scenarios_lists_the_bundled_specs(served):
    status, headers, raw = served.request("GET", "/api/scenarios")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    data = json.loads(raw)
    ids = [s["id"] for s in data["scenarios"]]
    assert ids == sorted(p.stem for p in (ROOT / "specs").glob("*.mafia"))
    gangster = next(s for s in data["scenarios"] if s["id"] == "gangster")
    seats = gangster["compositions"][0]["seats"]
    assert seats[0] == {"seat": 1, "role": "godfather", "name": "رئیس مافیا", "side": "mafia"}
    assert any(a["key"] == "shot" and a["phases"] == ["night"] for a in gangster["abilities"])


@pytest.mark.parametrize("query", [
    "night 1 { shot on invulnerable }",
    "night 1 { shot on detective  save on detective }",
    "night 1 { nato_guess on doctor as doctor }",
    "can winner mafia within 1",
    "night 1 { shot on invulnerable }\nexpect leaves invulnerable",  # a failed expectation
])
def test_ask_answers_exactly_what_the_command_prints(served, query):
    started = time.monotonic()
    status, raw = served.ask("gangster", query)
    took = time.monotonic() - started
    assert status == 200
    assert raw == _cli_ask(str(ROOT / "specs" / "gangster.mafia"), query)
    if not query.startswith("can"):
        print(f"what-if answered in {took * 1000:.0f} ms")
        assert took < 1.0  # issue 16: a concrete what-if within 1 s


def test_an_open_question_the_solver_gives_up_on_is_answered(monkeypatch):
    """`ask` exits 3 when the solver gives up on an open question, having printed its answer
    ("inconclusive"): the API answers with that JSON, as for any other answer, rather than
    call it a question that cannot be asked (it answered 400 "unknown error")."""
    from mafiacheck import cli
    from mafiacheck.serve import worker

    spec, query = str(ROOT / "specs" / "gangster.mafia"), "can winner town within 3"
    # Gives up at once, on the resource limit: a tiny timeout could stop one run by the clock
    # and the other by the limit, with other reasons in the two answers.
    monkeypatch.setattr(cli, "solver_limits", lambda args, *rest, **kw: (60.0, 1))
    status, body = worker.answer(spec, query)
    assert status == 200, body
    assert [a["verdict"] for a in json.loads(body)["answers"]] == ["inconclusive"]
    out, err = io.StringIO(), io.StringIO()  # exactly what the command prints, and its exit code
    code = cli.main(["ask", spec, worker.query_file_text(query), "--format", "json"], out, err)
    assert code == cli.EXIT_INCONCLUSIVE and out.getvalue() == body


def test_a_whole_query_with_state_and_expectations(served):
    query = ('query table "at the table" {\n  composition 10\n  state { dead @4 }\n'
             '  night 1 { shot on @5 }\n  expect leaves @5 by shot\n}\n')
    status, raw = served.ask("gangster", query)
    assert status == 200
    answer = json.loads(raw)["answers"][0]
    assert answer["verdict"] == "determined" and "expectations_failed" not in json.loads(raw)
    exits = answer["outcomes"][0]["phases"][0]["exits"]
    assert exits[0]["seat"] == 5 and exits[0]["kind"] == "shot"


def test_errors_are_json_with_places(served):
    status, raw = served.ask("gangster", 'query q {\n  night 1 { shot on invulnerabl }\n}\n')
    data = json.loads(raw)
    assert status == 400 and data["in"] == "query"
    assert data["errors"][0]["message"] == "unknown role 'invulnerabl'"
    assert data["errors"][0]["span"] == {"line": 2, "column": 21, "end_line": 2, "end_column": 32}
    status, raw = served.ask("gangster", "query q {\n  night 1 { shot on }\n")
    data = json.loads(raw)
    assert status == 400 and data["errors"][0]["span"]["line"] == 2
    status, raw = served.ask("no-such", "night 1 { }")
    assert status == 404 and "gangster" in json.loads(raw)["scenarios"]


def test_limits_and_refusals(served):
    status, _, raw = served.request("POST", "/api/ask", b"x" * (65 * 1024))
    assert status == 413
    status, raw = served.ask("gangster", "night 1 { }" + " " * (17 * 1024))
    assert status == 413 and "characters" in json.loads(raw)["error"]
    status, _, _ = served.request("POST", "/api/ask", b'{"spec": "gangster"}',
                                  headers={"Content-Type": "text/plain"})
    assert status == 415  # a cross-site form cannot post here
    status, _, _ = served.request("POST", "/api/ask", b"{not json")
    assert status == 400
    status, _, _ = served.request("POST", "/api/ask", {"spec": 3, "query": []})
    assert status == 400
    status, _, _ = served.request("GET", "/api/scenarios", headers={"Host": "attacker.example:80"})
    assert status == 421  # DNS rebinding: only this machine's names
    status, _, _ = served.request("GET", "/static/../app.py")
    assert status == 404
    # A query naming a file on the server is still only query text.
    for name in ("/etc/passwd", "query/../../../../etc/passwd", "../../../../etc/passwd"):
        status, raw = served.ask("gangster", name)
        assert status == 400 and "root:" not in raw.decode("utf-8"), name


def test_page_and_assets_are_local(served):
    status, headers, raw = served.request("GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    for name in ("index.html", "app.js", "style.css"):
        text = (STATIC / name).read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, name
    assert "innerHTML" not in (STATIC / "app.js").read_text(encoding="utf-8")


def test_a_long_question_is_stopped_and_the_next_is_answered():
    s = Served("--timeout", "0.8", str(ROOT / "specs" / "night_of_mafia.mafia"))
    workers = descendants(s.proc.pid)
    try:
        started = time.monotonic()
        status, raw = s.ask("night_of_mafia", "composition 12\nmust winner town within 20")
        assert status == 408, raw
        assert time.monotonic() - started < 10
        status, raw = s.ask("night_of_mafia", "composition 8\nnight 1 { }")
        assert status == 200, raw
        workers |= descendants(s.proc.pid)
    finally:
        s.close()
        left = survivors(workers)
        end(workers)
    assert workers and not left  # the worker stopped, its replacement and the others


def test_shutdown_stops_a_solver():
    # The server stopped (as `kill` stops it) while a question is being solved: no worker
    # it started, nor anything a worker started, is left running.
    s = Served(str(ROOT / "specs" / "night_of_mafia.mafia"))
    asking = threading.Thread(target=lambda: _ask_quietly(s), daemon=True)
    asking.start()
    time.sleep(1.0)
    workers = descendants(s.proc.pid)
    try:
        assert workers
        s.close()
        assert not survivors(workers)
    finally:
        end(workers)
    asking.join(30)


def _ask_quietly(s: Served) -> None:
    try:
        s.ask("night_of_mafia", "composition 12\nmust winner town within 20")
    except OSError:
        pass  # the server went away under the question: what the test does


def test_cancel_stops_a_question():
    s = Served(str(ROOT / "specs" / "night_of_mafia.mafia"))
    try:
        got = {}

        def run():
            got["reply"] = s.ask("night_of_mafia", "composition 12\nmust winner town within 20", job="j1")
        t = threading.Thread(target=run)
        t.start()
        time.sleep(1.0)
        status, _, raw = s.request("POST", "/api/cancel", {"job": "j1"})
        assert status == 200 and json.loads(raw) == {"cancelled": True}
        t.join(30)
        assert got["reply"][0] == 409
        status, raw = s.ask("night_of_mafia", "composition 8\nnight 1 { }")
        assert status == 200
    finally:
        workers = descendants(s.proc.pid)
        s.close()
        left = survivors(workers)
        end(workers)
    assert workers and not left


def test_serves_given_specs_and_keeps_names_as_text(tmp_path):
    spec = (ROOT / "specs" / "gangster.mafia").read_text(encoding="utf-8").replace(
        'role nato "ناتو"', 'role nato "<img src=x onerror=alert(1)>"', 1)
    (tmp_path / "evil.mafia").write_text(spec, encoding="utf-8")
    s = Served(str(tmp_path / "evil.mafia"))
    try:
        data = json.loads(s.request("GET", "/api/scenarios")[2])
        assert [x["id"] for x in data["scenarios"]] == ["evil"]
        assert data["scenarios"][0]["compositions"][0]["seats"][1]["name"] == "<img src=x onerror=alert(1)>"
    finally:
        s.close()


def test_help_imports_neither_server():
    code = ("import sys, io, contextlib\nfrom mafiacheck.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    main(['--help'], io.StringIO(), io.StringIO())\n"
            "print(sorted(m for m in sys.modules\n"
            "             if m.startswith(('mafiacheck.lsp', 'mafiacheck.serve', 'pygls', 'lsprotocol'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_host_check_only_on_loopback():
    from mafiacheck.serve.app import make_server

    loop = make_server([str(ROOT / "specs" / "gangster.mafia")], "127.0.0.1", 0, workers=0)
    wide = make_server([str(ROOT / "specs" / "gangster.mafia")], "0.0.0.0", 0, workers=0)
    try:
        port = loop.server_address[1]
        assert loop.RequestHandlerClass.allowed_hosts == {f"localhost:{port}", f"127.0.0.1:{port}",
                                                          f"[::1]:{port}"}
        assert wide.RequestHandlerClass.allowed_hosts is None
    finally:
        loop.server_close()
        wide.server_close()
