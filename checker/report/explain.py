"""A finding code's documentation, from the registry, in the four fixed sections (what it
means, why it matters, an example, how to fix): as text for `mafiacheck explain` and as
Markdown for the SARIF rules' help."""

from __future__ import annotations

from ..registry import Code

SECTIONS = ("What it means", "Why it matters", "Example", "How to fix")


def _sections(code: Code) -> list[tuple[str, str]]:
    return list(zip(SECTIONS, (code.summary, code.why, code.example, code.fix)))


def text(code: Code) -> str:
    """`mafiacheck explain CODE`: a title line, then each section indented under its heading."""
    out = [f"{code.code} {code.name} ({code.kind}, {code.severity})", ""]
    for heading, body in _sections(code):
        out.append(heading)
        out += [f"  {line}" for line in body.splitlines()]
        out.append("")
    return "\n".join(out[:-1]) + "\n"


def markdown(code: Code) -> str:
    """The same sections as Markdown; the example is a code block."""
    out = [f"**{code.code} {code.name}** ({code.kind}, {code.severity})", ""]
    for heading, body in _sections(code):
        out.append(f"### {heading}")
        out.append("")
        if heading == "Example":
            fence = "````" if "```" in body else "```"
            out += [fence, body, fence]
        else:
            out.append(body)
        out.append("")
    return "\n".join(out[:-1]) + "\n"
