"""`python -m bench.ecosystem`: rtlint at two git refs (head, default HEAD, and base, default
the last tag or main~1) over the wheel of every package of bench/ecosystem_packages.txt; prints
the report and writes the markdown summary to bench/ecosystem.md. Exit status 1 when head
crashed or reported an RTL9xx on any package."""

from __future__ import annotations

import argparse
import datetime
import os
import pickle
import sys
import time
from pathlib import Path

from bench.ecosystem import compare, fetch, packages, render, runner, versions
from bench.report import cpu_model, load

HERE = Path(__file__).resolve().parent.parent


def _last_run(output: Path) -> Path:
    """Where the results behind a report are kept, for --report-only (one per report file name)."""
    return fetch.ROOT / f"{output.name}.pickle"


def _refresh(args) -> int:
    old = set(packages.load(args.packages)) if args.packages.exists() else set()
    new = packages.derive_from(args.index)
    args.packages.write_text(packages.render(new))
    for package in sorted(set(new) - old):
        print(f"+ {package.pin}")
    for package in sorted(old - set(new)):
        print(f"- {package.pin}")
    print(f"wrote {args.packages}: {len(new)} packages")
    return 0


def _trees(parser: argparse.ArgumentParser, specs: list[str]) -> list[tuple[packages.Package, Path]]:
    """The folders of --tree NAME=DIR, each as a package at version 'local'."""
    trees = []
    for spec in specs:
        name, sep, folder = spec.partition("=")
        if not sep or not name.strip() or not folder.strip():
            parser.error(f"--tree takes NAME=DIR, not {spec!r}")
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            parser.error(f"--tree {spec}: {path} is not a folder")
        trees.append((packages.Package(packages.normalise(name.strip()), "local"), path))
    return trees


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ecosystem", description=__doc__)
    parser.add_argument("--base", help="git ref of the version compared against (default: the last tag, else main~1)")
    parser.add_argument(
        "--head",
        "--head-ref",
        dest="head",
        default="HEAD",
        help="git ref of the version checked (default HEAD; '.' is the working tree)",
    )
    parser.add_argument(
        "--packages", type=Path, default=packages.LIST, help="the package list (default bench/ecosystem_packages.txt)"
    )
    parser.add_argument(
        "--refresh", action="store_true", help="re-derive the package list from --index, write it, and stop"
    )
    parser.add_argument(
        "--index", type=Path, default=packages.INDEX, help=f"the package index's name list (default {packages.INDEX})"
    )
    parser.add_argument("--only", help="comma-separated package names: lint just these (a quick look)")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="also lint a folder that is not on the index, reported as package NAME at version 'local'; "
        "repeatable; the trees whose findings have verdicts: "
        + "; ".join(f"{name}: {source}" for name, source in packages.TREES.items()),
    )
    parser.add_argument(
        "--output", type=Path, default=HERE / "ecosystem.md", help="the markdown summary (default bench/ecosystem.md)"
    )
    parser.add_argument("--verdicts", type=Path, default=compare.VERDICTS, help="the hand-written verdicts")
    parser.add_argument(
        "--timeout",
        type=float,
        default=runner.LINT_TIMEOUT,
        help="seconds for one package's lint (default %(default)s)",
    )
    parser.add_argument(
        "--download-timeout", type=float, default=fetch.DOWNLOAD_TIMEOUT, help="seconds for one package's download"
    )
    parser.add_argument(
        "--retry-skipped", action="store_true", help="ask pip again for the packages it had no wheel for"
    )
    parser.add_argument(
        "--every-file",
        action="store_true",
        help="name every .py file, so rtlint parses all of them (its pre-filter skips files without its vocabulary)",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the report from the last run with the current verdicts"
    )
    args = parser.parse_args(argv)
    if args.refresh:
        return _refresh(args)
    if args.report_only:
        if not _last_run(args.output).exists():
            parser.error(f"--report-only: no earlier run wrote {args.output.name}")
        results, context = pickle.loads(_last_run(args.output).read_bytes())
        return _report(results, context, compare.load_verdicts(args.verdicts), args.output)
    started, load_before = time.time(), load()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    listed = packages.load(args.packages)
    if args.only:
        names = {packages.normalise(n) for n in args.only.split(",") if n.strip()}
        listed = [p for p in listed if p.name in names]
        if not listed:
            parser.error(f"--only: none of {sorted(names)} is in {args.packages}")
    verdicts = compare.load_verdicts(args.verdicts)
    base = versions.materialise(args.base or versions.default_base())
    head = versions.materialise(args.head)
    print(f"base {base.ref}: {base.describe}\nhead {head.ref}: {head.describe}")
    fetched = fetch.fetch(listed, retry_skipped=args.retry_skipped, timeout=args.download_timeout)
    fetched += [fetch.Fetched(package, tree) for package, tree in _trees(parser, args.tree)]
    config = fetch.ROOT / "empty-config.toml"
    config.write_text(runner.EMPTY_CONFIG)
    results = []
    for item in fetched:
        result = compare.PackageResult(item.package, skipped=item.reason)
        if item.tree is not None:
            result.files, result.lines = runner.count(item.tree)
            result.base = runner.lint(base, item.tree, config, args.timeout, args.every_file)
            result.head = runner.lint(head, item.tree, config, args.timeout, args.every_file)
            flag = " CRASH" if result.base.crashed or result.head.crashed else ""
            print(
                f"  {item.package.pin:<48} {result.files:5} files"
                f"  base {result.base.wall:5.2f} s {len(result.base.findings):3}"
                f"  head {result.head.wall:5.2f} s {len(result.head.findings):3}{flag}",
                flush=True,
            )
        results.append(result)
    context = render.Context(
        base=f"`{base.ref}`: {base.describe}",
        head=f"`{head.ref}`: {head.describe}",
        machine=f"{os.cpu_count()} cores ({cpu_model()}), load average before {load_before}, after {load()}",
        date=date,
        elapsed=time.time() - started,
    )
    _last_run(args.output).write_bytes(pickle.dumps((results, context)))
    return _report(results, context, verdicts, args.output)


def _report(results: list[compare.PackageResult], context: render.Context, verdicts, output: Path) -> int:
    text = render.markdown(results, verdicts, context)
    print()
    print(text)
    output.write_text(text)
    print(f"wrote {output}")
    head_broken = any(r.head and (r.head.crashed or any(f.engine_error for f in r.head.findings)) for r in results)
    return 1 if head_broken else 0


if __name__ == "__main__":
    sys.exit(main())
