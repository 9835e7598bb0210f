import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def pytest_terminal_summary(terminalreporter):
    """The generated differential run's coverage table, when it ran."""
    module = sys.modules.get("test_differential_generated")
    for table in getattr(module, "TABLES", ()):
        terminalreporter.write_sep("-", "differential coverage")
        terminalreporter.write_line(table)
