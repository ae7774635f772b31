#!/usr/bin/env bash
# make install / make uninstall: copies the stage (scripts/stage.sh) and the built-in lessons
# into their places, and removes exactly those again.
#   scripts/install.sh install     copies, and lists every file and every folder it created in
#                                  the manifest ($DATADIR/etude/install-manifest)
#   scripts/install.sh uninstall   removes what the manifest lists (folders only when empty), then it
# Settings come from the environment (the Makefile passes them): DESTDIR, PREFIX, BINDIR, DATADIR,
# MANDIR, BASH_COMPLETION_DIR, ZSH_COMPLETION_DIR, FISH_COMPLETION_DIR, STAGE, LESSONS,
# and for make deb: MANIFEST=none (dpkg keeps its own list) and GZIP_MAN=1 (Debian policy).
set -euo pipefail
cd "$(dirname "$0")/.."

action="${1:-}"
DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX:-/usr/local}"
BINDIR="${BINDIR:-$PREFIX/bin}"
DATADIR="${DATADIR:-$PREFIX/share}"
MANDIR="${MANDIR:-$DATADIR/man}"
BASH_COMPLETION_DIR="${BASH_COMPLETION_DIR:-$DATADIR/bash-completion/completions}"
ZSH_COMPLETION_DIR="${ZSH_COMPLETION_DIR:-$DATADIR/zsh/site-functions}"
FISH_COMPLETION_DIR="${FISH_COMPLETION_DIR:-$DATADIR/fish/vendor_completions.d}"
STAGE="${STAGE:-.build/stage}"
LESSONS="${LESSONS:-Lessons}"
GZIP_MAN="${GZIP_MAN:-0}"
manifest="${MANIFEST:-$DATADIR/etude/install-manifest}"

for d in "$PREFIX" "$BINDIR" "$DATADIR" "$MANDIR" "$BASH_COMPLETION_DIR" "$ZSH_COMPLETION_DIR" "$FISH_COMPLETION_DIR"; do
  case "$d" in /*) ;; *) echo "etude: '$d' is not an absolute path: give PREFIX (and the *DIR settings) as /path" >&2; exit 1 ;; esac
done
[ -z "$DESTDIR" ] || case "$DESTDIR" in /*) ;; *) DESTDIR="$PWD/$DESTDIR" ;; esac

# --- what gets installed: "mode source target" lines, targets without DESTDIR ---
plan() {
  echo "0755 $STAGE/etude $BINDIR/etude"
  if [ "$GZIP_MAN" = 1 ]; then echo "0644 $man_gz $MANDIR/man1/etude.1.gz"
  else echo "0644 $STAGE/etude.1 $MANDIR/man1/etude.1"; fi
  echo "0644 $STAGE/completions/etude.bash $BASH_COMPLETION_DIR/etude"
  echo "0644 $STAGE/completions/_etude $ZSH_COMPLETION_DIR/_etude"
  echo "0644 $STAGE/completions/etude.fish $FISH_COMPLETION_DIR/etude.fish"
  # Lessons only: the lesson files and their README, never the tools that generate them.
  (cd "$LESSONS" && find . -type f \( -name '*.mid' -o -name '*.abc' -o -name '*.musicxml' -o -name '*.mxl' -o -name 'README.md' \) | LC_ALL=C sort) |
    while IFS= read -r f; do f="${f#./}"; echo "0644 $LESSONS/$f $DATADIR/etude/Lessons/$f"; done
}

# Creates every missing folder of $1 (a target path), recording the ones it made.
made_dirs=()
make_dir() {
  local d="$1" missing=()
  # DESTDIR itself may not exist yet (packagers pass a new folder): made like any other, not
  # listed (the manifest holds paths without DESTDIR). The loop stops at / in any case.
  if [ -n "$DESTDIR" ] && [ ! -d "$DESTDIR" ]; then
    mkdir -p -m 0755 "$DESTDIR" || { echo "etude: cannot create DESTDIR $DESTDIR" >&2; exit 1; }
  fi
  while [ "$d" != / ] && [ ! -d "$DESTDIR$d" ]; do missing=("$d" "${missing[@]}"); d="$(dirname "$d")"; done
  local m
  for m in "${missing[@]}"; do mkdir -m 0755 "$DESTDIR$m"; made_dirs+=("$m"); done
}

install_all() {
  [ -f "$STAGE/etude" ] || { echo "etude: nothing staged in $STAGE: run make stage (make install does)" >&2; exit 1; }
  if [ "$GZIP_MAN" = 1 ]; then
    man_gz="$(mktemp)"
    trap 'rm -f "$man_gz"' EXIT
    gzip -9 -n -c "$STAGE/etude.1" > "$man_gz"
  fi
  # A manifest left by an earlier install keeps the folders that install created: they are still ours.
  local old_files=() old_dirs=()
  if [ "$manifest" != none ] && [ -f "$DESTDIR$manifest" ]; then
    local kind path
    while IFS=' ' read -r kind path; do
      case "$kind" in f) old_files+=("$path") ;; d) old_dirs+=("$path") ;; esac
    done < "$DESTDIR$manifest"
  fi
  local files=() mode src dst
  while IFS=' ' read -r mode src dst; do
    make_dir "$(dirname "$dst")"
    install -m "$mode" "$src" "$DESTDIR$dst"
    files+=("$dst")
  done < <(plan)
  [ "$manifest" != none ] || return 0
  # Files the earlier install put there and this one does not (a lesson since removed) go now.
  local -A now=()
  local f
  for f in "${files[@]}"; do now["$f"]=1; done
  for f in "${old_files[@]}"; do [ -n "${now["$f"]:-}" ] || rm -f "$DESTDIR$f"; done
  make_dir "$(dirname "$manifest")"
  {
    for d in "${old_dirs[@]}" "${made_dirs[@]}"; do echo "d $d"; done
    for f in "${files[@]}"; do echo "f $f"; done
  } | awk '!seen[$0]++' > "$DESTDIR$manifest.new"
  chmod 0644 "$DESTDIR$manifest.new"
  mv "$DESTDIR$manifest.new" "$DESTDIR$manifest"
  # etude looks for its lessons at ../share/etude/Lessons from its own folder.
  if [ "$(cd "$DESTDIR$BINDIR/.." && pwd -P)/share/etude/Lessons" != "$(cd "$DESTDIR$DATADIR/etude/Lessons" && pwd -P)" ]; then
    echo "etude: warning: BINDIR and DATADIR are not bin/ and share/ of one folder: run etude with ETUDE_LESSONS=$DATADIR/etude/Lessons to see the built-in lessons" >&2
  fi
  echo "Installed etude in $DESTDIR$PREFIX ($(grep -c '^f ' "$DESTDIR$manifest") files; list: $DESTDIR$manifest)"
}

uninstall_all() {
  if [ ! -f "$DESTDIR$manifest" ]; then
    echo "etude: no install manifest at $DESTDIR$manifest: nothing was installed with these settings (give the same PREFIX and DESTDIR as to make install)" >&2
    exit 1
  fi
  local kind path dirs=() n=0
  while IFS=' ' read -r kind path; do
    case "$kind" in
      f) rm -f "$DESTDIR$path"; n=$((n + 1)) ;;
      d) dirs+=("$path") ;;
    esac
  done < "$DESTDIR$manifest"
  rm -f "$DESTDIR$manifest"
  # Folders install created, deepest first; one still holding something not ours stays.
  local d kept=()
  while IFS= read -r d; do
    rmdir "$DESTDIR$d" 2>/dev/null || { [ -d "$DESTDIR$d" ] && kept+=("$DESTDIR$d"); }
  done < <(for d in "${dirs[@]}"; do printf '%s\t%s\n' "$(tr -cd / <<<"$d" | wc -c)" "$d"; done | sort -rn | cut -f2-)
  echo "Removed etude from $DESTDIR$PREFIX ($n files)"
  if [ ${#kept[@]} -gt 0 ]; then echo "Kept, as they hold files etude did not install: ${kept[*]}"; fi
}

case "$action" in
  install) install_all ;;
  uninstall) uninstall_all ;;
  *) echo "usage: scripts/install.sh install|uninstall (settings in the environment; see make install)" >&2; exit 2 ;;
esac
