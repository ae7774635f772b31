#!/usr/bin/env python3
"""parangonar (DualDTWNoteMatcher, its default offline note matcher) on the performances
`etude-bench follow --write DIR` made: the same accuracy figure as Etude's (the share of score
notes matched to the key that played them, or left unmatched when none did). Prints one JSON
object. Usage: peers_follow.py DIR"""
import glob, json, os, sys, time
import warnings

warnings.filterwarnings("ignore")
import logging

logging.disable(logging.CRITICAL)
import numpy as np
import parangonar as pa

SDT = [("onset_beat", "f4"), ("duration_beat", "f4"), ("onset_quarter", "f4"), ("duration_quarter", "f4"),
       ("onset_sec", "f4"), ("duration_sec", "f4"), ("pitch", "i4"), ("voice", "i4"), ("id", "U256"),
       ("divs_pq", "i4"), ("is_grace", "?")]
PDT = [("onset_sec", "f4"), ("duration_sec", "f4"), ("onset_tick", "i4"), ("duration_tick", "i4"),
       ("pitch", "i4"), ("velocity", "i4"), ("track", "i4"), ("channel", "i4"), ("id", "U256")]


def main():
    right, total, seconds = {}, {}, 0.0
    failed = 0
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        case = json.load(open(path))
        score = np.array([(s[1], max(s[2], 0.01), s[1], max(s[2], 0.01), s[1], max(s[2], 0.01), int(s[0]), 1, f"s{i}", 480, False)
                          for i, s in enumerate(case["score"])], dtype=SDT)
        order = sorted(range(len(case["keys"])), key=lambda k: case["keys"][k][1])
        perf = np.array([(case["keys"][k][1], max(case["keys"][k][2], 0.01), 0, 0, int(case["keys"][k][0]), 80, 0, 0, f"p{k}")
                         for k in order], dtype=PDT)
        start = time.process_time()
        try:
            alignment = pa.DualDTWNoteMatcher()(score, perf)
        except Exception:
            alignment, failed = [], failed + 1
        seconds += time.process_time() - start
        match = {}
        for a in alignment:
            if a.get("label") == "match":
                match[int(str(a["score_id"])[1:])] = int(str(a["performance_id"])[1:])
        kind = case["kind"]
        for i, t in enumerate(case["truth"]):
            if match.get(i, -1) == t:
                right[kind] = right.get(kind, 0) + 1
        total[kind] = total.get(kind, 0) + len(case["truth"])
    out = {"peer": "parangonar", "matcher": "DualDTWNoteMatcher", "version": getattr(pa, "__version__", "?"),
           "accuracy": sum(right.values()) / max(1, sum(total.values())),
           "byKind": {k: right.get(k, 0) / total[k] for k in total}, "cpuSeconds": seconds, "failed": failed}
    print(json.dumps(out))


main()
