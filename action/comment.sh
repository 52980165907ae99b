#!/usr/bin/env bash
# On a pull request: comment the fixes `rtlint --diff` would make, as one comment that each
# push updates (found by its marker), with the `gh` command line and $GH_TOKEN. No fixes and
# no earlier comment: nothing is posted.
set -uo pipefail
set -f
read -ra paths <<< "${RTLINT_PATHS:-.}"
read -ra extra <<< "${RTLINT_ARGS:-}"
[ ${#paths[@]} -gt 0 ] || paths=(.)
work="${RUNNER_TEMP:-/tmp}/rtlint-comment"
mkdir -p "$work"
code=0
rtlint check --diff --quiet "${extra[@]}" -- "${paths[@]}" > "$work/fixes.diff" || code=$?
if [ "$code" -eq 2 ]; then
    echo "rtlint --diff failed; no comment"
    exit 0
fi
python3 "$GITHUB_ACTION_PATH/action/comment.py" "$work/fixes.diff" > "$work/body.md"
marker=$(head -n 1 "$work/body.md")
repository="${GITHUB_REPOSITORY:?}"
existing=$(gh api "repos/$repository/issues/$RTLINT_PR/comments" --paginate \
    --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | tail -n 1) || existing=""
if [ -n "$existing" ]; then
    gh api --method PATCH "repos/$repository/issues/comments/$existing" -F "body=@$work/body.md" > /dev/null
    echo "updated comment $existing"
elif [ -s "$work/fixes.diff" ]; then
    gh pr comment "$RTLINT_PR" --repo "$repository" --body-file "$work/body.md"
else
    echo "no fixes to suggest"
fi
