#!/usr/bin/env bash
# make bench: release build, then every benchmark with its peer measured in the same run.
set -uo pipefail
corpus="${1:-../shared/corpus/jazz-soft}"
swift build -c release --product etude-bench >/dev/null || exit 1
swift build -c release --product etude >/dev/null || exit 1
bench=.build/release/etude-bench
mkdir -p .build/bench
stress=.build/bench/stress-1M.mid
[ -f "$stress" ] || $bench gen-stress "$stress" --notes 1000000 >/dev/null
py=$(bash scripts/peer-venv.sh)

echo "== MIDI parsing (issue 2): read + event times + note pairing, best of 5 passes (corpus: 100) =="
stress_json=$($bench parse "$stress" --passes 5)
echo "etude 1M-note file: $stress_json"
python3 - "$stress_json" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print(f"  1M notes parsed in {d['seconds']:.3f} s (target < 0.3 s: {'PASS' if d['seconds'] < 0.3 else 'FAIL'}), "
      f"peak RSS {d['peakRSSMB']:.1f} MB (target < 150 MB: {'PASS' if d['peakRSSMB'] < 150 else 'FAIL'})")
PY
if [ -n "$py" ]; then
  for set in corpus stress; do
    # The corpus takes ~2 ms a pass: best of 100 passes (same for the peers) to beat timer noise.
    if [ $set = corpus ]; then files=("$corpus"/*.mid); passes=100; else files=("$stress"); passes=5; fi
    peers=$("$py" Benchmarks/peers_parse.py $passes "${files[@]}")
    sym_files=$(echo "$peers" | python3 -c 'import json,sys; [print(f) for f in json.loads(sys.stdin.readline())["readable"]]')
    mapfile -t symlist <<<"$sym_files"
    etude_json=$($bench parse "${symlist[@]}" --passes $passes)
    python3 - "$set" "$etude_json" "$peers" <<'PY'
import json, sys
name, etude = sys.argv[1], json.loads(sys.argv[2])
peers = [json.loads(l) for l in sys.argv[3].splitlines() if l.strip()]
print(f"  [{name}] etude: {etude['mbPerSecond']:.2f} MB/s over {etude['files']} files ({etude['bytes']} bytes)")
for p in peers:
    ratio = etude['mbPerSecond'] / p['mbPerSecond'] if p['mbPerSecond'] else float('inf')
    target = " (target >= 1.5x: " + ("PASS" if ratio >= 1.5 else "FAIL") + ")" if p['peer'] == 'symusic' else ""
    print(f"  [{name}] {p['peer']}: {p['mbPerSecond']:.2f} MB/s over {p['files']} files -> etude/{p['peer']} = {ratio:.2f}x{target}")
PY
  done
else
  echo "  peers skipped: no peer venv (reason above)"
fi

for sub in render jitter input screen store lesson; do
  echo "== $sub =="
  if [ $sub = screen ]; then
    # The keyboard view's line, then the staff view's (issue 19) with the keyboard's median beside it.
    screen_out=$($bench screen)
    echo "$screen_out"
    python3 - "$screen_out" <<'PY'
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
keyboard = next((d for d in lines if d["bench"] == "screen"), None)
for d in lines:
    if d["bench"] != "screen-staff":
        continue
    print(f"  staff view ({d['view']}, {d['density']}): median {d['median_ms']:.3f} ms build+diff at {d['size']} "
          f"(keyboard view {d['keyboard_view_median_ms']:.3f} ms, ratio {d['staff_over_keyboard']:.2f}x; "
          f"target < 1 ms: {'PASS' if d['median_ms'] < 1.0 else 'FAIL'}), laid out once in {d['layout_once_ms']:.1f} ms")
PY
  else
    $bench $sub
  fi
done

echo "== practice screen (issue 16): the 1,000,000-note lesson opened by etude practice on a pseudo-terminal =="
# Time to the first frame, the longest gap between frames over 5 s of playing, peak RSS; the
# small built-in lesson beside it as the baseline of the same run.
small_json=$($bench practice-open Lessons/level4/ode-to-joy.mid --etude .build/release/etude --seconds 2 --title "Ode to Joy")
open_json=$($bench practice-open "$stress" --etude .build/release/etude --seconds 5)
echo "$open_json"
python3 - "$open_json" "$small_json" <<'PY'
import json, sys
d, small = json.loads(sys.argv[1]), json.loads(sys.argv[2])
if "error" in d:
    print(f"  FAIL: {d['error']}")
    sys.exit(0)
ok = lambda c: "PASS" if c else "FAIL"
print(f"  1M notes: first frame {d['firstFrameSeconds']:.2f} s (target < 1 s: {ok(d['firstFrameSeconds'] < 1)}), "
      f"peak RSS {d['peakRSSMB']:.0f} MB (target < 400 MB: {ok(d['peakRSSMB'] < 400)}), "
      f"longest gap between frames while playing {d['maxFrameGapSeconds'] * 1000:.0f} ms (no freeze: {ok(d['maxFrameGapSeconds'] < 0.25)})")
if "error" not in small:
    print(f"  an 83-note lesson (Ode to Joy) in the same run: first frame {small['firstFrameSeconds']:.2f} s, peak RSS {small['peakRSSMB']:.0f} MB "
          f"-> 1M-note/83-note = {d['firstFrameSeconds'] / small['firstFrameSeconds']:.1f}x time, {d['peakRSSMB'] / small['peakRSSMB']:.1f}x memory")
PY
