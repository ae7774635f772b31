#!/usr/bin/env bash
# Installs the Debian packages Etude needs, only those missing. Uses sudo when not root.
# Usage: scripts/install-deps.sh [--test|--bench|--deb]   (--test adds the tools the test suite drives,
# --bench those and the held-out pianos the listening bench renders with, --deb what make deb needs)
set -euo pipefail
runtime=(libfluidsynth-dev libasound2-dev libjack-jackd2-dev libsqlite3-dev libsndfile1-dev librubberband-dev pkg-config timgm6mb-soundfont)
packaging=(dpkg-dev)
testing=(fluidsynth fluid-soundfont-gm jackd2 pulseaudio pulseaudio-utils sox lame rubberband-cli ffmpeg abcmidi tmux python3-venv python3-pip man-db "${packaging[@]}")
benchmarks=(timidity freepats musescore-general-soundfont-small time)
want=("${runtime[@]}")
case "${1:-}" in
  --test) want+=("${testing[@]}") ;;
  --bench) want+=("${testing[@]}" "${benchmarks[@]}") ;;
  --deb) want+=("${packaging[@]}") ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "etude: missing packages ${missing[*]} and no apt-get here: install them with your package manager" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "etude: missing packages ${missing[*]}: run as root or install sudo" >&2; exit 1
  fi
fi
echo "Installing: ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
