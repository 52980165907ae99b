#!/usr/bin/env bash
# The job's verdict from rtlint's exit status: findings fail it unless fail-on-findings is
# false; an error (2), or no status at all (the run step failed), always fails it.
set -uo pipefail
case "${RTLINT_EXIT:-}" in
0) echo "rtlint: nothing found" ;;
1)
    if [ "${RTLINT_FAIL_ON_FINDINGS:-true}" = true ]; then
        echo "::error title=rtlint::rtlint reported findings (see the log, or code scanning)"
        exit 1
    fi
    echo "rtlint: findings reported (fail-on-findings is false)"
    ;;
*)
    echo "::error title=rtlint::rtlint failed (exit status ${RTLINT_EXIT:-unknown})"
    exit 2
    ;;
esac
