#!/usr/bin/env bash
# Makes .venv-follow with parangonar (the symbolic note aligner `make bench` measures Etude's
# score follower beside; tqdm is imported by parangonar but not declared by it).
# Prints the python path on success; on failure (e.g. PyPI unreachable) prints the reason to
# stderr and exits 0 with no output, so the bench says the peer was skipped and why.
set -u
dir="${1:-.venv-follow}"
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import parangonar" 2>/dev/null; then
  echo "$(cd "$dir" && pwd)/bin/python"; exit 0
fi
if ! python3 -m venv "$dir" >&2; then
  echo "follow venv: python3 -m venv failed (install python3-venv)" >&2; exit 0
fi
if ! "$dir/bin/pip" install -q --disable-pip-version-check parangonar tqdm >&2; then
  echo "follow venv: pip could not install parangonar (is PyPI reachable?)" >&2; exit 0
fi
echo "$(cd "$dir" && pwd)/bin/python"
