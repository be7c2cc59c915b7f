#!/usr/bin/env bash
# Usage: scripts/run.sh INPUT
# Prints the result on standard output; exits non-zero with a message on failure.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 INPUT" >&2
  exit 2
fi

input=$1
if [[ ! -e "$input" ]]; then
  echo "error: $input does not exist" >&2
  exit 1
fi

# Replace this with the skill's work.
wc -l -- "$input"
