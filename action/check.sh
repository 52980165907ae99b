#!/usr/bin/env bash
# Run rtlint: SARIF to a file for code scanning (or workflow annotations when SARIF is off),
# the findings as text in the log. Records the exit status as the step's output `exit-code`
# and always succeeds itself, so that the upload and the comment run; action/result.sh
# fails the job afterwards.
set -uo pipefail
set -f # the inputs are split on white space, never globbed
read -ra paths <<< "${RTLINT_PATHS:-.}"
read -ra extra <<< "${RTLINT_ARGS:-}"
[ ${#paths[@]} -gt 0 ] || paths=(.)
options=("${extra[@]}")
[ -n "${RTLINT_BASELINE:-}" ] && options+=(--baseline "$RTLINT_BASELINE")
code=0
if [ "${RTLINT_SARIF:-true}" = true ]; then
    sarif="${RTLINT_SARIF_FILE:-rtlint.sarif}"
    rtlint check --format sarif --output-file "$sarif" "${options[@]}" -- "${paths[@]}" || code=$?
    if [ "$code" -ne 2 ]; then
        # the same findings, readable in the log (the findings cache makes this run cheap)
        rtlint check --quiet "${options[@]}" -- "${paths[@]}" || true
        findings=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$sarif")
        echo "sarif-file=$sarif" >> "$GITHUB_OUTPUT"
        echo "findings=$findings" >> "$GITHUB_OUTPUT"
    fi
else
    rtlint check --format github "${options[@]}" -- "${paths[@]}" || code=$?
fi
echo "exit-code=$code" >> "$GITHUB_OUTPUT"
echo "rtlint exited $code"
