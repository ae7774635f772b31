#!/usr/bin/env python3
"""The notes mido reads from MIDI files with clip=True (data bytes above 127 clipped), as JSON.

Usage: mido_notes.py FILE...   Prints one JSON object: {path: [[[tick, channel, key], ...] per
track] or {"error": message}}. A note is a sounding note-on (velocity > 0) at its absolute tick:
what a player would start. Used by the damaged-file cross-check (MIDIFileTests, "Bad data
bytes"): Etude must keep every note listed here.
"""
import json
import sys

import mido


def notes(path):
    try:
        mid = mido.MidiFile(path, clip=True)
    except Exception as exc:  # mido refuses what it cannot read in step
        return {"error": f"{type(exc).__name__}: {exc}"}
    tracks = []
    for track in mid.tracks:
        tick, out = 0, []
        for msg in track:
            tick += msg.time
            if msg.type == "note_on" and msg.velocity > 0:
                out.append([tick, msg.channel, msg.note])
        tracks.append(out)
    return tracks


def main():
    print(json.dumps({path: notes(path) for path in sys.argv[1:]}))


if __name__ == "__main__":
    main()
