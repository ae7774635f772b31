#!/usr/bin/env bash
# The bench venv (scripts/venv.sh bench: what it holds, what it prints); [DIR] as there.
exec bash "$(dirname "$0")/venv.sh" bench "$@"
