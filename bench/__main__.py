"""`python -m bench` (or `bench/run`): prepares the corpora and the peers, times rtlint and the
peers on each corpus, each paired with the corpus's yardstick (`ast.parse` of every file in
one process), prints the figures and writes bench/results.md."""

from __future__ import annotations

import argparse
import functools
import os
import pickle
import shutil
import sys
import time
from pathlib import Path

from bench import corpora as corpora_module
from bench import peers as peers_module
from bench import report
from bench.corpora import CORPORA, Corpus
from bench.timing import Command, CommandFailed, paired, run_once

# `ast.parse` of every .py file under the given paths, in one process: the yardstick
YARDSTICK = """
import ast, os, sys
def files(root):
    if os.path.isfile(root):
        yield root
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            if name.endswith(".py"):
                yield os.path.join(folder, name)
for root in sys.argv[1:]:
    for path in files(root):
        with open(path, "rb") as handle:
            source = handle.read()
        try:
            ast.parse(source, path)
        except (SyntaxError, ValueError):
            pass
"""
LIBCST_PARSE = "import sys, libcst; libcst.parse_module(open(sys.argv[1], 'rb').read())"
SCALE_POINTS = (1, 3, 10)


class Plan:
    """The commands of one run, built for a corpus."""

    def __init__(self, tools: peers_module.Tools) -> None:
        self.tools = tools
        self.py = tools.python
        self.caches = CORPORA / "caches"

    def yardstick(self, corpus: Corpus) -> Command:
        return Command(
            "yardstick", "yardstick: ast.parse every file", [self.py, "-c", YARDSTICK, *map(str, corpus.paths)]
        )

    def rtlint(self, corpus: Corpus, copies: int, variant: str) -> Command:
        # the console script, as users and pre-commit run it
        argv = [str(Path(self.py).with_name("rtlint")), "check", *map(str, corpus.paths)]
        check, env = peers_module.rtlint_check(copies), self.tools.rtlint_env
        if variant == "cold":
            return Command("rtlint_cold", "rtlint cold (--no-cache)", argv + ["--no-cache"], env=env, check=check)
        if variant == "jobs1":
            return Command(
                "rtlint_jobs1", "rtlint cold, --jobs 1", argv + ["--no-cache", "--jobs", "1"], env=env, check=check
            )
        folder = self.caches / f"{variant}-{corpus.name}"
        shutil.rmtree(folder, ignore_errors=True)
        if variant == "fresh":
            before = functools.partial(shutil.rmtree, folder, ignore_errors=True)
            return Command(
                "rtlint_fresh",
                "rtlint cold (fresh cache dir)",
                argv + ["--cache-dir", str(folder)],
                env=env,
                before=before,
                check=check,
            )
        if variant == "warm_m":  # the same without the console script's wrapper (which imports re)
            argv = [self.py, "-m", "rtlint", *argv[1:]]
            command = Command(
                "rtlint_warm_m",
                "rtlint warm, as `python -m rtlint`",
                argv + ["--cache-dir", str(folder)],
                env=env,
                check=check,
            )
        else:
            command = Command(
                "rtlint_warm",
                "rtlint warm (second run, cache)",
                argv + ["--cache-dir", str(folder)],
                env=env,
                check=check,
            )
        run_once(command)  # fills the cache, untimed
        return command

    def import_rtlint(self) -> Command:
        return Command(
            "import", 'python -c "import rtlint"', [self.py, "-c", "import rtlint"], env=self.tools.rtlint_env, ok=(0,)
        )

    def ruff(self, corpus: Corpus) -> Command:
        argv = [self.tools.peer("ruff"), "check", "--isolated", "--select", "E9", "--no-cache", *map(str, corpus.paths)]
        return Command("ruff", "ruff check --select E9 --no-cache", argv)

    def flake8(self, corpus: Corpus, copies: int, plugin: bool) -> Command:
        if plugin:  # rtlint's interpreter, where the plugin is installed
            argv = [self.py, "-m", "flake8", "--isolated", "--select", "RTL", *map(str, corpus.paths)]
            check = peers_module.rtlint_check(copies, "flake8 --select RTL")
            return Command(
                "flake8_rtl", "flake8 --select RTL (rtlint plugin)", argv, env=self.tools.rtlint_env, check=check
            )
        argv = [self.tools.peer("python"), "-m", "flake8", "--isolated", "--select", "E9", *map(str, corpus.paths)]
        return Command("flake8_e9", "flake8 --select E9 (no rtlint plugin)", argv)

    def semgrep(self, corpus: Corpus) -> Command:
        argv = [
            self.tools.peer("semgrep"),
            "scan",
            "--metrics=off",
            "--disable-version-check",
            "--no-git-ignore",
            "--json",
            "--quiet",
            "--config",
            str(peers_module.RULES / "rtl001.semgrep.yml"),
            *map(str, corpus.paths),
        ]
        return Command(
            "semgrep",
            "semgrep (RTL001 rule)",
            argv,
            env=peers_module.SEMGREP_ENV,
            check=peers_module.semgrep_check(corpus.files),
        )

    def fixit(self, corpus: Corpus) -> Command:
        argv = [
            self.tools.peer("fixit"),
            "--rules",
            "fixit_rtl001:StaleMirrorSnapshot",
            "lint",
            *map(str, corpus.paths),
        ]
        env = {"PYTHONPATH": str(peers_module.RULES)}
        return Command("fixit", "Fixit (RTL001 LintRule)", argv, env=env, check=peers_module.fixit_check(corpus.files))

    # -- fixing (issue 13) ----------------------------------------------------------------
    def _scratch(self, corpus: Corpus):
        """A fresh copy of the corpus before every run (untimed), for the commands that write;
        returns (the paths to give, the function that makes the copy)."""
        folder = CORPORA / "scratch" / corpus.name
        sources = corpus.paths

        def copy() -> None:
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for source in sources:
                target = folder / source.name
                if source.is_dir():
                    shutil.copytree(source, target, symlinks=True)
                else:
                    shutil.copy2(source, target)
            (folder / ".git").mkdir(exist_ok=True)
            (folder / ".semgrepignore").write_text("# every file is linted\n")

        return [folder / source.name for source in sources], copy

    def rtlint_fixing(self, corpus: Corpus, variant: str) -> Command:
        """`--fix` (on a copy), `--diff`, `--format json|sarif|github`, all `--no-cache`."""
        script = str(Path(self.py).with_name("rtlint"))
        env = self.tools.rtlint_env
        if variant == "fix":
            paths, copy = self._scratch(corpus)
            argv = [script, "check", "--no-cache", "--fix", *map(str, paths)]
            return Command(
                "rtlint_fix", "rtlint --fix (on a copy)", argv, env=env, before=copy, check=peers_module.fix_check()
            )
        argv = [script, "check", "--no-cache", *map(str, corpus.paths)]
        if variant == "diff":
            return Command("rtlint_diff", "rtlint --diff", argv + ["--diff"], env=env, check=peers_module.diff_check())
        return Command(
            f"rtlint_{variant}",
            f"rtlint --format {variant}",
            argv + ["--format", variant],
            env=env,
            check=peers_module.format_check(variant),
        )

    def semgrep_fix(self, corpus: Corpus) -> Command:
        paths, copy = self._scratch(corpus)
        argv = [
            self.tools.peer("semgrep"),
            "scan",
            "--metrics=off",
            "--disable-version-check",
            "--no-git-ignore",
            "--json",
            "--quiet",
            "--autofix",
            "--config",
            str(peers_module.RULES / "rtl001.semgrep.yml"),
            *map(str, paths),
        ]
        return Command(
            "semgrep_fix",
            "semgrep --autofix (RTL001 rule)",
            argv,
            env=peers_module.SEMGREP_ENV,
            before=copy,
            check=peers_module.semgrep_check(corpus.files),
        )

    def fixit_fix(self, corpus: Corpus) -> Command:
        paths, copy = self._scratch(corpus)
        argv = [
            self.tools.peer("fixit"),
            "--rules",
            "fixit_rtl001:StaleMirrorSnapshot",
            "fix",
            "--automatic",
            *map(str, paths),
        ]
        env = {"PYTHONPATH": str(peers_module.RULES)}
        return Command(
            "fixit_fix", "Fixit fix (RTL001 LintRule)", argv, env=env, before=copy, check=peers_module.fixit_fix_check()
        )

    def libcst(self, corpus: Corpus) -> Command:
        return Command(
            "libcst", "libcst.parse_module of the file", [self.py, "-c", LIBCST_PARSE, str(corpus.paths[0])], ok=(0,)
        )


def _groups(plan: Plan, name: str, corpus: Corpus, args) -> list[tuple[list[Command], int]]:
    copies = 0 if name in ("stdlib", "pipecat") else 1  # the RTL001 sites are the 1.8.8 tree's
    if name == "activity":
        commands = [plan.rtlint(corpus, copies, "cold"), plan.rtlint_fixing(corpus, "fix"), plan.libcst(corpus)]
        return [(commands, args.runs)]
    if name == "pipecat":  # issue 21: the check of the Pipecat wheel, both ways, and ruff beside it
        commands = [plan.rtlint(corpus, copies, v) for v in ("cold", "jobs1")] + [plan.ruff(corpus)]
        return [(commands, args.runs)]
    if name == "stdlib":
        commands = [plan.rtlint(corpus, copies, v) for v in ("cold", "warm")]
        return [
            (commands + [plan.import_rtlint(), plan.rtlint(corpus, copies, "warm_m"), plan.ruff(corpus)], args.runs)
        ]
    quick = [plan.rtlint(corpus, copies, v) for v in ("cold", "fresh", "warm", "warm_m")]
    quick += [plan.import_rtlint(), plan.rtlint(corpus, copies, "jobs1"), plan.ruff(corpus), plan.semgrep(corpus)]
    slow = [] if args.no_fixit else [plan.fixit(corpus)]
    if name == "wheel":  # the flake8 plugin target is measured here, in every round
        quick += [plan.flake8(corpus, copies, False), plan.flake8(corpus, copies, True)]
        # fixing (issue 13): rtlint's fix paths, and the peers' fixes
        quick += [plan.rtlint_fixing(corpus, v) for v in ("github", "fix", "diff", "json", "sarif")]
        quick.append(plan.semgrep_fix(corpus))
        if not args.no_fixit:
            slow.append(plan.fixit_fix(corpus))
    else:
        slow.insert(0, plan.flake8(corpus, copies, False))
    return [(quick, args.runs), (slow, args.slow_runs)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="rounds of the quick commands (default 3)")
    parser.add_argument(
        "--slow-runs", type=int, default=1, help="rounds of flake8 on the plugins corpus and of Fixit (default 1)"
    )
    parser.add_argument(
        "--corpora",
        default="wheel,plugins,pipecat,stdlib,activity,scaled",
        help="which corpora to time (comma-separated)",
    )
    parser.add_argument("--no-fixit", action="store_true", help="skip Fixit (the slowest peer)")
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results.md")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the output from the last run (e.g. after editing notes.md)"
    )
    args = parser.parse_args(argv)
    args.output = args.output.resolve()
    last = CORPORA / f"{args.output.name}.pickle"  # the figures behind that output, for --report-only
    if args.report_only:
        args.output.write_text(report.markdown(pickle.loads(last.read_bytes())))
        print(f"wrote {args.output}")
        return 0
    chosen = [c.strip() for c in args.corpora.split(",") if c.strip()]
    started = time.time()

    def log(message: str) -> None:
        print(f"[{time.time() - started:6.1f}s] {message}", flush=True)

    tools = peers_module.prepare(log)
    corpora = corpora_module.prepare([tools.peer("python"), "-m", "pip"], log)
    # every command runs from the corpora folder: from the repository root, `python -m rtlint`
    # would import the checkout (the current folder comes first on sys.path), not the snapshot
    os.chdir(CORPORA)
    source = report.source_state()
    digest = peers_module.snapshot(tools)
    log(f"rtlint measured from a snapshot (digest {digest}) of the checkout at {source[0]} (sources {source[1]})")
    plan = Plan(tools)
    run_once(plan.rtlint(corpora["activity"], 1, "cold"))  # fails fast if rtlint is broken
    for corpus in corpora.values():
        seen = peers_module.files_seen(tools, corpus.paths)
        log(
            f"corpus {corpus.name}: {corpus.files} files, {corpus.lines} lines, {corpus.token_files} with the token; "
            + ", ".join(f"{tool} sees {n}" for tool, n in seen.items())
        )
        if any(n < 0.99 * corpus.files for n in seen.values()):  # e.g. a .gitignore above the corpus
            raise SystemExit(f"a tool skips files of {corpus.name}: {seen}")
    run = report.Run(
        tools=tools,
        corpora=corpora,
        runs=args.runs,
        slow_runs=args.slow_runs,
        load_before=report.load(),
        source_before=source,
        snapshot=digest,
    )

    for name in chosen:
        try:
            if name == "scaled":
                log(
                    "scaled corpus: rtlint cold on 1, 3 and 10 copies of the 1.8.8 tree, each paired with its yardstick"
                )
                subsets = [corpora_module.scaled_subset(corpora, k) for k in SCALE_POINTS]
                for _ in range(args.runs):  # every point in every round, so drift spreads evenly
                    for k, subset in zip(SCALE_POINTS, subsets):
                        command = plan.rtlint(subset, k, "cold")
                        command.label = f"rtlint cold, {k} copies ({subset.token_files} token files)"
                        _, results = paired(plan.yardstick(subset), [command], 1, log)
                        run.add_scaled(subset, results["rtlint_cold"])
                continue
            corpus = corpora[name]
            log(f"timing on {corpus.description} ({corpus.files} files)")
            for commands, rounds in _groups(plan, name, corpus, args):
                if commands and rounds > 0:
                    ys, results = paired(plan.yardstick(corpus), commands, rounds, log)
                    for key, result in results.items():
                        run.add(name, key, result, ys)
        except (CommandFailed, AssertionError) as exc:  # a broken tool or a wrong peer rule: no figure
            log(f"FAILED on {name}: {exc}")
            run.errors.append(f"{name}: {exc}")
    run.load_after = report.load()
    run.source_after = report.source_state()
    run.elapsed = time.time() - started
    text = report.markdown(run)
    args.output.write_text(text)
    for results in run.results.values():  # keep the figures for --report-only; closures do not pickle
        for result, yardstick in results.values():
            for command in (result.command, yardstick.command):
                command.before = command.check = None
    for _, result in run.scaled.values():
        result.command.before = result.command.check = None
    last.write_bytes(pickle.dumps(run))
    print()
    print(report.console(run))
    log(f"wrote {args.output}")
    return 1 if run.errors else 0


if __name__ == "__main__":
    sys.exit(main())
