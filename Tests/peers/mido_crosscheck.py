#!/usr/bin/env python3
"""Cross-check `etude events --json` against mido on a set of MIDI files.

Usage: mido_crosscheck.py ETUDE_BINARY FILE...

For every file both readers accept, per track: same event count, same kinds, channels and data
bytes, same absolute ticks; seconds within 1e-6 (mido's own merged-playback algorithm, the one
`for msg in MidiFile(...)` uses); duration within 1e-3 s of `MidiFile.length`.

Deliberate differences, each checked rather than ignored:
- System common / realtime messages (F1-F6, F8-FE) do not belong in a file. mido keeps them as
  messages; Etude skips them and reports one warning each. The script removes them from mido's
  list and requires the same number of "illegal ..." warnings from Etude.
- mido strips a leading F0 and a trailing F7 from sysex data and reads F7 escapes as sysex;
  both sides are normalised the same way before comparing.
- Files mido refuses (it is stricter) are reported as "mido rejects"; Etude must still read them.
- Format 2 files: mido cannot iterate them, so seconds are computed per track with mido's
  formula, each track following only its own tempo events.
Prints one line per file and a closing "N passed, N failed" line; exit 1 on any mismatch.
"""
import json
import subprocess
import sys

import mido
from mido.midifiles.units import tick2second

SYSTEM = {"quarter_frame", "songpos", "song_select", "tune_request", "clock", "start",
          "continue", "stop", "active_sensing", "reset"}

KIND = {"note_off": "noteOff", "note_on": "noteOn", "polytouch": "polyPressure",
        "control_change": "controlChange", "program_change": "programChange",
        "aftertouch": "channelPressure", "pitchwheel": "pitchBend"}


def read_vlq(b, i):
    v = 0
    while True:
        c = b[i]
        i += 1
        v = (v << 7) | (c & 0x7F)
        if c < 0x80:
            return v, i


def mido_events(track):
    """(tick, kind, channel, data) for each message, and the count of system messages dropped."""
    out, dropped, tick = [], 0, 0
    for msg in track:
        tick += msg.time
        if msg.type in SYSTEM:
            dropped += 1
            continue
        if msg.is_meta:
            raw = msg.bytes()
            _, i = read_vlq(raw, 2)
            out.append((tick, "meta", raw[1], list(raw[i:])))
        elif msg.type == "sysex":
            out.append((tick, "sysex", None, list(msg.data)))
        else:
            raw = msg.bytes()
            out.append((tick, KIND[msg.type], raw[0] & 0x0F, list(raw[1:])))
    return out, dropped


def etude_events(track):
    out = []
    for e in track["events"]:
        kind = e["kind"]
        if kind in ("sysex", "escape"):
            data = list(e["data"])
            if data and data[0] == 0xF0:
                data = data[1:]
            if data and data[-1] == 0xF7:
                data = data[:-1]
            out.append((e["tick"], "sysex", None, data))
        elif kind == "meta":
            out.append((e["tick"], "meta", e["type"], e["data"]))
        else:
            out.append((e["tick"], kind, e["channel"], e["data"]))
    return out


def mido_seconds(mid):
    """Seconds per (track, index), exactly as mido's merged iteration computes them."""
    tpb = mid.ticks_per_beat
    result = {}
    if mid.type == 2:
        for t, track in enumerate(mid.tracks):
            tempo, now = 500000, 0.0
            for i, msg in enumerate(track):
                if msg.time > 0:
                    now += tick2second(msg.time, tpb, tempo)
                result[(t, i)] = now
                if msg.type == "set_tempo":
                    tempo = msg.tempo
        return result
    merged = []
    for t, track in enumerate(mid.tracks):
        tick = 0
        for i, msg in enumerate(track):
            tick += msg.time
            merged.append((tick, t, i, msg))
    merged.sort(key=lambda m: m[0])  # stable, as mido.merge_tracks
    tempo, now, last = 500000, 0.0, 0
    for tick, t, i, msg in merged:
        delta = tick - last
        last = tick
        if delta > 0:
            now += tick2second(delta, tpb, tempo)
        result[(t, i)] = now
        if msg.type == "set_tempo":
            tempo = msg.tempo
    return result


def check(etude, path):
    proc = subprocess.run([etude, "events", path, "--json"], capture_output=True, text=True)
    try:
        mid = mido.MidiFile(path)
        mido_error = None
    except Exception as exc:  # mido is stricter than Etude
        mid, mido_error = None, f"{type(exc).__name__}: {exc}"
    if proc.returncode != 0:
        if mid is None:
            return True, f"both reject ({proc.stderr.strip()})"
        return False, f"etude rejects a file mido reads: {proc.stderr.strip()}"
    doc = json.loads(proc.stdout)
    if mid is None:
        return True, f"mido rejects ({mido_error}); etude reads {len(doc['tracks'])} tracks"
    if len(doc["tracks"]) != len(mid.tracks):
        return False, f"track count {len(doc['tracks'])} vs mido {len(mid.tracks)}"
    seconds = mido_seconds(mid)
    dropped_total = 0
    for t, (etrack, mtrack) in enumerate(zip(doc["tracks"], mid.tracks)):
        mine = etude_events(etrack)
        theirs, dropped = mido_events(mtrack)
        dropped_total += dropped
        if len(mine) != len(theirs):
            return False, f"track {t + 1}: {len(mine)} events vs mido {len(theirs)}"
        for k, (a, b) in enumerate(zip(mine, theirs)):
            if a != b:
                return False, f"track {t + 1} event {k}: {a} vs mido {b}"
        # seconds: map mido indices (including dropped system messages) to kept events
        kept = [i for i, msg in enumerate(mtrack) if msg.type not in SYSTEM]
        for k, i in enumerate(kept):
            mine_s = etrack["events"][k]["seconds"]
            if abs(mine_s - seconds[(t, i)]) > 1e-6:
                return False, f"track {t + 1} event {k}: {mine_s} s vs mido {seconds[(t, i)]} s"
    illegal = sum(1 for w in doc["warnings"] if w["message"].startswith("illegal "))
    if illegal != dropped_total:
        return False, f"{illegal} illegal-message warnings but mido kept {dropped_total} system messages"
    if mid.type != 2:
        if abs(doc["durationSeconds"] - mid.length) > 1e-3:
            return False, f"duration {doc['durationSeconds']} vs mido {mid.length}"
    note = f"; {dropped_total} system messages skipped with warnings" if dropped_total else ""
    return True, f"{sum(len(t['events']) for t in doc['tracks'])} events match{note}"


def main():
    etude, files = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for path in files:
        ok, message = check(etude, path)
        print(f"{'ok  ' if ok else 'FAIL'} {path.rsplit('/', 1)[-1]}: {message}")
        if ok:
            passed += 1
        else:
            failed += 1
    print(f"crosscheck: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
