#!/usr/bin/env bash
# make stage: the one release build that `make install` and `make deb` copy from.
# Builds `etude` with the Swift standard library and Foundation linked in statically (so it runs
# where no Swift toolchain is installed), then writes into STAGE (default .build/stage):
#   etude            the stripped binary
#   etude.1          its man page, by swift-argument-parser's generate-manual tool, with the
#                    manual's topic pages (docs/*.md) added by scripts/man-topics.py
#   completions/     etude.bash, _etude (zsh), etude.fish, from `etude --generate-completion-script`
# The stage is replaced whole, so a failed build never leaves a half-new one behind.
set -euo pipefail
cd "$(dirname "$0")/.."
stage="${1:-.build/stage}"
swift="${SWIFT:-swift}"
flags=(-c release --static-swift-stdlib --disable-local-rpath)

command -v "$swift" >/dev/null 2>&1 || { echo "etude: '$swift' is not on the PATH: install Swift 6, or run \`make stage\` as yourself before \`sudo make install\`" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "etude: python3 is not on the PATH: install it (sudo apt-get install python3); the man page's topics are added by scripts/man-topics.py" >&2; exit 1; }
nice -n 10 "$swift" build "${flags[@]}" --product etude
# The manual generator ships inside swift-argument-parser (its GenerateManual plugin runs the same
# tool); building it as a product reuses the release ArgumentParser built above.
nice -n 10 "$swift" build "${flags[@]}" --product generate-manual
bin="$("$swift" build "${flags[@]}" --show-bin-path)"

new="$stage.new"
rm -rf "$new"
mkdir -p "$new/completions"
strip -o "$new/etude" "$bin/etude"
chmod 0755 "$new/etude"

# No Swift runtime library may be left to load from a toolchain.
if swift_libs=$(ldd "$new/etude" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|lib_Foundation|not found'); then
  echo "etude: the staged binary still needs libraries no user has:" >&2
  echo "$swift_libs" >&2
  exit 1
fi

# The generator and the completions run the staged binary; it must not read or write a user's data.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
quiet_env=(env -i PATH=/usr/bin:/bin HOME="$scratch" XDG_DATA_HOME="$scratch" XDG_CONFIG_HOME="$scratch"
           ETUDE_DB="$scratch/etude.sqlite" ETUDE_LESSONS="$scratch/none" LANG=C.UTF-8)

# The page's date is the last commit's, so the same sources give the same page.
date="$(git log -1 --format=%cs 2>/dev/null || true)"
[ -n "$date" ] || date="$(date -u +%F)"
"${quiet_env[@]}" "$bin/generate-manual" "$new/etude" --date "$date" --output-directory "$scratch"
# Help text keeps blank lines between paragraphs; in mdoc a blank line is a warning, .Pp is the paragraph.
sed 's/^[[:space:]]*$/.Pp/' "$scratch/etude.1" > "$new/etude.1"
# Then the manual's topic pages (docs/*.md: practice, the instrument, the ear, the method, …).
python3 scripts/man-topics.py "$new/etude.1"

"${quiet_env[@]}" "$new/etude" --generate-completion-script bash > "$new/completions/etude.bash"
"${quiet_env[@]}" "$new/etude" --generate-completion-script zsh > "$new/completions/_etude"
"${quiet_env[@]}" "$new/etude" --generate-completion-script fish > "$new/completions/etude.fish"
for f in "$new/etude.1" "$new/completions/"*; do
  [ -s "$f" ] || { echo "etude: staging wrote an empty $f" >&2; exit 1; }
done

rm -rf "$stage"
mv "$new" "$stage"
echo "Staged $(du -sh "$stage/etude" | cut -f1) etude, its man page and completions in $stage"
