#!/usr/bin/env python3
"""Writes docs/OPTIONS.md from every command's --help: each option once, with the commands that
take it and its help text (the first command's wording; where commands word it differently, each
wording is listed). Run after adding or changing an option: `python3 scripts/options-doc.py
.build/debug/etude > docs/OPTIONS.md`. A test checks that every option in --help has its row."""
import re, subprocess, sys

etude = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/etude"

def help_of(path):
    return subprocess.run([etude, *path, "--help"], capture_output=True, text=True).stdout

def commands():
    queue, out = [[]], {}
    while queue:
        path = queue.pop(0)
        text = help_of(path)
        out[" ".join(path)] = text
        if len(path) < 2 and "SUBCOMMANDS:\n" in text:
            for line in text.split("SUBCOMMANDS:\n", 1)[1].split("\n"):
                if not line:
                    break
                if line.startswith("  ") and not line.startswith("   "):
                    name = line.split()[0]
                    if name != "help" and name[0].islower():
                        queue.append(path + [name])
    return out

def options(text):
    if "OPTIONS:\n" not in text:
        return []
    block = text.split("OPTIONS:\n", 1)[1]
    out, cur = [], None
    for line in block.split("\n"):
        if not line.strip():
            if cur: out.append(cur); cur = None
            continue
        m = re.match(r"^  (-[^ ]+(?:, -[^ ]+)?(?: <[^>]+>)?)(?:\s+(.*))?$", line)
        if m:
            if cur: out.append(cur)
            cur = [m.group(1), m.group(2) or ""]
        elif cur:
            cur[1] = (cur[1] + " " + line.strip()).strip()
    if cur: out.append(cur)
    return out

rows = {}
for cmd, text in commands().items():
    if cmd == "debug-write-history":
        continue
    for spec, desc in options(text):
        names = [s for s in re.findall(r"--?[A-Za-z0-9][A-Za-z0-9-]*", spec.split(" <")[0])]
        long = next((n for n in names if n.startswith("--")), names[0])
        if long in ("--help", "--version"):
            continue
        r = rows.setdefault(long, {"spec": spec, "texts": [], "commands": []})
        if desc and desc not in r["texts"]:
            r["texts"].append(desc)
        r["commands"].append(cmd or "etude")

print("# Options\n")
print("Every option of every command, once: what it means and which commands take it. Generated")
print("from `etude help` by `scripts/options-doc.py` (a test checks every option has its row); where")
print("commands word an option differently, each wording is given.\n")
print("| option | commands | meaning |")
print("|---|---|---|")
for long in sorted(rows, key=lambda s: s.lstrip("-").lower()):
    r = rows[long]
    text = " / ".join(t.replace("|", "\\|") for t in r["texts"])
    cmds = ", ".join(sorted(set(r["commands"])))
    spec = r["spec"].replace("|", "\\|")
    print(f"| `{spec}` | {cmds} | {text} |")
