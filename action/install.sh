#!/usr/bin/env bash
# Install rtlint from the action's own checkout ($GITHUB_ACTION_PATH: this repository at the
# ref the workflow's `uses:` names), not from the package index, into a venv of its own, and
# put it on the PATH of the steps that follow.
set -euo pipefail
venv="${RUNNER_TEMP:-/tmp}/rtlint-venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$GITHUB_ACTION_PATH"
echo "$venv/bin" >> "$GITHUB_PATH"
"$venv/bin/rtlint" --version
