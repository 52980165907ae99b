"""The GitHub Action (action.yml), its steps run outside GitHub by action/local.py (issue 24,
item 5): install rtlint from the action's checkout, run it, check the SARIF code scanning
would be sent, comment the fixes on a pull request, and fail the job on findings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import REPO
from tests.support.samples import clean_env

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (pre-commit brings it)")
if shutil.which("bash") is None or shutil.which("git") is None:  # pragma: no cover
    pytest.skip("bash and git are needed to run the action's steps", allow_module_level=True)


def _script(name: str):
    """A module of action/ (scripts, not a package), under a name of its own."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"rtlint_action_{name}", REPO / "action" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


local = _script("local")  # the runner of the steps
comment = _script("comment")  # the body of the pull-request comment

# a stand-in for GitHub's `gh`: records its arguments and the comment body; a listing of
# comments prints $FAKE_GH_EXISTING (the id of an earlier rtlint comment, or nothing)
FAKE_GH = """#!/usr/bin/env bash
printf '%s\\n' "$*" >> "$FAKE_GH_LOG"
previous=""
for argument in "$@"; do
    case "$previous" in
    --body-file) cp "$argument" "$FAKE_GH_LOG.body" ;;
    -F) cp "${argument#body=@}" "$FAKE_GH_LOG.body" ;;
    esac
    previous="$argument"
done
if [ "$1" = api ] && [ "${2#--}" = "$2" ] && [[ "$2" == */comments ]]; then
    [ -n "${FAKE_GH_EXISTING:-}" ] && echo "$FAKE_GH_EXISTING"
fi
exit 0
"""


@pytest.fixture
def gh(tmp_path: Path) -> Path:
    folder = tmp_path / "fake-gh"
    folder.mkdir()
    (folder / "gh").write_text(FAKE_GH)
    (folder / "gh").chmod(0o755)
    return folder


def project(path: Path, source: str) -> Path:
    path.mkdir()
    (path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (path / "agent.py").write_text(source)
    return path


def test_the_action_runs_outside_github(tmp_path: Path, gh: Path) -> None:
    """All the steps, as a pull request's workflow runs them: rtlint installed from this
    checkout into RUNNER_TEMP, the findings in SARIF (validated as the upload would), the
    fixes commented with gh, and the job failed because findings remain."""
    workspace = project(tmp_path / "workspace", (REPO / "examples" / "realtime_agent.py").read_text())
    log = tmp_path / "gh.log"
    env = clean_env(PATH=f"{gh}{os.pathsep}{os.environ['PATH']}", FAKE_GH_LOG=str(log), GITHUB_REPOSITORY="o/r")
    report = tmp_path / "report.json"
    process = subprocess.run(
        [
            sys.executable, str(REPO / "action" / "local.py"), "--workspace", str(workspace),
            "--input", "diff-comment=true", "--pull-request", "7",
            "--runner-temp", str(tmp_path / "runner"), "--report", str(report),
        ],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    output = process.stdout + process.stderr
    assert process.returncode == 1, output
    steps = {s["name"]: s for s in json.loads(report.read_text())}
    assert [s["outcome"] for s in steps.values()] == ["success"] * 5 + ["failure"], output
    assert steps["Run rtlint"]["outputs"] == {"exit-code": "1", "findings": "4", "sarif-file": "rtlint.sarif"}
    assert "upload-sarif: rtlint.sarif would be uploaded (4 results)" in output
    uploaded = json.loads((tmp_path / "runner" / "uploads" / "rtlint.sarif").read_text())
    assert [r["ruleId"] for r in uploaded["runs"][0]["results"]] == ["RTL001", "RTL002", "RTL001", "RTL003"]
    assert "agent.py:26:20: RTL001 [stale-mirror-snapshot]" in output  # the findings, readable in the log
    assert "::error title=rtlint::rtlint reported findings" in output
    # the installed rtlint is this checkout's, not something from the index
    installed = tmp_path / "runner" / "rtlint-venv" / "bin" / "rtlint"
    assert subprocess.run([str(installed), "--version"], capture_output=True, text=True).stdout.strip() == (
        subprocess.run([sys.executable, "-m", "rtlint", "--version"], capture_output=True, text=True).stdout.strip()
    )
    calls = log.read_text().splitlines()
    assert calls[0].startswith("api repos/o/r/issues/7/comments --paginate --jq")
    assert calls[1].startswith("pr comment 7 --repo o/r --body-file ")
    body = Path(f"{log}.body").read_text()
    assert body.startswith("<!-- rtlint-fixes -->\n### rtlint: fixes for 1 file\n")
    assert "```diff\n--- a/agent.py\n+++ b/agent.py\n" in body
    assert (workspace / "agent.py").read_text() == (REPO / "examples" / "realtime_agent.py").read_text()


def run_script(name: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(REPO / "action" / name)],
        env=clean_env(**env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("exit_code", "fail_on_findings", "status"),
    [("0", "true", 0), ("1", "true", 1), ("1", "false", 0), ("2", "false", 2), ("", "true", 2)],
)
def test_the_result_step_fails_the_job_as_the_inputs_say(
    tmp_path: Path, exit_code: str, fail_on_findings: str, status: int
) -> None:
    run = run_script("result.sh", {"RTLINT_EXIT": exit_code, "RTLINT_FAIL_ON_FINDINGS": fail_on_findings}, tmp_path)
    assert run.returncode == status, run.stdout


def comment_env(tmp_path: Path, gh: Path, **extra: str) -> dict[str, str]:
    tools = f"{gh}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {
        "PATH": tools,
        "FAKE_GH_LOG": str(tmp_path / "gh.log"),
        "GITHUB_ACTION_PATH": str(REPO),
        "GITHUB_REPOSITORY": "o/r",
        "RUNNER_TEMP": str(tmp_path / "runner"),
        "RTLINT_PR": "7",
        **extra,
    }


def test_the_comment_is_updated_in_place_on_the_next_push(tmp_path: Path, gh: Path) -> None:
    workspace = project(tmp_path / "workspace", (REPO / "examples" / "realtime_agent.py").read_text())
    run = run_script("comment.sh", comment_env(tmp_path, gh, FAKE_GH_EXISTING="1234"), workspace)
    assert run.returncode == 0, run.stdout + run.stderr
    calls = (tmp_path / "gh.log").read_text().splitlines()
    assert (
        calls[1]
        == f"api --method PATCH repos/o/r/issues/comments/1234 -F body=@{tmp_path}/runner/rtlint-comment/body.md"
    )
    assert "```diff" in Path(f"{tmp_path}/gh.log.body").read_text()


def test_no_fixes_and_no_earlier_comment_posts_nothing(tmp_path: Path, gh: Path) -> None:
    workspace = project(tmp_path / "workspace", "x = 1\n")
    run = run_script("comment.sh", comment_env(tmp_path, gh), workspace)
    assert run.returncode == 0 and "no fixes to suggest" in run.stdout
    assert [c.split()[0] for c in (tmp_path / "gh.log").read_text().splitlines()] == ["api"]  # only the listing


def test_no_fixes_left_updates_an_earlier_comment(tmp_path: Path, gh: Path) -> None:
    workspace = project(tmp_path / "workspace", "x = 1\n")
    run = run_script("comment.sh", comment_env(tmp_path, gh, FAKE_GH_EXISTING="99"), workspace)
    assert run.returncode == 0
    assert "No fixes left to suggest" in Path(f"{tmp_path}/gh.log.body").read_text()


def test_comment_body_fences_and_cuts(tmp_path: Path) -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-s = '```'\n+s = '````'\n"
    text = comment.body(diff)
    assert "`````diff\n" in text and text.rstrip().endswith("`````")  # longer than any backtick run
    files = "".join(f"--- a/f{n}.py\n+++ b/f{n}.py\n@@ -1 +1 @@\n-{'x' * 3000}\n+{'y' * 3000}\n" for n in range(40))
    long = comment.body(files)
    assert len(long) < 65_536 and "### rtlint: fixes for 40 files" in long
    assert long.count("--- a/") < 40 and "run `rtlint check --diff` for the rest" in long
    shown = long.split("```diff\n", 1)[1]
    assert shown.split("\n```", 1)[0].endswith("+" + "y" * 3000)  # cut at a file's end
    assert comment.body("").startswith(comment.MARKER + "\n")


def test_every_expression_of_action_yml_is_understood() -> None:
    """The runner reads every `if:` and `${{ }}` of action.yml (a new one it cannot read
    fails here, not in a workflow); and a few of GitHub's rules, as it applies them."""
    action = yaml.safe_load((REPO / "action.yml").read_text())
    context = {"inputs": {"sarif": "true", "diff-comment": "false"}, "github": {"event_name": "push"}, "steps": {}}
    for step in action["runs"]["steps"]:
        local.condition(step, context, "success")
        for value in [*(step.get("env") or {}).values(), *(step.get("with") or {}).values(), step.get("run", "")]:
            local.substitute(str(value), context, "success")
    for output in action["outputs"].values():
        local.substitute(output["value"], context, "success")

    def evaluate(expression: str, status: str = "success") -> object:
        return local.Expression(expression, context, status).value()

    assert evaluate("inputs.sarif == 'TRUE'") is True  # strings compare case-insensitively
    assert evaluate("inputs.missing == ''") is True  # a missing value is empty
    assert evaluate("always() && inputs.diff-comment == 'true'") is False
    assert evaluate("inputs.sarif || 'x'") == "true" and evaluate("'' || 'x'") == "x"
    assert evaluate("!(github.event_name == 'pull_request')") is True
    assert local.condition({"if": "inputs.sarif == 'true'"}, context, "failure") is False  # success() is implied
    assert local.condition({"if": "always() && inputs.sarif == 'true'"}, context, "failure") is True
    with pytest.raises(local.ExpressionError):
        evaluate("inputs.sarif ==")
