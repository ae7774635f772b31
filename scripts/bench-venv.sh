#!/usr/bin/env bash
# Makes .venv-bench with Spotify's basic-pitch (and soundfile), the neural transcriber
# `scripts/bench.sh listening` measures Etude's listener beside. Bench only: it pulls in
# TensorFlow (~1.5 GB installed), so `make test` never makes it; its model ships in the package.
# Prints the python path on success; on failure (e.g. PyPI unreachable, no TensorFlow wheel for
# this Python) prints the reason to stderr and exits 0 with no output, so the bench says the
# peer was skipped and why.
set -u
dir="${1:-.venv-bench}"
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import basic_pitch, soundfile" 2>/dev/null; then
  echo "$(cd "$dir" && pwd)/bin/python"; exit 0
fi
if ! python3 -m venv "$dir" >&2; then
  echo "bench venv: python3 -m venv failed (install python3-venv)" >&2; exit 0
fi
if ! "$dir/bin/pip" install -q --disable-pip-version-check basic-pitch soundfile >&2; then
  echo "bench venv: pip could not install basic-pitch (is PyPI reachable? TensorFlow wheels exist for Python 3.9-3.11)" >&2; exit 0
fi
echo "$(cd "$dir" && pwd)/bin/python"
