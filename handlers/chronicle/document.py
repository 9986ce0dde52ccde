"""The chronicle as documents: one Markdown file and one self-contained HTML page.

Both are drawn from the same :class:`Part` list, so they never tell different stories. The
Markdown is also what ``docs/verify_session.py`` reads: every roll made from a session's
seed carries its proof as one code span, ``s<session> d<sides> <identity>#<first die> =
<faces in the order rolled>``, and the seed section the spans ``session N commitment =
<hex>`` and ``session N seed = <hex>`` (table/fairness.py says how a die is derived). A code
span never comes from what a player typed: text is escaped, backticks included, so nobody
can slip a false proof into an honest chronicle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape, unescape

Piece = tuple[str, str]  # ("text" | "bold" | "code", what)


@dataclass
class Part:
    """A section: a heading, and its items, each a line of pieces."""

    heading: str
    items: list[list[Piece]] = field(default_factory=list)
    numbered: bool = False
    note: str | None = None


@dataclass
class Document:
    title: str
    subtitle: str
    parts: list[Part]
    language: str


def plain(text: str) -> str:
    """A bot string with HTML tags (a health line) as plain text for the documents."""
    return unescape(re.sub(r"<[^>]+>", "", text))


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")


def _md_text(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def _md_piece(piece: Piece) -> str:
    kind, what = piece
    if kind == "code":
        return f"`{what}`"
    if kind == "bold":
        return f"**{_md_text(what)}**"
    return _md_text(what)


def markdown(doc: Document) -> str:
    lines = [f"# {_md_text(doc.title)}", "", f"*{_md_text(doc.subtitle)}*", ""]
    for part in doc.parts:
        lines += [f"## {_md_text(part.heading)}", ""]
        if part.note:
            lines += [_md_text(part.note), ""]
        for n, item in enumerate(part.items, start=1):
            marker = f"{n}." if part.numbered else "-"
            lines.append(f"{marker} " + "".join(_md_piece(p) for p in item))
        lines.append("")
    return "\n".join(lines)


_CSS = """
:root { color-scheme: light dark; }
body { font: 16px/1.5 -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
  max-width: 46rem; padding: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 .2rem; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .4rem; border-bottom: 1px solid #8884; }
.sub { color: #888; margin: 0 0 1rem; }
ol, ul { padding-left: 1.4rem; }
li { margin: .25rem 0; overflow-wrap: anywhere; }
code { font: .85em/1.3 ui-monospace, Menlo, Consolas, monospace; background: #8882;
  padding: 0 .2em; border-radius: 3px; overflow-wrap: anywhere; }
.note { color: #888; font-size: .9rem; }
@media print { body { max-width: none; font-size: 11pt; } code { background: none; }
  h2 { break-after: avoid; } li { break-inside: avoid; } }
"""


def _html_piece(piece: Piece) -> str:
    kind, what = piece
    if kind == "code":
        return f"<code>{escape(what)}</code>"
    if kind == "bold":
        return f"<b>{escape(what)}</b>"
    return escape(what)


def html(doc: Document) -> str:
    body = [f"<h1>{escape(doc.title)}</h1>", f'<p class="sub">{escape(doc.subtitle)}</p>']
    for part in doc.parts:
        body.append(f"<h2>{escape(part.heading)}</h2>")
        if part.note:
            body.append(f'<p class="note">{escape(part.note)}</p>')
        if part.items:
            tag = "ol" if part.numbered else "ul"
            items = "".join(
                "<li>" + "".join(_html_piece(p) for p in item) + "</li>" for item in part.items
            )
            body.append(f"<{tag}>{items}</{tag}>")
    return (
        f'<!doctype html>\n<html lang="{escape(doc.language)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(doc.title)}</title><style>{_CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )
