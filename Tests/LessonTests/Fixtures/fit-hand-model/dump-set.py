#!/usr/bin/env python3
"""Writes the hand-split test set as plain text for fit.swift: the curriculum (Lessons/**/*.mid,
tracks "Right Hand"/"Left Hand") and the scores of ../hands (tracks "RH"/"LH").

    .venv-peers/bin/python Tests/LessonTests/Fixtures/fit-hand-model/dump-set.py > /tmp/hand-set.txt

Each piece: "# name style ticks-per-quarter notes", then "start end key hand" lines (hand 0 =
right, 1 = left), sorted by start then key.
"""
import glob
import os
import sys

import mido

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
HANDS = os.path.join(ROOT, "Tests", "LessonTests", "Fixtures", "hands")


def dump(path, style, right, left):
    f = mido.MidiFile(path)
    notes = []
    for t in f.tracks:
        name, now, sounding = None, 0, {}
        for m in t:
            now += m.time
            if m.type == "track_name" and name is None:
                name = m.name
            if m.type == "note_on" and m.velocity > 0:
                sounding.setdefault((m.channel, m.note), []).append(now)
            elif m.type in ("note_off", "note_on") and sounding.get((m.channel, m.note)):
                start = sounding[(m.channel, m.note)].pop(0)
                if name not in (right, left):
                    sys.exit(f"{path}: track {name!r} is neither {right!r} nor {left!r}")
                notes.append((start, now, m.note, 0 if name == right else 1))
    notes.sort()
    print(f"# {os.path.basename(path)} {style} {f.ticks_per_beat} {len(notes)}")
    for n in notes:
        print("%d %d %d %d" % n)


for p in sorted(glob.glob(os.path.join(ROOT, "Lessons", "**", "*.mid"), recursive=True)):
    dump(p, "curriculum", "Right Hand", "Left Hand")
with open(os.path.join(HANDS, "index.tsv")) as index:
    for line in list(index)[1:]:
        stem, style = line.split("\t")[:2]
        dump(os.path.join(HANDS, stem + ".mid"), style, "RH", "LH")
