#!/usr/bin/env bash
# make fuzz: every reader under libFuzzer with AddressSanitizer, one target after the other,
# each for SECONDS (so a new target never shortens the others' runs).
# Usage: scripts/fuzz.sh SECONDS CORPUS_DIR. FUZZ_TARGETS="ABC" (names after Fuzz/Fuzz: MIDI,
# ABC, …) runs a subset. Crashes land in .fuzz/<target>/crashes/; each one found becomes a regression test
# (Tests/MIDIFileTests/FuzzRegressionTests.swift, Tests/ABCTests/…).
#
# The pattern, for a new reader: add Fuzz/Fuzz<Name>.swift with an LLVMFuzzerTestOneInput entry
# point (`@_cdecl("LLVMFuzzerTestOneInput")`) that imports the modules it tests, and these
# header lines at its top:
#   // fuzz-modules: MIDIFile ABC        the Sources/ folders it needs, dependencies first;
#                                        each is compiled as its own module (-wmo), so
#                                        `import ABC` works as in the package
#   // fuzz-seeds: Lessons/*/*.abc       seed files (globs from the repository root; $CORPUS
#                                        is the corpus directory given to make fuzz)
#   // fuzz-max-len: 65536               optional, the largest input libFuzzer makes
#   // fuzz-options: -timeout=10         optional, more libFuzzer flags (they win over the defaults)
#   // fuzz-asan: detect_leaks=0         optional, ASAN_OPTIONS for the run
#   // fuzz-swiftc: -I dir               optional, more swiftc flags for every module and the link
# A module with a / in its name is a folder of Swift sources (a dependency's checkout, e.g.
# .build/checkouts/ZIPFoundation/Sources/ZIPFoundation), compiled as the module of its base name.
# Modules are built with -enable-testing, so a target may `@testable import` a reader's internals.
# This script finds it (Fuzz/Fuzz*.swift), builds it with -sanitize=fuzzer,address and runs it.
set -euo pipefail
seconds="${1:-180}"; corpus="${2:-../shared/corpus/jazz-soft}"
root=$(pwd)
status=0
shopt -s nullglob

header() {  # header FILE KEY → the value of "// KEY: value", empty when absent
  sed -n "s|^// $2: *||p" "$1" | head -n 1
}

for source in Fuzz/Fuzz*.swift; do
  name=$(basename "$source" .swift); name=${name#Fuzz}
  if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
  modules=$(header "$source" fuzz-modules)
  seeds=$(header "$source" fuzz-seeds)
  maxlen=$(header "$source" fuzz-max-len); maxlen=${maxlen:-65536}
  options=$(header "$source" fuzz-options)
  asan=$(header "$source" fuzz-asan)
  extra=$(header "$source" fuzz-swiftc)
  if [ -z "$modules" ]; then
    echo "fuzz: $source has no '// fuzz-modules:' line naming the Sources/ folders it needs" >&2
    exit 1
  fi
  dir=.fuzz/$name; build=$dir/build
  mkdir -p "$build" "$dir/work" "$dir/crashes"
  echo "== fuzz $name ($modules), $seconds s =="
  objects=()
  for module in $modules; do
    folder=Sources/$module
    if [[ $module == */* ]]; then folder=$module; module=$(basename "$module"); fi
    files=("$folder"/*.swift)
    [ ${#files[@]} -gt 0 ] || { echo "fuzz: no $folder/*.swift" >&2; exit 1; }
    # shellcheck disable=SC2086  # $extra is a list of flags
    swiftc $extra -c -wmo -O -enable-testing -sanitize=fuzzer,address -parse-as-library -module-name "$module" \
      -emit-module -emit-module-path "$build/$module.swiftmodule" -I "$build" \
      "${files[@]}" -o "$build/$module.o"
    objects+=("$build/$module.o")
  done
  # (gold warns that it cannot export ASan's local helper symbols: harmless, left out)
  # shellcheck disable=SC2086
  swiftc $extra -O -sanitize=fuzzer,address -parse-as-library -module-name "Fuzz$name" -I "$build" \
    "$source" "${objects[@]}" -o "$dir/fuzz-$name" 2> >(grep -v "Cannot export local symbol '__asan" >&2)
  for pattern in $seeds; do
    pattern=${pattern//\$CORPUS/$corpus}
    for seed in $pattern; do
      [ -f "$seed" ] && cp -n "$seed" "$dir/work/" 2>/dev/null || true
    done
  done
  # libFuzzer exits non-zero on a crash; go on to the other targets and fail at the end.
  # shellcheck disable=SC2086  # $options is a list of flags
  if ! (cd "$dir" && ASAN_OPTIONS="${asan:-}" ./"fuzz-$name" work -max_total_time="$seconds" -max_len="$maxlen" -timeout=5 \
        -rss_limit_mb=2048 -artifact_prefix=crashes/ -print_final_stats=1 $options > last.log 2>&1); then
    status=1
    grep -E "ERROR|SUMMARY|Fatal error|==[0-9]+==" "$dir/last.log" | head -n 20 || true
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/last.log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/last.log")
  added=$(sed -n 's/^stat::new_units_added: *//p' "$dir/last.log")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$dir/last.log")
  found=("$root/$dir"/crashes/*)
  echo "fuzz $name: ${runs:-?} inputs (${speed:-?}/s), ${added:-?} new to the corpus, peak RSS ${rss:-?} MB," \
       "${#found[@]} crash input(s) in $dir/crashes/ (log: $dir/last.log)"
  [ ${#found[@]} -eq 0 ] || status=1
done
exit $status
