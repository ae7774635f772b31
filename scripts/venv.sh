#!/usr/bin/env bash
# Makes one of the Python venvs the tests and the bench measure peers with, by its name:
#   peers   .venv-peers  mido, symusic, music21 (dev-only peers for cross-checks and benchmarks;
#           music21 converts its public-domain corpus into the hand-split test set, see
#           Tests/LessonTests/Fixtures/make-hand-set.py)
#   bench   .venv-bench  Spotify's basic-pitch and soundfile, the neural transcriber
#           `scripts/bench.sh listening` measures Etude's listener beside. Bench only: it pulls in
#           TensorFlow (~1.5 GB installed), so `make test` never makes it; its model ships in the package.
#   follow  .venv-follow parangonar, the symbolic note aligner `make bench` measures Etude's score
#           follower beside (tqdm is imported by parangonar but not declared by it)
# Usage: scripts/venv.sh NAME [DIR]. Prints the python path on success; on failure (e.g. PyPI
# unreachable) prints the reason to stderr and exits 0 with no output, so the test or bench that
# needs it says the peer was skipped and why.
set -u
case "${1:-}" in
  peers)  imports="mido, symusic, music21"; packages="mido symusic music21"; hint="" ;;
  bench)  imports="basic_pitch, soundfile"; packages="basic-pitch soundfile"; hint=" TensorFlow wheels exist for Python 3.9-3.11" ;;
  follow) imports="parangonar"; packages="parangonar tqdm"; hint="" ;;
  *) echo "usage: scripts/venv.sh peers|bench|follow [DIR]" >&2; exit 2 ;;
esac
name="$1"
dir="${2:-.venv-$name}"
what="${name%s}"  # "peer venv", "bench venv", "follow venv", as the bench's lines say
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import $imports" 2>/dev/null; then
  echo "$(cd "$dir" && pwd)/bin/python"; exit 0
fi
if ! python3 -m venv "$dir" >&2; then
  echo "$what venv: python3 -m venv failed (install python3-venv)" >&2; exit 0
fi
# shellcheck disable=SC2086 # the packages are words
if ! "$dir/bin/pip" install -q --disable-pip-version-check $packages >&2; then
  echo "$what venv: pip could not install ${packages// /, } (is PyPI reachable?$hint)" >&2; exit 0
fi
echo "$(cd "$dir" && pwd)/bin/python"
