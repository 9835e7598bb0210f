"""The process that answers one question at a time for `mafiacheck serve`.

The server keeps one or two of these running, already warm (the interpreter and Z3
imported), and talks to each over its stdin/stdout, one JSON line per question. A question
that runs past its time, or that the page cancels, is stopped by killing its process: solver
work cannot be interrupted more cleanly from another thread, and a fresh process leaks nothing.

An answer is produced by `mafiacheck ask SPEC FILE --format json` itself (the command's own
code, run in this process), so the API answers exactly what the command prints.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile

from ..children import die_with_parent


def query_file_text(query: str) -> str:
    """The query as a file: a bare list of phases is wrapped in `query inline { … }`, as
    `ask` does with query text on its command line."""
    return query if query.lstrip().startswith("query") else f"query inline {{\n{query}\n}}\n"


def answer(spec_path: str, query: str) -> tuple[int, str]:
    """(HTTP status, body): 200 with ask's JSON, or 400 with located errors.

    The question goes to `ask` as query text, as on its command line. `ask` reads an argument
    that names an existing file as that file; the text given always starts with `query` (it is
    wrapped otherwise) and this process works in an empty folder of its own, so no question
    can name a file to be read."""
    from ..cli import EXIT_FINDINGS, EXIT_INCONCLUSIVE, EXIT_OK, main

    text = query_file_text(query)
    out, err = io.StringIO(), io.StringIO()
    code = main(["ask", spec_path, text, "--format", "json"], out, err)
    # Answered: met, an expectation failed, or the solver gave up on an open question (the
    # answer then says "inconclusive"); `ask` printed its JSON in each case.
    if code in (EXIT_OK, EXIT_FINDINGS, EXIT_INCONCLUSIVE):
        return 200, out.getvalue()
    return 400, json.dumps(errors(spec_path, text, err.getvalue()), ensure_ascii=False)


def errors(spec_path: str, query: str, text: str) -> dict:
    """Why a question could not be asked, with the places (line, column in the query text)."""
    from ..errors import SpecError
    from ..pipeline import check_file
    from ..queries import answer_all
    from ..query_text import load_queries

    result = check_file(spec_path, ())
    scenario = result.scenario
    if result.diagnostics or scenario is None:  # a spec without diagnostics was resolved
        return {"error": "the spec cannot be read", "in": "spec",
                "errors": [d.to_json() for d in result.diagnostics]}
    try:
        source, queries = load_queries(query)
        answer_all(scenario, source, queries)
    except SpecError as exc:
        return {"error": "the question cannot be asked", "in": "query",
                "errors": [d.to_json() for d in exc.diagnostics]}
    return {"error": "the question cannot be asked", "in": "query",
            "errors": [{"severity": "error", "message": text.strip() or "unknown error",
                        "span": None, "hint": None}]}


def main() -> None:
    die_with_parent()  # gone with the server, even one killed outright
    # Warm up: what a first question would otherwise wait for.
    from .. import cli, queries  # noqa: F401
    from ..crosscheck import open_questions  # noqa: F401
    from ..parser import lark_parser

    lark_parser()
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers on the channel
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    with tempfile.TemporaryDirectory(prefix="mafiacheck-serve-") as folder:
        os.chdir(folder)  # empty: a relative name in a question resolves to nothing
        for line in sys.stdin:
            request = json.loads(line)
            try:
                status, body = answer(request["spec"], request["query"])
            except Exception as exc:  # noqa: BLE001 - a bug must answer, not hang the page
                status, body = 500, json.dumps({"error": f"internal error ({type(exc).__name__}: "
                                                         f"{exc}); please report it"})
            out.write(json.dumps({"status": status, "body": body}, ensure_ascii=False) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
