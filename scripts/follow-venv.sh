#!/usr/bin/env bash
# The follow venv (scripts/venv.sh follow: what it holds, what it prints); [DIR] as there.
exec bash "$(dirname "$0")/venv.sh" follow "$@"
