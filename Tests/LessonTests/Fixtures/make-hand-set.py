#!/usr/bin/env python3
"""Converts public-domain scores of music21's corpus into the hand-split test set, once.

    .venv-peers/bin/python Tests/LessonTests/Fixtures/make-hand-set.py

(`bash scripts/peer-venv.sh` makes that venv with music21.) Writes:

- hands/<piece>.mid: the two staves of a piano part as two tracks, the upper staff "RH"
  (channel 1) and the lower "LH" (channel 2): staff membership exactly as engraved is the
  ground truth of `HandSetTests`, which merges both tracks into one unnamed track and asks
  the split to find the staves again. hands/index.tsv names each piece and its style.
- voices/<piece>.mid: four-part vocal and string pieces, one track per part, for the
  named-voice and unnamed-parts rules.

Ties are merged, grace notes left out (they have no written length), repeats not expanded
(each written note once). 480 ticks per quarter, the score's time signatures, a fixed tempo.
The files are committed: the tests run offline and never need this script or music21.
"""
import os
import sys
import warnings

import mido
from music21 import corpus, chord, meter, stream

warnings.filterwarnings("ignore")
TPQ = 480
HERE = os.path.dirname(os.path.abspath(__file__))

# (file stem, corpus path, style, composer, work): the two-staff piano music of music21's
# corpus whose composition is in the public domain (see README.md for sources and licences).
PIANO = [
    ("bach-wtc1-prelude-c", "bach/bwv846.mxl", "baroque",
     "J. S. Bach", "Prelude in C major BWV 846 (Well-Tempered Clavier I)"),
    ("cpe-bach-h186", "cpebach/h186.mxl", "baroque",
     "C. P. E. Bach", "Keyboard piece H. 186"),
    ("mozart-k545-i-exposition", "mozart/k545/movement1_exposition.mxl", "classical",
     "W. A. Mozart", "Sonata in C major K. 545, I (exposition)"),
    ("chopin-mazurka-op6-2", "chopin/mazurka06-2.krn", "romantic",
     "F. Chopin", "Mazurka in C-sharp minor op. 6 no. 2"),
    ("clara-schumann-polonaise-op1-1", "schumann_clara/polonaise_op1n1.mxl", "romantic",
     "Clara Schumann", "Polonaise op. 1 no. 1"),
    ("clara-schumann-polonaise-op1-2", "schumann_clara/polonaise_op1n2.mxl", "romantic",
     "Clara Schumann", "Polonaise op. 1 no. 2"),
    ("clara-schumann-polonaise-op1-3", "schumann_clara/polonaise_op1n3.mxl", "romantic",
     "Clara Schumann", "Polonaise op. 1 no. 3"),
    ("clara-schumann-polonaise-op1-4", "schumann_clara/polonaise_op1n4.mxl", "romantic",
     "Clara Schumann", "Polonaise op. 1 no. 4"),
    ("clara-schumann-trio-op17-iii-piano", "schumann_clara/opus17/movement3.xml", "chamber",
     "Clara Schumann", "Piano Trio in G minor op. 17, III (piano part)"),
    ("weber-concertino-op26-piano", "weber/concertino_clarinet.mxl", "chamber",
     "C. M. von Weber", "Clarinet Concertino op. 26 (piano part)"),
    ("schubert-lindenbaum-piano", "schubert/Lindenbaum.xml", "song",
     "F. Schubert", "Der Lindenbaum D 911 no. 5 (piano part)"),
    ("schumann-dichterliebe-2-piano", "schumann_robert/dichterliebe_no2.xml", "song",
     "R. Schumann", "Dichterliebe op. 48 no. 2 (piano part)"),
    ("liliuokalani-aloha-oe-piano", "liliuokalani/aloha_oe.mxl", "song",
     "Liliuokalani", "Aloha Oe (piano part)"),
    ("joplin-maple-leaf-rag", "joplin/maple_leaf_rag.mxl", "ragtime",
     "S. Joplin", "Maple Leaf Rag"),
    ("schoenberg-op19-2", "schoenberg/opus19/movement2.mxl", "modern",
     "A. Schoenberg", "Sechs kleine Klavierstuecke op. 19 no. 2"),
    ("schoenberg-op19-6", "schoenberg/opus19/movement6.mxl", "modern",
     "A. Schoenberg", "Sechs kleine Klavierstuecke op. 19 no. 6"),
]

# (file stem, corpus path, track names, GM programs, first and last bar or None for all).
VOICES = [
    ("bach-chorale-bwv269-satb", "bach/bwv269.mxl", ["Soprano", "Alto", "Tenor", "Bass"], [52, 52, 52, 52], None),
    ("johnson-lift-every-voice-satb", "johnson_j_r/lift_every_voice.mxl", ["Sop.", "Alt", "Ten.", "Bas"], [0, 0, 0, 0], None),
    ("haydn-op74-1-i-quartet", "haydn/opus74no1/movement1.mxl", ["Violin I", "Violin II", "Viola", "Violoncello"], [40, 40, 41, 42], (1, 60)),
]


def piano_staves(score):
    """The upper and lower staff of the score's piano part."""
    for group in score.getElementsByClass("StaffGroup"):
        staves = list(group.getSpannedElements())
        if len(staves) == 2 and all(isinstance(s, stream.PartStaff) for s in staves):
            return staves[0], staves[1]
    parts = list(score.parts)
    if len(parts) == 2:  # Humdrum: two spines, upper staff first after parsing
        return parts[0], parts[1]
    raise SystemExit("no two-staff piano part")


def notes_of(part, bars=None):
    """(start tick, end tick, pitch) of every sounding note, ties merged, graces left out."""
    if bars:
        part = part.measures(bars[0], bars[1])
    flat = part.stripTies().flatten()
    out = []
    for el in flat.notes:
        if el.duration.isGrace or el.duration.quarterLength <= 0:
            continue
        start = int(round(float(el.offset) * TPQ))
        end = start + max(1, int(round(float(el.duration.quarterLength) * TPQ)))
        pitches = el.pitches if isinstance(el, chord.Chord) else [el.pitch]
        for p in pitches:
            out.append((start, end, int(p.midi)))
    return out


def time_signatures(part, bars=None):
    if bars:
        part = part.measures(bars[0], bars[1])
    seen = []
    for ts in part.flatten().getElementsByClass(meter.TimeSignature):
        tick = int(round(float(ts.offset) * TPQ))
        if not seen or seen[-1][1:] != (ts.numerator, ts.denominator):
            seen.append((tick, ts.numerator, ts.denominator))
    return seen or [(0, 4, 4)]


def track(name, channel, program, notes):
    events = []
    for s, e, p in notes:
        events.append((s, 1, mido.Message("note_on", channel=channel, note=p, velocity=80)))
        events.append((e, 0, mido.Message("note_off", channel=channel, note=p, velocity=0)))
    events.sort(key=lambda x: (x[0], x[1], x[2].note))
    t = mido.MidiTrack()
    t.append(mido.MetaMessage("track_name", name=name, time=0))
    if program is not None:
        t.append(mido.Message("program_change", channel=channel, program=program, time=0))
    now = 0
    for tick, _, msg in events:
        t.append(msg.copy(time=tick - now))
        now = tick
    t.append(mido.MetaMessage("end_of_track", time=0))
    return t


def conductor(title, signatures):
    t = mido.MidiTrack()
    t.append(mido.MetaMessage("track_name", name=title, time=0))
    t.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(100), time=0))
    now = 0
    for tick, n, d in signatures:
        t.append(mido.MetaMessage("time_signature", numerator=n, denominator=d, time=tick - now))
        now = tick
    t.append(mido.MetaMessage("end_of_track", time=0))
    return t


def write(path, tracks):
    f = mido.MidiFile(type=1, ticks_per_beat=TPQ)
    f.tracks.extend(tracks)
    f.save(path)


def main():
    os.makedirs(os.path.join(HERE, "hands"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "voices"), exist_ok=True)
    total = 0
    index = ["stem\tstyle\tcomposer\twork\tnotes"]
    for stem, path, style, composer, work in PIANO:
        score = corpus.parse(path)
        upper, lower = piano_staves(score)
        rh, lh = notes_of(upper), notes_of(lower)
        write(os.path.join(HERE, "hands", stem + ".mid"),
              [conductor(stem, time_signatures(upper)), track("RH", 0, 0, rh), track("LH", 1, 0, lh)])
        total += len(rh) + len(lh)
        index.append(f"{stem}\t{style}\t{composer}\t{work}\t{len(rh) + len(lh)}")
        print(f"{stem:40} {style:10} RH {len(rh):5}  LH {len(lh):5}")
    with open(os.path.join(HERE, "hands", "index.tsv"), "w") as f:
        f.write("\n".join(index) + "\n")
    print(f"piano total {total} notes in {len(PIANO)} pieces")
    for stem, path, names, programs, bars in VOICES:
        score = corpus.parse(path)
        parts = list(score.parts)[:4]
        tracks = [conductor(stem, time_signatures(parts[0], bars))]
        counts = []
        for i, (part, name, program) in enumerate(zip(parts, names, programs)):
            notes = notes_of(part, bars)
            tracks.append(track(name, i, program, notes))
            counts.append(f"{name} {len(notes)}")
        write(os.path.join(HERE, "voices", stem + ".mid"), tracks)
        print(f"{stem:40} " + "  ".join(counts))


if __name__ == "__main__":
    sys.exit(main())
