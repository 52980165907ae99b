"""The pre-commit hooks, run by the real `pre-commit` on a temporary repository.

pre-commit installs rtlint from a hook repository into its own virtualenv (from PyPI for
the dependencies), so this test takes a minute or so; it runs pre-commit twice.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.api import fix_source
from tests.support.cli import REPO
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE, run

pytest.importorskip("pre_commit", reason="pre-commit is not installed")
if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git is not installed", allow_module_level=True)

# what `pip install <hook repository>` needs; the working tree as it is, committed or not
PACKAGE_FILES = ("pyproject.toml", ".pre-commit-hooks.yaml", "README.md", "LICENSE", "rtlint", "rules")


STATUS = re.compile(r"^(?P<name>\S.*?)\.{3,}(?:\([^)]*\))?(?P<status>Passed|Failed|Skipped)$", re.MULTILINE)


def git(*args: str, cwd: Path) -> str:
    process = run(["git", "-c", "user.name=rtlint tests", "-c", "user.email=tests@rtlint.invalid", *args], cwd=cwd)
    assert process.returncode == 0, process.stderr
    return process.stdout.strip()


def statuses(output: str) -> dict[str, str]:
    """Hook name -> Passed/Failed/Skipped, from pre-commit's `name.....Status` lines."""
    return {m["name"]: m["status"] for m in STATUS.finditer(output)}


def make_repo(path: Path) -> None:
    path.mkdir()
    git("init", "-q", cwd=path)
    git("config", "commit.gpgsign", "false", cwd=path)


def hook_repository(tmp_path: Path) -> tuple[Path, str]:
    """A git copy of this repository's package, so the hooks run the code under test even
    before it is committed (`pre-commit try-repo` would leave new files out)."""
    target = tmp_path / "hook-repo"
    make_repo(target)
    for name in PACKAGE_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        elif source.is_file():
            shutil.copy2(source, target / name)
    git("add", "-A", cwd=target)
    git("commit", "-q", "-m", "rtlint under test", cwd=target)
    return target, git("rev-parse", "HEAD", cwd=target)


def test_hooks_report_fix_and_pass(tmp_path: Path) -> None:
    hooks, rev = hook_repository(tmp_path)
    project = tmp_path / "project"
    make_repo(project)
    (project / "agent.py").write_text(BUGGY)
    (project / "notes.txt").write_text("not python: the hooks must not see it\n")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks.as_posix()}\n    rev: {rev}\n"
        "    hooks:\n      - id: rtlint\n      - id: rtlint-fix\n"
    )
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "buggy agent", cwd=project)

    def pre_commit() -> subprocess.CompletedProcess:
        return run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
            cwd=project,
            timeout=600,
            PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        )

    first = pre_commit()
    output = first.stdout + first.stderr
    assert first.returncode == 1, output
    # the check hook failed on the finding, the fix hook changed the file and failed
    assert f"agent.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001 [stale-mirror-snapshot]" in output
    hook_status = statuses(output)
    assert hook_status == {"rtlint": "Failed", "rtlint (fix)": "Failed"}, output
    assert "files were modified by this hook" in output
    assert "Fixed 1 finding in 1 file." in output
    assert (project / "agent.py").read_text() == fix_source(BUGGY, "agent.py").text != BUGGY
    assert "notes.txt" not in output

    second = pre_commit()
    output = second.stdout + second.stderr
    assert second.returncode == 0, output
    hook_status = statuses(output)
    assert hook_status == {"rtlint": "Passed", "rtlint (fix)": "Passed"}, output


def readme_snippet() -> str:
    """The `.pre-commit-config.yaml` of the README's pre-commit section, as written."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## pre-commit") :]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def test_readme_snippet_as_written_works_from_a_clone_today(tmp_path: Path) -> None:
    """The README's snippet, byte for byte, run by pre-commit against a clone of the
    repository as it is today: its `rev:` names a ref that exists (issue 24: `v0.2.2` named
    a tag the repository never had, and pre-commit failed at `git checkout v0.2.2`), and it
    enables one hook, not both (every commit was linted twice). The `repo:` URL is sent to
    the clone with git's url.<base>.insteadOf, in the environment pre-commit passes to git;
    then `pre-commit autoupdate` pins the commit, as the README says."""
    snippet = readme_snippet()
    [url] = re.findall(r"repo: (\S+)", snippet)
    [rev] = re.findall(r"rev: (\S+)", snippet)
    assert re.findall(r"^\s+- id: (\S+)", snippet, re.M) == ["rtlint"]  # one hook on ...
    assert re.findall(r"^\s+# - id: (\S+)", snippet, re.M) == ["rtlint-fix"]  # ... the other commented
    hooks, head = hook_repository(tmp_path)
    git("branch", "-M", "main", cwd=hooks)  # the repository's branch, whatever git's default name
    assert git("rev-parse", "--verify", rev, cwd=hooks) == head  # a ref that exists, no tag needed
    assert git("tag", "--list", cwd=hooks) == ""
    project = tmp_path / "project"
    make_repo(project)
    (project / "agent.py").write_text(BUGGY)
    (project / ".pre-commit-config.yaml").write_text(snippet)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "buggy agent", cwd=project)
    environment = {
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{hooks.as_uri()}.insteadOf",
        "GIT_CONFIG_VALUE_0": url,
    }

    def pre_commit(*args: str) -> subprocess.CompletedProcess:
        return run(
            [sys.executable, "-m", "pre_commit", *args, "--color", "never"], cwd=project, timeout=600, **environment
        )

    ran = pre_commit("run", "--all-files")
    output = ran.stdout + ran.stderr
    assert ran.returncode == 1, output
    assert f"agent.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001 [stale-mirror-snapshot]" in output
    assert statuses(output) == {"rtlint": "Failed"}, output  # the report hook alone, once
    assert (project / "agent.py").read_text() == BUGGY

    updated = pre_commit("autoupdate")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    config = (project / ".pre-commit-config.yaml").read_text()
    assert f"rev: {head}" in config and "# - id: rtlint-fix" in config


def test_try_repo_runs_the_hooks_of_a_local_clone(tmp_path: Path) -> None:
    """The README's other way, with no configuration at all: `pre-commit try-repo CLONE
    rtlint --all-files` (it also takes changes the clone has not committed)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    [command] = re.findall(r"^pre-commit try-repo /path/to/rtlint (.*?)\s+#", readme, re.M)
    hooks, _ = hook_repository(tmp_path)
    (hooks / "rtlint" / "__init__.py").write_text((hooks / "rtlint" / "__init__.py").read_text() + "# uncommitted\n")
    project = tmp_path / "project"
    make_repo(project)
    (project / "agent.py").write_text(BUGGY)
    git("add", "-A", cwd=project)
    ran = run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), *command.split(), "--color", "never"],
        cwd=project,
        timeout=600,
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
    )
    output = ran.stdout + ran.stderr
    assert ran.returncode == 1, output
    assert f"agent.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001 [stale-mirror-snapshot]" in output
    assert statuses(output) == {"rtlint": "Failed"}, output
