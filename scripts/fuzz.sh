#!/usr/bin/env bash
# Fuzzes the MIDI reader, then the MusicXML reader, with libFuzzer + AddressSanitizer.
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

# The MusicXML text reader (Fuzz/FuzzMusicXML.swift) with the MIDI file model, built the same
# way (the .mxl archive path needs ZIPFoundation and is left out of this build), seeded with
# the small scores in Fuzz/musicxml-seeds/. Same seconds as the MIDI reader.
mkdir -p .fuzz/musicxml .fuzz/musicxml-crashes
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name MIDIFile \
  Sources/MIDIFile/*.swift Sources/MusicXML/*.swift Fuzz/FuzzMusicXML.swift -o .fuzz/fuzz-musicxml
cp -n Fuzz/musicxml-seeds/*.musicxml .fuzz/musicxml/ 2>/dev/null || true
# Leak checks off: Foundation's XMLParser leaks the error string of every document libxml2
# refuses (72 bytes in _CFErrorCreateFromXMLInterface, swift-corelibs-foundation), which would
# stop the run at the first malformed input; memory use is still bounded by -rss_limit_mb.
ASAN_OPTIONS=detect_leaks=0 .fuzz/fuzz-musicxml .fuzz/musicxml -max_total_time="$seconds" -max_len=65536 -timeout=10 -detect_leaks=0 \
  -rss_limit_mb=2048 -artifact_prefix=.fuzz/musicxml-crashes/ -print_final_stats=1 2>&1 | tail -n 25
