#!/usr/bin/env python3
"""Parse throughput of the Python peers (symusic, mido) on the same files, best of N passes.

Usage: peers_parse.py [--symusic-only] PASSES FILE...   Prints one JSON line per peer:
{"peer":…, "files":…, "bytes":…, "seconds":…, "mbPerSecond":…, "readable":[paths]}
Only files the peer reads count, and the list is printed so Etude is timed on the same set.
--symusic-only leaves mido out (it reads a few MB/s: too slow for the real-size corpus).
"""
import json
import os
import sys
import time


def bench(name, load, passes, files):
    readable = []
    for f in files:
        try:
            load(f)
            readable.append(f)
        except Exception:
            pass
    total = sum(os.path.getsize(f) for f in readable)
    best = float("inf")
    for _ in range(passes):
        start = time.perf_counter()
        for f in readable:
            load(f)
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"peer": name, "files": len(readable), "bytes": total, "seconds": best,
                      "mbPerSecond": total / 1e6 / best if best > 0 else 0, "readable": readable}))


def main():
    args = sys.argv[1:]
    only = args[:1] == ["--symusic-only"]
    if only:
        args = args[1:]
    passes, files = int(args[0]), args[1:]
    import symusic
    bench("symusic", lambda f: symusic.Score(f), passes, files)
    if only:
        return
    import mido
    bench("mido", lambda f: mido.MidiFile(f), max(1, min(5, passes // 2)), files)  # mido is slow: at most 5 passes


if __name__ == "__main__":
    main()
