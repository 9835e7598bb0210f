"""The command line. Handlers take their output streams and return an exit code."""

from __future__ import annotations

import argparse
import functools
import io
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from . import __version__, baseline, config, limits, registry
from .children import die_with_parent
from .errors import Diagnostic, SpecError
from .loader import STDIN, collect_paths, read_stdin
from .pipeline import ANALYSES, FileResult, analyse_part, check_file, finish, merge, parts_of
from .report import explain, github, json_report, junit, markdown, sarif, statistics, text

if TYPE_CHECKING:
    from .analyses.encoded import Options
    from .model import Scenario

STDIN_NAME = "<stdin>"  # how a spec read from standard input is named in reports

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4
# A report of the results; the text and Markdown ones also take `show_suppressed`.
Render = Callable[..., str]
FORMATS: dict[str, Render] = {"text": text.render, "json": json_report.render}
CHECK_FORMATS: dict[str, Render] = {**FORMATS, "markdown": markdown.render, "sarif": sarif.render,
                                   "junit": junit.render, "github": github.render}


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    # argparse would call sys.exit from deep inside; we want the exit code from main.
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mafiacheck", description="Formal rule checking for Mafia scenarios.")
    parser.add_argument("--version", action="version", version=f"mafiacheck {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    check = sub.add_parser("check", help="check scenario specs (files or folders)")
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--format", choices=sorted(CHECK_FORMATS), default="text")
    check.add_argument("--select", default=None,
                       help="comma-separated analysis kinds to run (default: all): " + ", ".join(ANALYSES))
    check.add_argument("--bound", type=int, default=None, metavar="K",
                       help="search exactly K rounds (a day and a night) after the opening phases "
                            "(default: one round, and what no game of it answers and induction does "
                            "not rule out, in games up to 3 rounds)")
    check.add_argument("--timeout", type=float, default=None, metavar="S",
                       help="seconds per solver question (default 300); a timeout is inconclusive. "
                            "Questions are bounded first by a resource limit, which is the same on "
                            "every machine, so reports do not depend on the machine's speed")
    check.add_argument("--rlimit", type=int, default=None, metavar="N",
                       help="solver resource limit per question (default 20000000)")
    check.add_argument("--config", metavar="FILE",
                       help="the pyproject.toml whose [tool.mafiacheck] table to use (default: the "
                            "nearest one with such a table, from the working directory up)")
    check.add_argument("--no-config", action="store_true", help="ignore [tool.mafiacheck] tables")
    check.add_argument("--baseline", metavar="FILE",
                       help="findings recorded in FILE pass; only new ones fail the gate")
    check.add_argument("--write-baseline", metavar="FILE",
                       help="record every finding that would fail the gate in FILE and pass")
    check.add_argument("--output", metavar="FILE",
                       help="write the report to FILE instead of standard output")
    check.add_argument("--show-suppressed", action="store_true",
                       help="list acknowledged and baselined findings too (they are always counted)")
    check.add_argument("--show-verdicts", action="store_true",
                       help="list the questions answered no, each with how far the answer holds "
                            "(for every length of game, or within the rounds searched)")
    check.add_argument("--exclude", action="append", default=[], metavar="PATTERNS",
                       help="comma-separated glob patterns of files and folders to skip when "
                            "walking folders (besides .gitignore and folders such as .venv)")
    check.add_argument("-q", "--quiet", action="store_true",
                       help="no progress on standard error (shown only on a terminal anyway)")
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even with findings or inconclusive results (unreadable "
                            "input, 2, and internal errors, 4, still fail)")
    check.add_argument("--statistics", action="store_true",
                       help="print how many findings of each code, instead of the report")
    explain = sub.add_parser("explain", help="what a finding code means")
    explain.add_argument("code", nargs="?", help="a finding code such as MC207 (none: list them)")
    ask = sub.add_parser("ask", help="answer what-if queries about a scenario")
    ask.add_argument("spec", metavar="SPEC")
    ask.add_argument("queries", nargs="+", metavar="QUERY",
                     help="a query file, or query text such as 'night 1 { shot on leon }'")
    ask.add_argument("--format", choices=sorted(FORMATS), default="text")
    ask.add_argument("--timeout", type=float, default=None, metavar="S",
                     help="seconds per open question (default 120); a timeout is inconclusive (exit 3)")
    ask.add_argument("--rlimit", type=int, default=None, metavar="N",
                     help="solver resource limit per open question (default 20000000)")
    sim = sub.add_parser("simulate", help="play a scripted game and print the moderator's log")
    sim.add_argument("spec", metavar="SPEC")
    sim.add_argument("script", metavar="SCRIPT")
    sim.add_argument("--format", choices=sorted(FORMATS), default="text")
    fmt = sub.add_parser("fmt", help="rewrite scenario and query files in the canonical layout")
    fmt.add_argument("paths", nargs="+", metavar="PATH",
                     help="files, or folders searched for *.mafia and *.query files")
    fmt.add_argument("--check", action="store_true",
                     help="change nothing; list the files that would change and exit 1 if any")
    fmt.add_argument("--diff", action="store_true", help="change nothing; print a unified diff")
    sub.add_parser("lsp", help="the language server for editors, over stdio")
    serve = sub.add_parser("serve", help="the moderator's what-if page, a local web server")
    serve.add_argument("specs", nargs="*", metavar="SPEC", help="specs to serve (default: the bundled ones)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    serve.add_argument("--timeout", type=float, default=20.0, metavar="S",
                       help="seconds of work per question before it is stopped (default 20)")
    return parser


def exit_code(results: list[FileResult]) -> int:
    """0 pass, 1 error-level findings, 2 unreadable input, 3 only inconclusive results, 4 an
    internal error (a bug: what the broken analysis would have found is unknown, so it
    outranks findings). Acknowledged and baselined findings do not count; inconclusive
    results and internal errors can be neither."""
    if any(r.diagnostics for r in results):
        return EXIT_INPUT
    findings = [f for r in results for f in r.findings if f.gating]
    if any(f.kind == "internal" for f in findings):
        return EXIT_INTERNAL
    if any(f.severity == "error" and not f.undecided for f in findings):
        return EXIT_FINDINGS
    if any(f.kind == "inconclusive" for f in findings):
        return EXIT_INCONCLUSIVE
    return EXIT_OK


@dataclass(frozen=True)
class CheckPlan:
    """What `check` will do, from the command line over the project's configuration."""
    select: tuple[str, ...]
    options: Options
    severity: dict[str, str]
    baseline: str | None
    exclude: tuple[str, ...] = ()  # glob patterns skipped when walking folders


def plan_check(args: argparse.Namespace) -> CheckPlan:
    """Merge flags, configuration and defaults; SpecError (exit 2) on a bad value."""
    from .analyses.encoded import DEFAULT_DEPTH, FURTHER_DEPTH, Options

    def bad(message: str) -> SpecError:
        return SpecError([Diagnostic(message, None, "mafiacheck")])

    found = None if args.no_config else (args.config or config.find())
    conf = config.load(found, tuple(ANALYSES)) if found else config.Config()
    if args.select is not None:
        select = tuple(s.strip() for s in args.select.split(",") if s.strip())
        unknown = [s for s in select if s not in ANALYSES]
        if unknown:
            raise bad(f"unknown analysis kind '{unknown[0]}'; kinds are: " + ", ".join(ANALYSES))
    else:
        select = conf.select or tuple(ANALYSES)
    bound = args.bound if args.bound is not None else (conf.bound or 1)
    # A bound given is searched exactly; by default, what no game of one round answers is
    # asked of longer games (Options.deepen_to).
    given = args.bound is not None or bool(conf.bound)
    deepen_to = bound if given else DEFAULT_DEPTH
    further_to = bound if given else FURTHER_DEPTH
    if not 1 <= bound <= limits.MAX_BOUND:
        raise bad(f"--bound must be between 1 and {limits.MAX_BOUND}")
    timeout, rlimit = solver_limits(args, conf.timeout, conf.rlimit)
    exclude = conf.exclude + tuple(p.strip() for arg in getattr(args, "exclude", []) or []
                                   for p in arg.split(",") if p.strip())
    options = Options(bound=bound, deepen_to=deepen_to, further_to=further_to, timeout=timeout, rlimit=rlimit)
    return CheckPlan(select, options, conf.severity, args.baseline or conf.baseline, exclude)


def solver_limits(args: argparse.Namespace, timeout: float | None = None, rlimit: int | None = None,
                  default_timeout: float = 300.0) -> tuple[float, int]:
    """--timeout and --rlimit over the configuration's; SpecError (exit 2) when unusable."""
    timeout = args.timeout if args.timeout is not None else (timeout or default_timeout)
    problem = limits.timeout_problem(timeout)
    if problem:
        raise SpecError([Diagnostic(f"--timeout {problem}", None, "mafiacheck")])
    rlimit = args.rlimit if args.rlimit is not None else (rlimit or 20_000_000)
    problem = limits.rlimit_problem(rlimit)
    if problem:
        raise SpecError([Diagnostic(f"--rlimit {problem}", None, "mafiacheck")])
    return timeout, rlimit


def check_results(paths: list[str], plan: CheckPlan, progress: TextIO | None = None) -> list[FileResult]:
    """Every spec under `paths` checked, with the baseline applied if there is one.
    `progress`: where to say what is being checked (a terminal's standard error), or None."""
    found, problems = collect_paths(paths, plan.exclude)
    results = [FileResult(d.path, diagnostics=[d]) for d in problems]
    results += _check_all(found, plan, progress)
    if plan.baseline:
        results = baseline.apply(results, baseline.load(plan.baseline))
    return results


def _check_all(paths: list[str], plan: CheckPlan, progress: TextIO | None = None) -> list[FileResult]:
    """Each spec, and each group of its analyses (pipeline.PARTS), in its own process, as
    many at once as there are cores: they share nothing (every question has its own Z3
    context, every group its own encodings), so the report is the same as one at a time, in
    the same order, in about half the time on two cores."""
    files = [p for p in paths if p != STDIN]
    workers = min(len(files) * max(len(parts_of(plan.select)), 1), os.cpu_count() or 1)
    # In this process progress goes to the stream given; a worker process can only reach our
    # standard error, which it shares (progress is only shown when that is a terminal).
    say = functools.partial(_say_to, progress) if progress is not None else None
    done: dict[str, FileResult] = {}
    if STDIN in paths:  # read here: a worker process has no standard input of ours
        try:
            source = read_stdin()
        except SpecError as exc:
            done[STDIN] = FileResult(STDIN_NAME, diagnostics=exc.diagnostics)
        else:
            done[STDIN] = check_file(STDIN_NAME, plan.select, plan.options, plan.severity,
                                     progress=say, source=source)
    if workers < 2:
        for i, p in enumerate(files, 1):
            done[p] = check_file(p, plan.select, plan.options, plan.severity, progress=say)
            _spec_done(progress, i, len(files), p)
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers, initializer=_worker_start, initargs=(os.getpid(),)) as pool:
            remote = _say_progress if progress is not None else None
            # A job per spec and group of analyses (pipeline.PARTS: the stalemate proof runs
            # beside the rest), the largest specs first (size stands for cost: the workers
            # then end together rather than one starting the costliest last). Each group
            # builds its own encodings, so the report is the one check_file gives, in the
            # paths' order.
            parts = parts_of(plan.select) or [()]
            jobs = {p: [pool.submit(analyse_part, p, plan.select, part, plan.options, progress=remote)
                        for part in parts]
                    for p in sorted(files, key=_cost, reverse=True)}
            for i, p in enumerate(files, 1):
                merged = merge(p, plan.select, [job.result() for job in jobs[p]])
                done[p] = finish(merged, plan.select, plan.severity)
                _spec_done(progress, i, len(files), p)
    return [done[p] for p in paths]


def _cost(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _say_to(stream: TextIO, message: str) -> None:
    stream.write(f"mafiacheck: {message}\n")
    stream.flush()


def _say_progress(message: str) -> None:
    """Progress from a worker process (a module-level function: it is pickled by name)."""
    _say_to(sys.stderr, message)


def _spec_done(progress: TextIO | None, index: int, total: int, path: str) -> None:
    if progress is not None:
        progress.write(f"mafiacheck: [{index}/{total}] {path} done\n")
        progress.flush()


def _wants_progress(args: argparse.Namespace, err: TextIO) -> bool:
    """Progress only for a person watching: standard error a terminal, and no -q."""
    if args.quiet:
        return False
    try:
        return err.isatty()
    except (AttributeError, ValueError):
        return False


def _worker_start(check: int) -> None:
    # In a worker: Ctrl-C reaches the whole process group, and the parent alone decides
    # (it stops the workers); a worker left to raise KeyboardInterrupt prints a traceback.
    # A check killed outright cannot stop them: the kernel does (children.die_with_parent).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(check)


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    code = _run_check(args, out, err)
    if args.exit_zero and code in (EXIT_FINDINGS, EXIT_INCONCLUSIVE):
        return EXIT_OK
    return code


def _run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        plan = plan_check(args)
        if args.write_baseline:
            plan = replace(plan, baseline=None)
        results = check_results(args.paths, plan, err if _wants_progress(args, err) else None)
    except SpecError as exc:
        for d in exc.diagnostics:
            err.write(d.render(d.line_text) + "\n")
        return EXIT_INPUT
    if args.statistics:
        report = statistics.render(results)
    else:
        render = CHECK_FORMATS[args.format]
        if args.format in ("text", "markdown"):
            render = functools.partial(render, show_suppressed=args.show_suppressed)
        if args.format == "text":
            render = functools.partial(render, show_verdicts=args.show_verdicts)
        report = render(results)
    if args.format == "github" and not args.statistics:
        for warning in github.step_summary(results):
            err.write(f"mafiacheck: {warning}\n")
    if args.output:
        try:
            Path(args.output).write_text(report, encoding="utf-8")
        except OSError as exc:
            err.write(f"mafiacheck: cannot write {args.output}: {exc}\n")
            return EXIT_INPUT
    elif not _write(out, report):
        # The reader went away (`… | head`): what was read of the report is all it wanted,
        # and the exit code is the run's, as for a report written in full.
        return exit_code(results)
    if args.write_baseline:
        if any(r.diagnostics for r in results):
            err.write("mafiacheck: no baseline written: some specs could not be read\n")
            return EXIT_INPUT
        recorded = baseline.record(results, args.write_baseline)
        try:
            Path(args.write_baseline).write_text(baseline.render(recorded), encoding="utf-8")
        except OSError as exc:
            err.write(f"mafiacheck: cannot write {args.write_baseline}: {exc}\n")
            return EXIT_INPUT
        count = len(recorded.entries)
        err.write(f"mafiacheck: {count} finding{'s' if count != 1 else ''} recorded in "
                  f"{args.write_baseline}\n")
        # What is left once the new baseline applies: only inconclusive results can be.
        return exit_code(baseline.apply(results, recorded))
    return exit_code(results)


def _write(out: TextIO, text: str) -> bool:
    """Write and flush; False when the reader has gone (a closed pipe)."""
    try:
        out.write(text)
        out.flush()
        return True
    except BrokenPipeError:
        _quiet_stdout()
        return False


def _quiet_stdout() -> None:
    # Point stdout at devnull so the interpreter's final flush does not complain either.
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _load_spec(path: str, err: TextIO) -> Scenario | None:
    from .pipeline import check_file

    result = check_file(path, ())
    if result.diagnostics:
        err.write(text.render([result]))
        return None
    return result.scenario


def _report_input_error(exc: SpecError, source_text: str | None, err: TextIO) -> int:
    from .report import people

    lines = source_text.split("\n") if source_text else []
    for d in exc.diagnostics:
        line = lines[d.span.line - 1] if d.span and 0 < d.span.line <= len(lines) else None
        err.write(people.lines(d.render(line).split("\n")) + "\n")
    return EXIT_INPUT


def run_ask(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .encode.solver import Limits
    from .queries import answer_all, judged
    from .query_text import load_queries
    from .report import answer as answer_report

    try:
        timeout, rlimit = solver_limits(args, default_timeout=120.0)
    except SpecError as exc:
        return _report_input_error(exc, None, err)
    scenario = _load_spec(args.spec, err)
    if scenario is None:
        return EXIT_INPUT
    results, failures, gaps = [], [], []
    for arg in args.queries:
        source = None
        try:
            source, queries = load_queries(arg)
            answered = answer_all(scenario, source, queries, Limits(timeout=timeout, rlimit=rlimit))
        except SpecError as exc:
            return _report_input_error(exc, source.text if source else _text_of(arg), err)
        for answer, names, q, bound in answered:
            results.append((answer, names))
            failed, known = judged(answer, q, bound, scenario, source.path)
            failures += failed
            gaps += known
    if args.format == "json":
        report = answer_report.render_json(results, failures, gaps)
    else:
        report = (answer_report.render_text(results) + "".join(f"KNOWN GAP: {g}\n" for g in gaps)
                  + "".join(f"EXPECTATION FAILED: {f}\n" for f in failures))
    _write(out, report)  # a reader that stops early (`| head`) does not change the answer
    if failures:
        return EXIT_FINDINGS
    # An open question the solver could not answer is no pass, as in `check`.
    return EXIT_INCONCLUSIVE if any(a.verdict == "inconclusive" for a, _ in results) else EXIT_OK


def _text_of(arg: str) -> str | None:
    import os
    if os.path.isfile(arg):
        try:
            with open(arg, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError):
            return None
    return arg if arg.lstrip().startswith("query") else f"query inline {{\n{arg}\n}}\n"


def run_simulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .interpreter.bind import Binder
    from .query_text import load_queries
    from .report import people
    from .simulate import simulate

    scenario = _load_spec(args.spec, err)
    if scenario is None:
        return EXIT_INPUT
    source = None
    try:
        source, queries = load_queries(args.script)
        if len(queries) != 1:
            raise SpecError([Diagnostic("a script holds exactly one `query` block (the game)",
                                        None, source.path)])
        bound = Binder(scenario, source.path).bind(queries[0])
    except SpecError as exc:
        return _report_input_error(exc, source.text if source else _text_of(args.script), err)
    log = simulate(scenario, bound)
    rendered = log.render(args.format)
    _write(out, people.lines(rendered.split("\n")) if args.format == "text" else rendered)
    return log.exit_code


def run_fmt(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import fmt

    return fmt.run(args.paths, out, err, check=args.check, diff=args.diff)


def run_explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.code is None:  # the list the configuration's hints point to
        for c in sorted(registry.CODES.values(), key=lambda c: c.code):
            out.write(f"{c.code}  {c.kind:<21} {c.severity:<8} {c.name}\n")
        return EXIT_OK
    code = registry.lookup(args.code)
    if code is None:
        err.write(f"mafiacheck: unknown code '{args.code}'; codes are: "
                  + ", ".join(sorted(registry.CODES)) + "\n")
        return EXIT_INPUT
    out.write(explain.text(code))
    return EXIT_OK


def _utf8(stream: TextIO) -> TextIO:
    # Role names are Persian and Russian: never let a legacy terminal encoding crash a report.
    if getattr(stream, "encoding", "utf-8").lower().replace("-", "") != "utf8":
        try:
            if isinstance(stream, io.TextIOWrapper):  # the one kind of stream that can be
                stream.reconfigure(encoding="utf-8", errors="replace")
        except (AttributeError, ValueError):
            pass
    return stream


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    if out is None:
        out = _utf8(sys.stdout)
    if err is None:
        err = _utf8(sys.stderr)
    die_with_parent()  # a server's child: gone with the server (children.PARENT_ENV)
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        err.write(f"{exc}\n")
        return EXIT_INPUT
    try:
        if args.command in ("lsp", "serve"):  # servers: they run their own loop, in this thread
            return _dispatch(args, out, err)
        return _interruptible(lambda: _dispatch(args, out, err), err)
    except BrokenPipeError:
        # The reader went away (`mafiacheck … | head`) before the command knew its result:
        # stop quietly, as Unix tools do.
        _quiet_stdout()
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        err.write("mafiacheck: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug: say so, with its own exit code
        return _internal_error(exc, err)


def _interruptible(work: Callable[[], int], err: TextIO) -> int:
    """Run the command in a worker thread, so that Ctrl-C stops it at once: Python handles a
    signal only in the main thread and only between bytecodes, so a long Z3 call would
    otherwise hold it for minutes (and a KeyboardInterrupt raised inside ctypes comes out as
    an ArgumentError traceback). On Ctrl-C the main thread stops the worker processes and
    exits 130 without unwinding the worker thread."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the main thread, which raises it
            box["error"] = exc

    worker = threading.Thread(target=run, name="mafiacheck", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        import multiprocessing

        children = multiprocessing.active_children()
        for child in children:
            child.terminate()
        for child in children:  # gone before we are, so nothing is left running
            child.join(1.0)
            if child.is_alive():
                child.kill()
        try:
            err.write("mafiacheck: interrupted\n")
            err.flush()
        except (OSError, ValueError):
            pass
        os._exit(130)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _internal_error(exc: Exception, err: TextIO) -> int:
    """A bug in the checker, not in the input: one line that says where, and exit 4 (never
    the exit code of a finding, an unreadable input or a solver that gave up). Set
    MAFIACHECK_TRACEBACK=1 for the whole traceback."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    err.write(f"mafiacheck: internal error ({type(exc).__name__}: {exc}){where}; "
              "please report it with the input that shows it\n")
    if os.environ.get("MAFIACHECK_TRACEBACK"):
        traceback.print_exception(exc, file=err)
    return EXIT_INTERNAL


def _dispatch(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.command == "check":
        return run_check(args, out, err)
    if args.command == "explain":
        return run_explain(args, out, err)
    if args.command == "ask":
        return run_ask(args, out, err)
    if args.command == "simulate":
        return run_simulate(args, out, err)
    if args.command == "fmt":
        return run_fmt(args, out, err)
    if args.command == "lsp":
        from .lsp.server import main as lsp_main  # imported only here: --help stays light
        return lsp_main()
    if args.command == "serve":
        from .serve.app import main as serve_main
        return serve_main(args.specs, args.host, args.port, args.timeout, out, err)
    build_parser().print_help(out)
    return EXIT_INPUT
