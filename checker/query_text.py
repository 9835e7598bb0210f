"""Reading what-if queries and scripts: a query file, or inline query text."""

from __future__ import annotations

import os

from . import ast
from .build import build
from .errors import Diagnostic, SpecError
from .loader import decode_source, read_source
from .parser import parse
from .source import SourceFile


def load_queries(arg: str) -> tuple[SourceFile, tuple[ast.Query, ...]]:
    """A query file, or inline query text (wrapped in `query inline { … }` when needed)."""
    if os.path.exists(arg):
        source = read_source(arg)
    else:
        text = arg if arg.lstrip().startswith("query") else f"query inline {{\n{arg}\n}}\n"
        source = decode_source("<inline>", text.encode("utf-8"))
    queries = build(parse(source, "queries"), source)
    if not queries:
        raise SpecError([Diagnostic("no query here: a query file holds `query NAME { … }` blocks",
                                    None, source.path)])
    return source, queries
