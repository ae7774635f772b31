"""make bench, issue 42: `etude align` beside the Sync Toolbox on the same recordings, and
`etude render --recording --tempo 70%` beside the `rubberband` command on the same section.

usage: recording_bench.py ETUDE WORKDIR NAME… [--stretch NAME]
  WORKDIR holds, per NAME, NAME-lesson.mid, NAME-truth.json (etude-bench recording-material),
  NAME.flac / NAME.mp3 (the performance rendered, roomed, noised, encoded) and NAME-ref.wav (the
  lesson rendered by `etude render`: the Sync Toolbox aligns audio to audio).
Prints one line per file and tool, then the medians, each against the issue's targets.
"""
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def etude_align(etude, lesson, recording, db):
    """Runs `etude align --json --again` as a user does; (bar starts, seconds, peak RSS MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M", etude, "align", lesson, recording, "--json", "--again", "--db", db],
                         capture_output=True, text=True)
    took = time.perf_counter() - started
    if out.returncode != 0:
        raise RuntimeError(f"etude align {recording}: {out.stderr.strip()}")
    rss_kb = int(out.stderr.strip().splitlines()[-1])
    bars = json.loads(out.stdout)["bars"]
    return [b["start"] for b in bars], [b["bar"] for b in bars], took, rss_kb / 1024


def sync_toolbox(reference, recording, score_starts):
    """The Sync Toolbox's audio-audio pipeline (its tutorial's settings): pitch features → quantised
    chroma + DLNCO onsets, then MrMsDTW; the reference's bar starts mapped through the path."""
    import librosa
    from synctoolbox.dtw.mrmsdtw import sync_via_mrmsdtw
    from synctoolbox.dtw.utils import make_path_strictly_monotonic
    from synctoolbox.feature.chroma import pitch_to_chroma, quantize_chroma
    from synctoolbox.feature.dlnco import pitch_onset_features_to_DLNCO
    from synctoolbox.feature.pitch import audio_to_pitch_features
    from synctoolbox.feature.pitch_onset import audio_to_pitch_onset_features
    from synctoolbox.feature.utils import estimate_tuning

    fs, rate = 22050, 50
    started = time.perf_counter()
    a1, _ = librosa.load(reference, sr=fs)
    a2, _ = librosa.load(recording, sr=fs)

    def features(audio):
        tuning = estimate_tuning(audio, fs)
        pitch = audio_to_pitch_features(f_audio=audio, Fs=fs, tuning_offset=tuning, feature_rate=rate, verbose=False)
        chroma = quantize_chroma(f_chroma=pitch_to_chroma(f_pitch=pitch))
        onsets = audio_to_pitch_onset_features(f_audio=audio, Fs=fs, tuning_offset=tuning, verbose=False)
        dlnco = pitch_onset_features_to_DLNCO(f_peaks=onsets, feature_rate=rate, feature_sequence_length=chroma.shape[1], visualize=False)
        return chroma, dlnco

    c1, o1 = features(a1)
    c2, o2 = features(a2)
    wp = sync_via_mrmsdtw(f_chroma1=c1, f_onset1=o1, f_chroma2=c2, f_onset2=o2, input_feature_rate=rate,
                          step_weights=np.array([1.5, 1.5, 2.0]), threshold_rec=10 ** 6, verbose=False)
    wp = make_path_strictly_monotonic(wp)
    took = time.perf_counter() - started
    starts = np.interp(np.array(score_starts), wp[0] / rate, wp[1] / rate)
    return list(starts), took, len(a2) / fs


class Quiet:
    """Its progress dots (printed by the toolbox's C-accelerated parts too) kept off the bench's output."""
    def __enter__(self):
        sys.stdout.flush()
        self.saved = os.dup(1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)

    def __exit__(self, *exc):
        sys.stdout.flush()
        os.dup2(self.saved, 1)
        os.close(self.saved)


def figures(found, truth):
    n = min(len(found), len(truth))
    errors = np.abs(np.array(found[:n]) - np.array(truth[:n])) * 1000
    if len(found) != len(truth):
        errors = np.concatenate([errors, np.full(abs(len(found) - len(truth)), 1e6)])
    return float(np.median(errors)), float(np.mean(errors <= 50)), float(np.mean(errors <= 100))


def peak_hz(samples, rate, near):
    """The strongest frequency within ±60 cents of `near` (a zero-padded FFT, parabolic peak)."""
    n = len(samples)
    window = samples * np.hanning(n)
    size = 1 << (int(np.ceil(np.log2(n))) + 3)
    spectrum = np.abs(np.fft.rfft(window, size))
    lo, hi = int(near * 2 ** (-0.05) * size / rate), int(near * 2 ** 0.05 * size / rate) + 1
    k = lo + int(np.argmax(spectrum[lo:hi]))
    a, b, c = np.log(spectrum[k - 1:k + 2] + 1e-12)
    shift = 0.5 * (a - c) / (a - 2 * b + c) if (a - 2 * b + c) != 0 else 0
    return (k + shift) * rate / size


def read_wav(path):
    import soundfile
    data, rate = soundfile.read(path, always_2d=True)
    return data.mean(axis=1), rate


def stretch(etude, work, name, db):
    """Bars 2-3 of NAME at 70 %: etude's render (two passes, 10 ms crossfades) and rubberband's
    (R3, `--fine`) of the same stretch of the recording: duration error and pitch drift of the
    held A4 over the stretched passage."""
    lesson, recording = f"{work}/{name}-lesson.mid", f"{work}/{name}.flac"
    aligned = json.loads(subprocess.run([etude, "align", lesson, recording, "--json", "--db", db], capture_output=True, text=True, check=True).stdout)["bars"]
    start, end = aligned[1]["start"], aligned[2]["end"]
    source, rate = read_wav(recording)
    section = source[int(start * rate):int(end * rate)]
    expected = (end - start) / 0.7
    out = f"{work}/{name}-etude-70.wav"
    subprocess.run([etude, "render", lesson, "--recording", recording, "--bars", "2-3", "--tempo", "70%", "-o", out, "--db", db],
                   capture_output=True, check=True)
    cut, rb_out = f"{work}/{name}-section.wav", f"{work}/{name}-rubberband-70.wav"
    import soundfile
    soundfile.write(cut, section, rate)
    subprocess.run(["rubberband", "--fine", "-q", "-T", "0.7", cut, rb_out], capture_output=True, check=True)
    reference = peak_hz(section[int(0.1 * rate):int(0.6 * rate)], rate, 440)
    rows = []
    for tool, path, passes in (("etude", out, 2), ("rubberband", rb_out, 1)):
        y, r = read_wav(path)
        seconds = len(y) / r
        target = passes * expected - (0.010 if passes == 2 else 0)
        drift = 0.0
        one = len(y) // passes
        for at in np.linspace(0.1, 0.8, 6):
            a = int(at * one)
            f = peak_hz(y[a:a + int(0.5 * r)], r, 440)
            drift = max(drift, abs(1200 * np.log2(f / reference)))
        rows.append((tool, abs(seconds - target) / target * 100, drift))
    return rows


def main():
    args = sys.argv[1:]
    etude, work = args[0], args[1]
    stretch_name = None
    names = []
    i = 2
    while i < len(args):
        if args[i] == "--stretch":
            stretch_name = args[i + 1]
            i += 2
        else:
            names.append(args[i])
            i += 1
    db = f"{work}/bench.sqlite"
    totals = {"etude": [], "synctoolbox": []}
    speed = {"etude": [], "synctoolbox": []}
    warmed = False
    for name in names:
        truth = json.load(open(f"{work}/{name}-truth.json"))
        for ext in ("flac", "mp3"):
            recording = f"{work}/{name}.{ext}"
            if not os.path.exists(recording):
                continue
            found, labels, took, rss = etude_align(etude, f"{work}/{name}-lesson.mid", recording, db)
            med, w50, w100 = figures(found, truth["starts"])
            minutes = truth["seconds"] / 60
            totals["etude"].append(np.abs(np.array(found[:len(truth["starts"])]) - np.array(truth["starts"][:len(found)])) * 1000)
            speed["etude"].append(took / minutes)
            print(f"  {name}.{ext} ({truth['seconds']:.0f} s, {len(truth['starts'])} bars) etude: median bar-line error {med:.1f} ms, "
                  f"{w50 * 100:.0f} % within 50 ms, {w100 * 100:.0f} % within 100 ms, {took:.2f} s ({took / minutes:.2f} s per minute), peak RSS {rss:.0f} MB")
            with Quiet():
                if not warmed:
                    sync_toolbox(f"{work}/{name}-ref.wav", recording, truth["score"])  # numba compiles on the first call
                    warmed = True
                sfound, stook, _ = sync_toolbox(f"{work}/{name}-ref.wav", recording, truth["score"])
            smed, s50, s100 = figures(sfound, truth["starts"])
            totals["synctoolbox"].append(np.abs(np.array(sfound) - np.array(truth["starts"])) * 1000)
            speed["synctoolbox"].append(stook / minutes)
            print(f"  {name}.{ext} synctoolbox: median bar-line error {smed:.1f} ms, {s50 * 100:.0f} % within 50 ms, "
                  f"{s100 * 100:.0f} % within 100 ms, {stook:.2f} s ({stook / minutes:.2f} s per minute)")
            if truth["seconds"] >= 240:
                ok = took < 5 and rss < 500
                print(f"  {name}.{ext}: {truth['seconds'] / 60:.1f}-minute recording aligned in {took:.2f} s, {rss:.0f} MB "
                      f"(target < 5 s and < 500 MB: {'PASS' if ok else 'FAIL'})")
    for tool in ("etude", "synctoolbox"):
        if not totals[tool]:
            continue
        e = np.concatenate(totals[tool])
        print(f"  all files, {tool}: median bar-line error {np.median(e):.1f} ms, {np.mean(e <= 50) * 100:.1f} % within 50 ms, "
              f"{np.mean(e <= 100) * 100:.1f} % within 100 ms, {np.median(speed[tool]):.2f} s per minute of audio")
    if totals["etude"] and totals["synctoolbox"]:
        e, s = np.concatenate(totals["etude"]), np.concatenate(totals["synctoolbox"])
        ok = np.median(e) <= 30 and np.mean(e <= 100) >= 0.95
        peer = np.median(e) <= np.median(s) and np.mean(e <= 100) >= np.mean(s <= 100)
        print(f"  targets: median <= 30 ms and >= 95 % within 100 ms: {'PASS' if ok else 'FAIL'}; "
              f"no worse than the Sync Toolbox (median and share within 100 ms): {'PASS' if peer else 'FAIL'}")
    if stretch_name:
        rows = stretch(etude, work, stretch_name, db)
        for tool, duration, drift in rows:
            print(f"  stretch to 70 %, {tool}: duration error {duration:.3f} %, pitch drift {drift:.2f} cents")
        ok = rows[0][1] <= 1 and rows[0][2] <= 10
        print(f"  etude's stretch: within 1 % and 10 cents: {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
