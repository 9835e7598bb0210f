"""Validate `check --format junit` against a JUnit XML schema you supply (not a test).

    pip install -e '.[bench]'
    python bench/validate_junit.py PATH/TO/junit-10.xsd

No JUnit schema is committed here: the one Jenkins reads (the xunit plugin's
`junit-10.xsd`) is another project's file, so this script takes its path. It renders the
JUnit report of every broken example (one file each, and all of them in one run) and of
every bundled spec at `--bound 1`, validates each with lxml, and exits 1 if any is invalid.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from lxml import etree

ROOT = Path(__file__).resolve().parent.parent


def reports() -> list[tuple[str, list[str]]]:
    """Each report to validate: a name and the `check` arguments that render it."""
    broken = sorted((ROOT / "examples" / "broken").glob("*.mafia"))
    specs = sorted((ROOT / "specs").glob("*.mafia"))
    one_each = [(p.stem, [str(p)]) for p in broken + specs]
    return one_each + [("examples/broken (one run)", [str(ROOT / "examples" / "broken")])]


def render(args: list[str]) -> bytes:
    command = [sys.executable, "-m", "mafiacheck", "check", *args, "--bound", "1",
               "--format", "junit"]
    return subprocess.run(command, capture_output=True, check=False).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schema", type=Path, help="the JUnit XSD (e.g. the xunit plugin's junit-10.xsd)")
    options = parser.parse_args()
    schema = etree.XMLSchema(etree.parse(str(options.schema)))
    invalid = 0
    checked = reports()
    for name, args in checked:
        text = render(args)
        try:
            document = etree.fromstring(text)
        except etree.XMLSyntaxError as error:
            invalid += 1
            print(f"{name}: not XML: {error}")
            continue
        if not schema.validate(document):
            invalid += 1
            print(f"{name}: {schema.error_log.last_error}")
    print(f"validate_junit: {len(checked)} reports, {invalid} invalid against {options.schema.name}")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
