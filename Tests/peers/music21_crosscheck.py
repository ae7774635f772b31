#!/usr/bin/env python3
"""music21's reading of MusicXML files, for Etude's cross-check (Tests/MusicXMLTests).

  music21_crosscheck.py notes FILE...      one JSON line per file: "expanded", the notes music21
                                           reads with repeats expanded (expandRepeats) and ties
                                           merged (stripTies), at sounding pitch: [midi, onset in
                                           quarters, staff], staff = index of the part (a
                                           piano's two staves are two parts) among the parts
                                           that have pitched notes, grace notes and chord
                                           symbols left out; "tieEnds": the notes that end a
                                           tie, before merging; "written": the same without
                                           expanding repeats
  music21_crosscheck.py corpus NAME...     the paths of music21 corpus works (corpus.getWork)
  music21_crosscheck.py generate DIR       writes MusicXML that music21 makes from its own
                                           streams (corpus pieces in other formats, and
                                           streams built here) into DIR; prints the paths
  music21_crosscheck.py time FILE [N]      best of N seconds music21 takes to parse FILE
"""
import json
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")


def notes_of(path, expand=True):
    import music21
    s = music21.converter.parse(path, forceSource=True)
    found, error = notes_in(s, expand)
    return (found["notes"] if found else None), error


def notes_in(s, expand=True):
    import music21
    try:
        s = s.toSoundingPitch()
    except Exception:
        pass
    parts = list(s.parts) if hasattr(s, "parts") and len(s.parts) else [s]
    out = []
    tied = []
    staff = 0
    for p in parts:
        if expand:
            try:
                p = p.expandRepeats()
            except Exception as e:  # music21 refuses some repeat structures
                return None, f"expandRepeats: {type(e).__name__}: {e}"
        # Notes that end a tie, before merging: where stripTies leaves or drops notes.
        ends = []
        for n in p.flatten().notes:
            if n.duration.isGrace or isinstance(n, music21.harmony.ChordSymbol):
                continue
            members = list(n.notes) if hasattr(n, "notes") and n.isChord else [n]
            for m in members:
                t = m.tie if m.tie is not None else getattr(n, "tie", None)
                if t is not None and t.type in ("stop", "continue") and hasattr(m, "pitch"):
                    ends.append([int(round(m.pitch.ps)), float(n.offset)])
        p = p.stripTies()
        found = []
        for n in p.flatten().notes:
            # Grace notes are not played by Etude; chord symbols are not notes of the score.
            if n.duration.isGrace or isinstance(n, music21.harmony.ChordSymbol):
                continue
            pitches = getattr(n, "pitches", None)
            if not pitches:
                continue
            for pt in pitches:
                found.append([int(round(pt.ps)), float(n.offset), staff])
        if found:
            out += found
            tied += [e + [staff] for e in ends]
            staff += 1
    out.sort()
    tied.sort()
    return {"notes": out, "tieEnds": tied}, None


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "notes":
        import music21
        for path in args:
            written = None
            try:
                s = music21.converter.parse(path, forceSource=True)
                written, _ = notes_in(s, expand=False)
                notes, error = notes_in(s, expand=True)
            except Exception as e:
                notes, error = None, f"{type(e).__name__}: {e}"
            print(json.dumps({"file": path, "expanded": notes, "written": written, "error": error}), flush=True)
        return 0
    if cmd == "corpus":
        import music21
        for name in args:
            try:
                print(str(music21.corpus.getWork(name)))
            except Exception as e:
                print(f"missing {name}: {e}", file=sys.stderr)
        return 0
    if cmd == "generate":
        return generate(args[0])
    if cmd == "time":
        import music21
        path, n = args[0], int(args[1]) if len(args) > 1 else 3
        best = float("inf")
        for _ in range(n):
            t = time.perf_counter()
            music21.converter.parse(path, forceSource=True)
            best = min(best, time.perf_counter() - t)
        print(json.dumps({"seconds": best}))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


def generate(folder):
    """MusicXML written by music21 itself: other-format corpus pieces, and streams built here
    (two staves, chords, ties, tuplets, voices, repeats with endings, a pickup)."""
    import music21
    from music21 import stream, note, chord, meter, key, bar, spanner, clef, layout, duration, tie
    os.makedirs(folder, exist_ok=True)
    written = []

    def write(s, name):
        path = os.path.join(folder, name + ".musicxml")
        s.write("musicxml", fp=path)
        written.append(path)

    for work in ["chopin/mazurka06-2.krn", "bach/bwv846", "essenFolksong/han1.abc",
                 "ryansMammoth/BritishGrenadiersMarch", "airdsAirs/book1.abc"]:
        try:
            s = music21.corpus.parse(work)
            if isinstance(s, music21.stream.Opus):
                s = s.scores[0]
            write(s, "corpus-" + work.replace("/", "-").replace(".", "-"))
        except Exception as e:
            print(f"skipped {work}: {type(e).__name__}: {e}", file=sys.stderr)

    # A piano piece built here: two staves, a pickup, chords, ties over the bar line,
    # triplets, two voices in the right hand, a repeat with first and second endings.
    sc = stream.Score()
    rh = stream.PartStaff(id="RH")
    lh = stream.PartStaff(id="LH")
    rh.insert(0, clef.TrebleClef())
    lh.insert(0, clef.BassClef())
    pickup = stream.Measure(number=0)
    pickup.append(meter.TimeSignature("3/4"))
    pickup.append(key.Key("G"))
    pickup.append(note.Note("D5", quarterLength=1))
    pickup.paddingLeft = 2
    rh.append(pickup)
    lp = stream.Measure(number=0)
    lp.append(meter.TimeSignature("3/4"))
    lp.append(note.Rest(quarterLength=1))
    lp.paddingLeft = 2
    lh.append(lp)
    for m in range(1, 9):
        r = stream.Measure(number=m)
        l = stream.Measure(number=m)
        if m == 1:
            r.leftBarline = bar.Repeat(direction="start")
            l.leftBarline = bar.Repeat(direction="start")
        if m == 3:
            v1 = stream.Voice()
            v2 = stream.Voice()
            v1.append(note.Note("B5", quarterLength=3))
            for p in ["G4", "A4", "B4"]:
                v2.append(note.Note(p, quarterLength=1))
            r.insert(0, v1)
            r.insert(0, v2)
        elif m == 4:
            for p in ["C5", "D5", "E5"]:
                n = note.Note(p, quarterLength=1 / 3)
                n.duration.appendTuplet(duration.Tuplet(3, 2))
                n.duration.quarterLength = 1 / 3
                r.append(n)
            r.append(chord.Chord(["G4", "B4", "D5"], quarterLength=2))
        elif m == 5:
            n = note.Note("A5", quarterLength=2)
            r.append(note.Note("F#5", quarterLength=1))
            n.tie = tie.Tie("start")
            r.append(n)
        elif m == 6:
            n = note.Note("A5", quarterLength=1)
            n.tie = tie.Tie("stop")
            r.append(n)
            r.append(note.Note("G5", quarterLength=2))
        else:
            for p in ["G5", "F#5", "E5"]:
                r.append(note.Note(p, quarterLength=1))
        l.append(chord.Chord(["G2", "D3"], quarterLength=2))
        l.append(note.Note("B2" if m % 2 else "C3", quarterLength=1))
        rh.append(r)
        lh.append(l)
    rm = list(rh.getElementsByClass(stream.Measure))
    lm = list(lh.getElementsByClass(stream.Measure))
    # rm[0] is the pickup: rm[8] is bar 8, the first ending.
    rm[8].rightBarline = bar.Repeat(direction="end")
    lm[8].rightBarline = bar.Repeat(direction="end")
    for staffPart, ms in ((rh, rm), (lh, lm)):
        staffPart.insert(0, spanner.RepeatBracket(ms[8], number=1))
        last = stream.Measure(number=9)
        last.append(note.Note("G4" if staffPart is rh else "G2", quarterLength=3))
        staffPart.append(last)
        staffPart.insert(0, spanner.RepeatBracket(last, number=2))
    sc.insert(0, rh)
    sc.insert(0, lh)
    sc.insert(0, layout.StaffGroup([rh, lh], symbol="brace"))
    try:
        write(sc, "built-piano")
    except Exception as e:
        print(f"skipped built-piano: {type(e).__name__}: {e}", file=sys.stderr)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
