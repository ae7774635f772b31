#!/usr/bin/env bash
# make deb: a Debian package of the stage (scripts/stage.sh), laid out under /usr by the same
# scripts/install.sh that make install runs, with dpkg-deb.
# Usage: scripts/deb.sh [OUTDIR]  (default dist/); prints the .deb's path last.
# Version: the VERSION file. Architecture: dpkg --print-architecture. Depends: the shared
# libraries the binary links (dpkg-shlibdeps, with their minimum versions) and a GM SoundFont.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
STAGE="${STAGE:-.build/stage}"

for tool in dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null 2>&1 || { echo "etude: make deb needs $tool: apt-get install dpkg-dev" >&2; exit 1; }
done
[ -f "$STAGE/etude" ] || { echo "etude: nothing staged in $STAGE: run make stage (make deb does)" >&2; exit 1; }
version="$(tr -d '[:space:]' < VERSION)"
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || { echo "etude: VERSION holds '$version', not a Debian version (e.g. 0.1.0)" >&2; exit 1; }
arch="$(dpkg --print-architecture)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -m 0755 "$root"
# Debian's zsh reads packaged completions from vendor-completions (site-functions is the admin's).
DESTDIR="$root" PREFIX=/usr ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions MANIFEST=none GZIP_MAN=1 STAGE="$STAGE" \
  bash scripts/install.sh install >/dev/null

# dpkg-shlibdeps reads the package's name from a debian/control; it needs nothing else of one.
mkdir -p "$work/src/debian"
printf 'Source: etude\n\nPackage: etude\nArchitecture: any\n' > "$work/src/debian/control"
shlibs="$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/etude" 2>"$work/shlibdeps.log")" ||
  { cat "$work/shlibdeps.log" >&2; echo "etude: dpkg-shlibdeps could not name the packages of etude's libraries" >&2; exit 1; }
shlibs="${shlibs#shlibs:Depends=}"

mkdir -m 0755 "$root/DEBIAN"
size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
sed -e "s/@VERSION@/$version/" -e "s/@ARCHITECTURE@/$arch/" -e "s/@INSTALLED_SIZE@/$size/" -e "s/@SHLIBS@/$shlibs/" \
  packaging/control > "$root/DEBIAN/control"
chmod 0644 "$root/DEBIAN/control"

mkdir -p "$out"
deb="$out/etude_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$root" "$deb" >/dev/null
echo "$deb"
