#!/usr/bin/env python3
"""The manual's topic pages (docs/*.md) as sections of the man page.

    scripts/man-topics.py PAGE.1            rewrites PAGE.1 in place with the topics inserted
    scripts/man-topics.py --list            prints the topic files, in the page's order

swift-argument-parser's generate-manual writes the commands and their options; the manual's
topics (practice, the ear, the instrument, listening, the method, scores, reliability, …) are
the README's "manual" table, each docs/*.md linked there except the developers' pages. Each
becomes one `.Sh` section (its `#` title upper-cased), inserted before the page's AUTHORS (or
at its end), so `man etude` carries the whole manual. The Markdown is the small subset the docs
use: headings, paragraphs, bullet and numbered lists, tables, code blocks, inline code, bold
and links (their text kept). Run by scripts/stage.sh; checked by ManPageTopicsTests.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# Pages for people working on Etude, not using it: linked from the README, not in the man page.
DEVELOPERS = {"DEVELOPMENT.md", "ARCHITECTURE.md"}


def topics():
    """docs/*.md the README links to, in the README's order, without the developers' pages."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    seen = []
    for name in re.findall(r"\(docs/([A-Za-z0-9_-]+\.md)\)", readme):
        if name not in seen and name not in DEVELOPERS:
            seen.append(name)
    return seen


def inline(text):
    """Markdown inline → roff text: links to their text, code and bold to plain, escapes."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("**", "").replace("`", "")
    text = text.replace("\\", "\\e")
    return text


def line(text):
    """One roff text line: never read as a request or macro."""
    text = text.strip()
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    # A `\|` inside a cell is a literal bar.
    parts = re.split(r"(?<!\\)\|", row)
    return [p.strip().replace("\\|", "|") for p in parts]


def convert(markdown):
    """One topic page's Markdown → mdoc lines (its title a `.Sh`)."""
    out = []
    lines = markdown.splitlines()
    i = 0
    in_list = None  # "-bullet" or "-enum" while a list is open
    paragraph = False

    def close_list():
        nonlocal in_list
        if in_list:
            out.append(".El")
            in_list = None

    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if stripped.startswith("```"):
            close_list()
            out.append(".Bd -literal -offset indent")
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                # Indentation kept; a blank line as `\&` (mdoc warns of empty lines).
                code = lines[i].rstrip().replace("\\", "\\e")
                out.append(("\\&" + code) if code.startswith((".", "'")) or not code else code)
                i += 1
            out.append(".Ed")
            paragraph = False
            i += 1
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if heading:
            close_list()
            level, title = len(heading.group(1)), inline(heading.group(2))
            out.append((".Sh " + title.upper()) if level == 1 else (".Ss " + title))
            paragraph = False
            i += 1
            continue
        if stripped.startswith("|") and i + 1 < len(lines) and re.match(r"^\|?\s*:?-{3,}", lines[i + 1].strip()):
            close_list()
            header = cells(stripped)
            i += 2
            out.append(".Bl -tag -width Ds")
            while i < len(lines) and lines[i].strip().startswith("|"):
                row = cells(lines[i])
                out.append(".It " + line(inline(row[0])) if row[0] else ".It \\&")
                rest = [f"{inline(h)}: {inline(c)}" if len(row) > 2 and h else inline(c)
                        for h, c in zip(header[1:], row[1:]) if c]
                if rest:
                    out.append(line("; ".join(rest)))
                i += 1
            out.append(".El")
            paragraph = False
            continue
        item = re.match(r"^(\s*)([-*]|\d+\.)\s+(.*)$", raw)
        if item:
            kind = "-enum" if item.group(2)[0].isdigit() else "-bullet"
            if in_list != kind:
                close_list()
                out.append(".Bl " + kind)
                in_list = kind
            out.append(".It")
            out.append(line(inline(item.group(3))))
            i += 1
            continue
        if not stripped:
            close_list()
            if out and not paragraph and not out[-1].startswith((".Sh", ".Ss")):
                out.append(".Pp")
                paragraph = True
            i += 1
            continue
        if in_list and raw.startswith((" ", "\t")):
            out.append(line(inline(stripped)))  # a list item's continuation
            i += 1
            continue
        close_list()
        out.append(line(inline(stripped)))
        paragraph = False
        i += 1
    close_list()
    while out and out[-1] == ".Pp":
        out.pop()
    return out


def section(name):
    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        return convert(f.read())


def insert(page):
    with open(page, encoding="utf-8") as f:
        text = f.read().splitlines()
    added = []
    for name in topics():
        added += section(name)
    at = next((k for k, l in enumerate(text) if l.startswith(".Sh AUTHORS")), len(text))
    text[at:at] = added
    with open(page, "w", encoding="utf-8") as f:
        f.write("\n".join(text) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        print("\n".join(topics()))
    elif len(sys.argv) == 2:
        insert(sys.argv[1])
    else:
        sys.exit("usage: man-topics.py PAGE.1 | --list")
