"""A cache folder nobody can plant or fool (issue 15). A repository can commit
`.rtlint_cache` (a pull request from a fork): whatever it holds, a run gives the same report
as --no-cache and writes nothing outside the cache. Entries are sealed with a key in the
user's cache home; anything else (unsealed, sealed by another key, of the wrong shape, a
symlink, a FIFO, /dev/zero) is a miss."""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path

import pytest

from rtlint.cache import secret
from tests.support.cli import run_main
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE

FORGED_LINE = "\n::add-mask::secret\n::warning file=x.py::forged\n\x1b[2J"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.rtlint]\n")
    (root / "a.py").write_text(BUGGY)
    (root / "b.py").write_text("x = 1\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep.txt").write_text("outside the tree\n")
    monkeypatch.chdir(root)
    return root


def snapshot(root: Path, skip: Path) -> dict[str, object]:
    """Every entry under `root` but `skip`, with what it is (links by their target)."""
    seen: dict[str, object] = {}
    for directory, folders, files in os.walk(root):
        if Path(directory) == skip:
            folders[:] = []
            continue
        for name in folders + files:
            path = Path(directory) / name
            if path.is_symlink():
                seen[str(path)] = ("link", os.readlink(path))
            elif path.is_file():
                seen[str(path)] = ("file", path.read_bytes())
            else:
                seen[str(path)] = ("folder",)
    return seen


def entries(cache: Path) -> list[Path]:
    """The per-file entries of a cache folder (not .gitignore, not the whole-run manifests)."""
    return [p for p in cache.rglob("*") if p.is_file() and p.parent.parent.parent == cache and p.name != ".gitignore"]


def manifests(cache: Path) -> list[Path]:
    return [p for p in (cache / "runs").iterdir()] if (cache / "runs").is_dir() else []


def assert_like_no_cache(project: Path, *args: str) -> None:
    expected = run_main("--no-cache", *args)
    before = snapshot(project.parent, skip=project / ".rtlint_cache")
    run = run_main(*args)
    assert (run.stdout, run.exit_code) == (expected.stdout, expected.exit_code)
    assert snapshot(project.parent, skip=project / ".rtlint_cache") == before


def real_entries(project: Path) -> list[Path]:
    """Record real per-file entries, so a planted file sits where one would be read. No
    manifest is recorded: a real one would replay the real output, and the planted entries
    would never be read (a scenario that could not fail)."""
    os.environ["RTLINT_NO_RUN_CACHE"] = "1"
    try:
        run_main(".")
    finally:
        del os.environ["RTLINT_NO_RUN_CACHE"]
    found = entries(project / ".rtlint_cache")
    assert found
    return found


def scenario_empty_entry(project: Path) -> None:
    for entry in real_entries(project):
        entry.write_text("[]")  # unsealed: "no findings"


def scenario_forged_line(project: Path) -> None:
    forged = [
        {
            "path": "a.py",
            "line": FORGED_LINE,
            "column": 1,
            "end_line": 1,
            "end_column": 2,
            "code": "RTL001",
            "name": "x",
            "message": FORGED_LINE,
            "fix": None,
        }
    ]
    for entry in real_entries(project):
        # sealed with someone else's key: the tag does not match this user's
        entry.write_bytes(
            secret.seal(os.urandom(32), entry.parent.parent.name + "/" + entry.name, json.dumps(forged).encode())
        )


def scenario_wrong_shapes(project: Path) -> None:
    """Sealed with the right key (an old format, a bug) but not what the cache writes."""
    key = secret.key()
    shapes = [b"[{}]", b'{"a": 1}', b"[1]", b'[{"path": "a.py", "line": "1"}]', b"\xff\xfe", b""]
    for index, entry in enumerate(real_entries(project)):
        payload = shapes[index % len(shapes)]
        entry.write_bytes(secret.seal(key, entry.parent.parent.name + "/" + entry.name, payload))


def scenario_all_wrong_shapes(project: Path) -> None:
    key = secret.key()
    entry_paths = real_entries(project)
    bad = [
        [{}],
        [1],
        {"a": 1},
        [
            {
                "path": "a.py",
                "line": True,
                "column": 1,
                "end_line": 1,
                "end_column": 1,
                "code": "X",
                "name": "x",
                "message": "m",
                "symbol": "",
            }
        ],
        [
            {
                "path": "other.py",
                "line": 1,
                "column": 1,
                "end_line": 1,
                "end_column": 1,
                "code": "X",
                "name": "x",
                "message": "m",
                "symbol": "",
                "fix": None,
            }
        ],
        [
            {
                "path": "a.py",
                "line": 1,
                "column": 1,
                "end_line": 1,
                "end_column": 1,
                "code": "X",
                "name": "x",
                "message": "m",
                "symbol": "",
                "fix": {"applicability": "safe", "edits": [{}]},
            }
        ],
    ]
    for shape in bad:
        for entry in entry_paths:
            entry.write_bytes(secret.seal(key, entry.parent.parent.name + "/" + entry.name, json.dumps(shape).encode()))
        expected = run_main("--no-cache", ".")
        run = run_main(".")
        assert (run.stdout, run.exit_code) == (expected.stdout, expected.exit_code), shape


def scenario_symlinked_cache(project: Path) -> None:
    (project / ".rtlint_cache").symlink_to(project.parent / "outside", target_is_directory=True)


def scenario_symlinked_folders(project: Path) -> None:
    cache = project / ".rtlint_cache"
    real_entries(project)
    for entry in entries(cache):
        folder = entry.parent
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()
        folder.symlink_to(project.parent / "outside", target_is_directory=True)
    (cache / ".gitignore").unlink()
    (cache / ".gitignore").symlink_to(project.parent / "outside" / "keep.txt")


def scenario_symlinked_entries(project: Path) -> None:
    for entry in real_entries(project):
        entry.unlink()
        entry.symlink_to(project.parent / "outside" / "keep.txt")


def scenario_dev_zero(project: Path) -> None:
    for entry in real_entries(project):
        entry.unlink()
        entry.symlink_to("/dev/zero")


def scenario_fifo(project: Path) -> None:
    for entry in real_entries(project):
        entry.unlink()
        os.mkfifo(entry)


SCENARIOS = {name[len("scenario_") :]: value for name, value in globals().items() if name.startswith("scenario_")}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_planted_cache_gives_the_no_cache_report(project: Path, name: str) -> None:
    SCENARIOS[name](project)
    os.environ["RTLINT_NO_RUN_CACHE"] = "1"  # the per-file cache alone
    try:
        assert_like_no_cache(project, ".")
    finally:
        del os.environ["RTLINT_NO_RUN_CACHE"]
    assert_like_no_cache(project, ".")  # and with the whole-run cache in front of it
    assert f"a.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run_main(".").stdout


def test_a_planted_run_manifest_is_not_replayed(project: Path) -> None:
    from tests.cache.test_runcache import age

    for _ in range(2):  # the first run makes the cache folder: its folder changed, nothing recorded
        age(project)  # a run whose inputs changed within two seconds records no manifest
        run_main(".")
    planted = manifests(project / ".rtlint_cache")
    assert len(planted) == 1  # the test plants where the next run reads
    for manifest in planted:
        forged = {
            "files": [],
            "stamps": [],
            "racy": [],
            "dirs": [],
            "dir_stamps": [],
            "probes": [],
            "probe_stamps": [],
            "stdout": "",
            "stderr": "All checks passed.\n",
            "exit": 0,
        }
        manifest.write_bytes(os.urandom(32) + marshal.dumps((4, forged)))
    assert_like_no_cache(project, ".")
    assert manifests(project / ".rtlint_cache") == planted
    for manifest in planted:
        manifest.unlink()
        manifest.symlink_to("/dev/zero")
    assert_like_no_cache(project, ".")


def test_real_entries_are_sealed_and_replayed(project: Path) -> None:
    for entry in real_entries(project):
        data = entry.read_bytes()
        name = entry.parent.parent.name + "/" + entry.name
        assert secret.unseal(secret.key(), name, data) is not None
        assert secret.unseal(secret.key(), name + "x", data) is None  # bound to its name


def test_the_key_is_private_to_the_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(secret, "_key", None)  # (restored with _loaded when the test ends)
    monkeypatch.setattr(secret, "_loaded", False)
    key = secret.key()
    path = tmp_path / "home" / "rtlint" / "secret"
    assert key is not None and len(key) == 32 and path.read_bytes() == key
    assert path.stat().st_mode & 0o777 == 0o600
    monkeypatch.setattr(secret, "_loaded", False)
    assert secret.key() == key  # the same key on the next run
    path.chmod(0o644)  # readable by others: not a secret any more, so no cache at all
    monkeypatch.setattr(secret, "_loaded", False)
    assert secret.key() is None


def test_gitignore_only_in_a_folder_rtlint_created(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "keep.py").write_text(BUGGY)
    run_main("--cache-dir", "src", "a.py")
    assert not (project / "src" / ".gitignore").exists()  # an existing folder: never hidden from git
    assert run_main(".").stdout.count("RTL001") == 2  # and later runs still lint it
    run_main("--cache-dir", "made", "a.py")
    assert (project / "made" / ".gitignore").read_text() == "# created by rtlint\n*\n"
