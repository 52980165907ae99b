"""Run the steps of action.yml outside GitHub, as the runner would run them.

    python action/local.py [--workspace DIR] [--input NAME=VALUE ...] [--pull-request N]
                           [--runner-temp DIR] [--report FILE]

Each step of the composite action runs in order: `if:` conditions and `${{ }}` expressions
are evaluated (inputs with their defaults, `github`, `steps.<id>.outputs`, `runner`, and the
status functions), `run:` steps run in bash as GitHub runs them (`bash --noprofile --norc -eo
pipefail`), with GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ENV, GITHUB_STEP_SUMMARY and
GITHUB_ACTION_PATH set. The two `uses:` steps are stood in for: actions/setup-python by the
python3 on PATH, github/codeql-action/upload-sarif by a check that the file is SARIF 2.1.0
that code scanning takes (its copy is kept in RUNNER_TEMP/uploads/). Anything else it does
not know is an error, so a new step in action.yml is never silently skipped.

A pull request (`--pull-request N`) sets `github.event_name` and the number; the comment step
then calls `gh`, which is whatever `gh` is on PATH (the tests put a recording stand-in there).
Exit status: 0 when every step succeeded, 1 otherwise; `--report` writes each step's outcome
and outputs as JSON. Needs PyYAML (pre-commit brings it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

ACTION = Path(__file__).resolve().parents[1] / "action.yml"


# -- expressions ---------------------------------------------------------------------------
_TOKEN = re.compile(r"\s*(?:(==|!=|&&|\|\||!|\(|\))|'((?:[^']|'')*)'|([A-Za-z_][\w.-]*)(\(\))?|(\d+(?:\.\d+)?))")


class ExpressionError(Exception):
    pass


class Expression:
    """GitHub's expression language, as much of it as action.yml uses: literals, context
    paths (`inputs.sarif-file`, `steps.check.outputs.exit-code`), `==` and `!=` (strings
    compared case-insensitively), `!`, `&&` and `||` (which yield an operand, as GitHub's do),
    parentheses and the status functions."""

    def __init__(self, text: str, context: dict, status: str) -> None:
        self.tokens = self._tokenize(text)
        self.context, self.status = context, status

    @staticmethod
    def _tokenize(text: str) -> list[tuple[str, object]]:
        tokens, at = [], 0
        while text[at:].strip():
            match = _TOKEN.match(text, at)
            if match is None:
                raise ExpressionError(f"cannot read {text[at:]!r}")
            operator, string, name, call, number = match.groups()
            if operator:
                tokens.append(("op", operator))
            elif string is not None:
                tokens.append(("value", string.replace("''", "'")))
            elif name is not None:
                tokens.append(("call" if call else "name", name))
            else:
                tokens.append(("value", float(number)))
            at = match.end()
        return tokens

    def value(self) -> object:
        result = self._or()
        if self.tokens:
            raise ExpressionError(f"unexpected {self.tokens[0][1]!r}")
        return result

    def _take(self, operator: str) -> bool:
        if self.tokens and self.tokens[0] == ("op", operator):
            self.tokens.pop(0)
            return True
        return False

    def _or(self) -> object:
        left = self._and()
        while self._take("||"):
            right = self._and()
            left = left if truthy(left) else right
        return left

    def _and(self) -> object:
        left = self._compare()
        while self._take("&&"):
            right = self._compare()
            left = right if truthy(left) else left
        return left

    def _compare(self) -> object:
        left = self._unary()
        while self.tokens and self.tokens[0] in (("op", "=="), ("op", "!=")):
            equal = self.tokens.pop(0)[1] == "=="
            right = self._unary()
            left = (text(left).lower() == text(right).lower()) == equal
        return left

    def _unary(self) -> object:
        if self._take("!"):
            return not truthy(self._unary())
        if self._take("("):
            inner = self._or()
            if not self._take(")"):
                raise ExpressionError("missing )")
            return inner
        if not self.tokens:
            raise ExpressionError("expression ends early")
        kind, token = self.tokens.pop(0)
        if kind == "value":
            return token
        if kind == "call":
            calls = {"always": True, "success": self.status == "success", "failure": self.status == "failure"}
            if token not in (*calls, "cancelled"):
                raise ExpressionError(f"unknown function {token}()")
            return calls.get(token, False)
        if token in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[token]
        found: object = self.context
        for part in token.split("."):
            found = found.get(part) if isinstance(found, dict) else None
        return found


def truthy(value: object) -> bool:
    return value not in (None, False, 0, "")


def text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def substitute(template: str, context: dict, status: str) -> str:
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: text(Expression(m.group(1), context, status).value()), template)


def condition(step: dict, context: dict, status: str) -> bool:
    raw = str(step.get("if", "success()"))
    raw = raw[3:-2] if raw.strip().startswith("${{") else raw
    if not re.search(r"\b(always|success|failure|cancelled)\(\)", raw):
        raw = f"success() && ({raw})"  # GitHub's default, as for a bare `if:`
    return truthy(Expression(raw, context, status).value())


# -- the runner ------------------------------------------------------------------------------
def read_outputs(path: Path) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as the runner reads GITHUB_OUTPUT."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            outputs[name] = "\n".join(lines[index + 1 : end])
            index = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        index += 1
    return outputs


def stand_in(uses: str, inputs: dict[str, str], env: dict[str, str], temp: Path) -> tuple[bool, str]:
    """What the two `uses:` steps do, done here: (succeeded, what was done)."""
    name = uses.split("@", 1)[0]
    if name == "actions/setup-python":
        python = shutil.which("python3", path=env["PATH"])
        return python is not None, f"setup-python {inputs.get('python-version')}: using {python}"
    if name == "github/codeql-action/upload-sarif":
        sarif = Path(env["GITHUB_WORKSPACE"]) / inputs["sarif_file"]
        try:
            document = json.loads(sarif.read_text(encoding="utf-8"))
            assert document["version"] == "2.1.0", "not SARIF 2.1.0"
            for run in document["runs"]:
                assert run["tool"]["driver"]["name"], "a run without a tool name"
                assert isinstance(run["results"], list), "a run without results"
        except (OSError, ValueError, KeyError, AssertionError) as exc:
            return False, f"upload-sarif: {sarif} is not SARIF code scanning takes: {exc}"
        uploads = temp / "uploads"
        uploads.mkdir(exist_ok=True)
        shutil.copyfile(sarif, uploads / f"{inputs.get('category', 'default')}.sarif")
        results = sum(len(run["results"]) for run in document["runs"])
        return True, f"upload-sarif: {sarif.name} would be uploaded ({results} results)"
    return False, f"{uses}: no stand-in for this action here"


def run_action(workspace: Path, given: dict[str, str], pull_request: int | None, temp: Path) -> list[dict]:
    import yaml

    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    event = "pull_request" if pull_request is not None else "push"
    context: dict = {
        "github": {
            "event_name": event,
            "event": {"pull_request": {"number": pull_request}} if pull_request is not None else {},
            "token": os.environ.get("GH_TOKEN", "local-token"),
            "repository": os.environ.get("GITHUB_REPOSITORY", "local/project"),
            "workspace": str(workspace),
        },
        "runner": {"temp": str(temp), "os": "Linux"},
        "steps": {},
    }
    inputs = {}
    for name, spec in (action.get("inputs") or {}).items():
        default = str(spec.get("default", ""))
        inputs[name] = given.get(name, substitute(default, context, "success"))
    unknown = set(given) - set(inputs)
    if unknown:
        raise SystemExit(f"unknown inputs: {', '.join(sorted(unknown))}")
    context["inputs"] = inputs
    files = {name: temp / f"{name}.txt" for name in ("GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY")}
    for path in files.values():
        path.touch()
    env = {
        **os.environ,
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(ACTION.parent),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_REPOSITORY": context["github"]["repository"],
        "RUNNER_TEMP": str(temp),
        **{name: str(path) for name, path in files.items()},
    }
    status, report = "success", []
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name") or step.get("uses") or f"step {number}"
        if not condition(step, context, status):
            report.append({"name": name, "outcome": "skipped", "outputs": {}})
            continue
        outputs_file = temp / f"output-{number}.txt"
        outputs_file.write_text("")
        step_env = {**env, "GITHUB_OUTPUT": str(outputs_file)}
        added = [line for line in files["GITHUB_PATH"].read_text().splitlines() if line]
        step_env["PATH"] = os.pathsep.join([*reversed(added), env["PATH"]])
        step_env.update({k: substitute(str(v), context, status) for k, v in (step.get("env") or {}).items()})
        print(f"::group::{name}", flush=True)
        if "uses" in step:
            with_ = {k: substitute(str(v), context, status) for k, v in (step.get("with") or {}).items()}
            succeeded, said = stand_in(step["uses"], with_, step_env, temp)
            print(said, flush=True)
        else:
            script = temp / f"step-{number}.sh"
            script.write_text(substitute(step["run"], context, status) + "\n")
            process = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace, env=step_env
            )
            succeeded = process.returncode == 0
        print("::endgroup::", flush=True)
        outputs = read_outputs(outputs_file)
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs, "outcome": "success" if succeeded else "failure"}
        report.append({"name": name, "outcome": "success" if succeeded else "failure", "outputs": outputs})
        if not succeeded:
            status = "failure"
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python action/local.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, default=Path.cwd(), help="the checkout to run in (default: .)")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE", help="an input of action.yml")
    parser.add_argument("--pull-request", type=int, metavar="N", help="run as for pull request N")
    parser.add_argument("--runner-temp", type=Path, help="RUNNER_TEMP (default: a new temporary folder)")
    parser.add_argument("--report", type=Path, help="write each step's outcome and outputs here as JSON")
    args = parser.parse_args(argv)
    given = dict(item.split("=", 1) for item in args.input)
    temp = args.runner_temp or Path(tempfile.mkdtemp(prefix="rtlint-action-"))
    temp.mkdir(parents=True, exist_ok=True)
    report = run_action(args.workspace.resolve(), given, args.pull_request, temp.resolve())
    for step in report:
        print(f"{step['outcome']:>8}  {step['name']}")
    if args.report is not None:
        args.report.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if all(step["outcome"] != "failure" for step in report) else 1


if __name__ == "__main__":
    raise SystemExit(main())
