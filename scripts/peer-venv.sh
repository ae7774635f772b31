#!/usr/bin/env bash
# Makes .venv-peers with mido, symusic and music21 (dev-only peers for cross-checks and
# benchmarks; music21 converts its public-domain corpus into the hand-split test set, see
# Tests/LessonTests/Fixtures/make-hand-set.py).
# Prints the python path on success; on failure (e.g. PyPI unreachable) prints the reason to
# stderr and exits 0 with no output, so tests that need the peers skip and say why.
set -u
dir="${1:-.venv-peers}"
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import mido, symusic, music21" 2>/dev/null; then
  echo "$(cd "$dir" && pwd)/bin/python"; exit 0
fi
if ! python3 -m venv "$dir" >&2; then
  echo "peer venv: python3 -m venv failed (install python3-venv)" >&2; exit 0
fi
if ! "$dir/bin/pip" install -q --disable-pip-version-check mido symusic music21 >&2; then
  echo "peer venv: pip could not install mido, symusic and music21 (is PyPI reachable?)" >&2; exit 0
fi
echo "$(cd "$dir" && pwd)/bin/python"
