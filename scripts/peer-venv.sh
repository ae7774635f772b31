#!/usr/bin/env bash
# The peers venv (scripts/venv.sh peers: what it holds, what it prints); [DIR] as there.
exec bash "$(dirname "$0")/venv.sh" peers "$@"
