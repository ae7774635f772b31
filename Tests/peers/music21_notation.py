#!/usr/bin/env python3
"""music21's notation of piano scores, for Etude's notation cross-check (Tests/NotationTests).

  music21_notation.py generate DIR    writes piano scores music21 makes from streams built here
                                      (tuplets, ties across bar lines and syncopations, dots and
                                      32nds, rests, ottava lines, grace notes, ornaments, two
                                      voices on a staff, chords) into DIR as MusicXML; prints
                                      the paths
  music21_notation.py heads FILE...   one JSON line per file: every written head music21 reads
                                      (chord members one by one, grace notes apart):
                                      [midi at sounding pitch, onset in quarters, staff (index
                                      of the part among the parts), type, dots, tuplet actual
                                      notes (1 for none), tie ("start", "stop", "continue" or
                                      null), ottava (+1 8va, -1 8vb, +2, -2, 0)], "graces":
                                      how many grace notes the file has, and "grace_heads":
                                      [midi, staff] of each; a head that starts a tuplet
                                      says whether it is bracketed (true/false, else null);
                                      "rests": [onset, staff, type, dots, tuplet actual] each
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")


def piano(name, right, left, time="4/4", key_sharps=0, spanners=()):
    """A two-staff piano score from lists of measures, each a list of music21 objects."""
    from music21 import stream, meter, key, clef, layout, metadata
    sc = stream.Score()
    sc.metadata = metadata.Metadata()
    sc.metadata.title = name
    rh = stream.PartStaff(id="RH")
    lh = stream.PartStaff(id="LH")
    for part, measures, c in ((rh, right, clef.TrebleClef()), (lh, left, clef.BassClef())):
        for i, content in enumerate(measures):
            m = stream.Measure(number=i + 1)
            if i == 0:
                m.insert(0, c)
                m.insert(0, meter.TimeSignature(time))
                m.insert(0, key.KeySignature(key_sharps))
            if content and isinstance(content[0], list):
                # Voices: a list of lists.
                for k, v in enumerate(content):
                    voice = stream.Voice(id=str(k + 1))
                    for e in v:
                        voice.append(e)
                    m.insert(0, voice)
            else:
                for e in content:
                    m.append(e)
            part.append(m)
    sc.insert(0, rh)
    sc.insert(0, lh)
    sc.insert(0, layout.StaffGroup([rh, lh], symbol="brace"))
    for make in spanners:
        make(sc, rh, lh)
    return sc


def n(name, ql, **kw):
    from music21 import note, tie
    x = note.Note(name, quarterLength=ql)
    if "tie" in kw:
        x.tie = tie.Tie(kw["tie"])
    return x


def r(ql):
    from music21 import note
    return note.Rest(quarterLength=ql)


def ch(names, ql):
    from music21 import chord
    return chord.Chord(names, quarterLength=ql)


def scores():
    from music21 import expressions, spanner, note
    t = 1 / 3
    out = []
    # Triplets (eighth, quarter and sixteenth), sextuplets, quarter notes under them.
    out.append(piano("tuplets",
                     [[n("C5", t), n("D5", t), n("E5", t), n("F5", 1), n("G5", 2 * t), n("A5", 2 * t), n("B5", 2 * t)],
                      [n("C6", 1 / 6), n("B5", 1 / 6), n("A5", 1 / 6), n("G5", 1 / 6), n("F5", 1 / 6), n("E5", 1 / 6),
                       n("D5", t), n("C5", t), n("B4", t), n("C5", 2)],
                      [n("E5", 1), n("G5", t), n("F5", t), n("E5", t), n("D5", 1), n("C5", 1)]],
                     [[n("C3", 1), n("G3", 1), n("E3", 1), n("G3", 1)],
                      [n("F3", 2), n("G3", 2)],
                      [n("C3", 1), n("E3", t), n("F3", t), n("G3", t), n("C3", 2)]]))
    # Ties over bar lines and syncopations, dots, 32nds, rests where they are written.
    out.append(piano("ties-dots-32nds",
                     [[n("D5", 0.25), n("E5", 0.25, tie="start"), n("E5", 0.5, tie="stop"), n("C5", 0.25), n("A4", 0.5), n("B4", 0.25),
                       n("G4", 2, tie="start")],
                      [n("G4", 1, tie="stop"), n("A4", 1.5), n("B4", 0.5), n("C5", 0.125), n("D5", 0.125), n("E5", 0.25), n("F5", 0.5)],
                      [r(1), n("E5", 0.75), n("D5", 0.25), n("C5", 1.5, tie="start"), n("C5", 0.5, tie="stop")],
                      [n("C5", 4)]],
                     [[r(1), r(2), n("C3", 1)],
                      [n("G2", 3), r(1)],
                      [n("C3", 0.5), r(0.5), n("E3", 0.5), r(0.5), n("G3", 2)],
                      [n("C3", 4)]]))

    # Ottava lines as the score prints them: 8va over the right hand's top, 8vb under the left's bottom.
    def ottavas(sc, rh, lh):
        top = [x for x in rh.recurse().notes][4:8]
        o = spanner.Ottava(top, type="8va")
        o.transposing = False
        rh.insert(0, o)
        low = [x for x in lh.recurse().notes][2:4]
        b = spanner.Ottava(low, type="8vb")
        b.transposing = False
        lh.insert(0, b)

    out.append(piano("ottava",
                     [[n("C6", 1), n("E6", 1), n("G6", 1), n("C7", 1)], [n("E7", 1), n("G7", 1), n("C8", 1), n("G7", 1)],
                      [n("E6", 2), n("C6", 2)]],
                     [[n("C3", 2), n("G2", 2)], [n("C1", 2), n("A0", 2)], [n("C2", 4)]],
                     spanners=(ottavas,)))

    # Grace notes and ornaments (the notes under them are what is compared).
    def graced():
        g1 = note.Note("D5", type="eighth").getGrace()
        g2 = note.Note("B4", type="16th").getGrace(appoggiatura=True)
        c = n("C5", 1)
        tr = n("E5", 1)
        tr.expressions.append(expressions.Trill())
        mo = n("G5", 1)
        mo.expressions.append(expressions.Mordent())
        tu = n("F5", 1)
        tu.expressions.append(expressions.Turn())
        arp = ch(["C4", "E4", "G4", "C5"], 2)
        arp.expressions.append(expressions.ArpeggioMark())
        return [[g1, c, tr, mo, tu], [g2, n("C5", 2), arp]]

    out.append(piano("grace-ornaments", graced(), [[n("C3", 4)], [n("G2", 4)]]))

    # Two voices on the upper staff, chords on the lower.
    out.append(piano("voices-chords",
                     [[[n("E5", 2), n("D5", 2)], [n("C5", 0.5), n("B4", 0.5), n("A4", 0.5), n("G4", 0.5), n("F4", 1), n("E4", 1)]],
                      [[n("C5", 4)], [n("E4", 1), n("G4", 1), n("E4", 2)]]],
                     [[ch(["C3", "E3", "G3"], 2), ch(["B2", "D3", "G3"], 2)], [ch(["C3", "G3"], 4)]]))
    # Rests inside tuplets, tuplets printed without a bracket, quarter-note triplets (unbeamed).
    def nobracket(x):
        for tp in x.duration.tuplets:
            tp.bracket = False
        return x

    out.append(piano("tuplet-rests",
                     [[r(t), n("D5", t), n("E5", t), n("F5", t), r(t), n("A5", t), n("G5", 1), n("C5", t), n("D5", t), r(t)],
                      [n("C5", 2 * t), r(2 * t), n("E5", 2 * t), r(1), n("G5", 1)]],
                     [[nobracket(n("C3", t)), nobracket(n("E3", t)), nobracket(n("G3", t)), n("C3", 3)],
                      [n("G2", 4)]]))
    # Compound time: dotted values and rests in 6/8.
    out.append(piano("compound",
                     [[n("C5", 1.5), n("E5", 1), n("D5", 0.5)], [n("C5", 0.5), r(0.5), n("E5", 0.5), r(1.5)], [n("C5", 3)]],
                     [[n("C3", 3)], [r(1.5), n("G2", 1.5)], [n("C3", 3)]],
                     time="6/8"))
    return out


def generate(directory):
    os.makedirs(directory, exist_ok=True)
    for sc in scores():
        path = os.path.join(directory, sc.metadata.title + ".musicxml")
        sc.write("musicxml", fp=path)
        print(path)


def heads(path):
    import music21
    s = music21.converter.parse(path, forceSource=True)
    ottava_of = {}
    for o in s.recurse().getElementsByClass("Ottava"):
        octaves = {"8va": 1, "8vb": -1, "15ma": 2, "15mb": -2}.get(o.type, 0)
        for e in o.getSpannedElements():
            ottava_of[id(e)] = (octaves, getattr(o, "transposing", True))
    parts = list(s.parts) if len(s.parts) else [s]
    out = []
    graces = 0
    grace_heads = []
    rests = []
    staff = 0
    for p in parts:
        found = False
        for x in p.flatten().notes:
            if x.duration.isGrace:
                graces += len(x.notes) if x.isChord else 1
                for m in (list(x.notes) if x.isChord else [x]):
                    grace_heads.append([int(round(m.pitch.ps)), staff])
                found = True
                continue
            if isinstance(x, music21.harmony.ChordSymbol):
                continue
            found = True
            members = list(x.notes) if x.isChord else [x]
            octaves, transposing = ottava_of.get(id(x), (0, False))
            tup = x.duration.tuplets[0].numberNotesActual if x.duration.tuplets else 1
            first = x.duration.tuplets[0] if x.duration.tuplets else None
            bracket = bool(first.bracket) if first is not None and first.type == "start" else None
            for m in members:
                t = m.tie if m.tie is not None else getattr(x, "tie", None)
                midi = m.pitch.ps + (12 * octaves if transposing else 0)
                out.append([int(round(midi)), float(x.offset), staff, x.duration.type, x.duration.dots, tup,
                            t.type if t is not None else None, octaves, bracket])
        for x in p.flatten().getElementsByClass("Rest"):
            tup = x.duration.tuplets[0].numberNotesActual if x.duration.tuplets else 1
            rests.append([float(x.offset), staff, x.duration.type, x.duration.dots, tup])
        if found:
            staff += 1
    return {"file": path, "heads": out, "graces": graces, "grace_heads": grace_heads, "rests": rests}


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "generate":
        generate(sys.argv[2])
    elif cmd == "heads":
        for path in sys.argv[2:]:
            try:
                print(json.dumps(heads(path)), flush=True)
            except Exception as e:
                print(json.dumps({"file": path, "error": f"{type(e).__name__}: {e}"}), flush=True)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
