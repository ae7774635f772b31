#!/usr/bin/env bash
# Fuzzes the MIDI reader with libFuzzer + AddressSanitizer, seeded with the corpus.
# Usage: scripts/fuzz.sh SECONDS CORPUS_DIR. Crashes land in .fuzz/crashes/; each one found
# becomes a regression test in Tests/MIDIFileTests/FuzzRegressionTests.swift.
set -euo pipefail
seconds="${1:-180}"; corpus="${2:-../shared/corpus/jazz-soft}"
mkdir -p .fuzz/work .fuzz/crashes
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name MIDIFile \
  Sources/MIDIFile/*.swift Fuzz/FuzzReader.swift -o .fuzz/fuzz-reader
cp -n "$corpus"/*.mid .fuzz/work/ 2>/dev/null || true
.fuzz/fuzz-reader .fuzz/work -max_total_time="$seconds" -max_len=65536 -timeout=5 \
  -rss_limit_mb=1024 -artifact_prefix=.fuzz/crashes/ -print_final_stats=1 2>&1 | tail -n 25
