"""Rule discovery: every module of the `rtlint.rules` package (and any extra module named
in RTLINT_EXTRA_RULES, for test rules and private rule packs) contributes its Rule classes."""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Sequence
from functools import cache

from rtlint.core.findings import ENGINE_CODES
from rtlint.core.rule import Option, Rule, iter_rule_classes

__all__ = ["ENGINE_CODES", "all_rules", "all_options", "known_codes", "rule_by_code"]


class RegistryError(Exception):
    pass


def _rules_package():
    """`rtlint.rules`: installed, it is a subpackage; in a source checkout it is the `rules/`
    folder beside `rtlint/`, which is loaded under that name so the tree runs as it is."""
    try:
        import rtlint.rules as package

        return package
    except ModuleNotFoundError:
        import importlib.util
        import sys
        from pathlib import Path

        folder = Path(__file__).resolve().parents[2] / "rules"
        spec = importlib.util.spec_from_file_location(
            "rtlint.rules", folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        if spec is None or spec.loader is None:
            raise RegistryError("the rules package (rtlint.rules) is missing") from None
        package = importlib.util.module_from_spec(spec)
        sys.modules["rtlint.rules"] = package
        spec.loader.exec_module(package)
        return package


@cache
def _load(extra: tuple[str, ...]) -> tuple[type[Rule], ...]:
    package = _rules_package()

    modules = [
        f"{package.__name__}.{info.name}"
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
    ]
    rules: dict[str, type[Rule]] = {}
    for name in [*modules, *extra]:
        module = importlib.import_module(name)
        for cls in iter_rule_classes(module):
            if cls.code in rules or cls.code in ENGINE_CODES:
                raise RegistryError(f"rule code {cls.code} is defined twice ({name})")
            rules[cls.code] = cls
    return tuple(rules[code] for code in sorted(rules))


def all_rules() -> Sequence[type[Rule]]:
    extra = tuple(m for m in os.environ.get("RTLINT_EXTRA_RULES", "").split(",") if m.strip())
    return _load(extra)


def rule_by_code(code: str) -> type[Rule] | None:
    """The rule with this code, or with this name (`stale-mirror-snapshot`)."""
    for rule in all_rules():
        if rule.code == code.upper() or rule.name == code:
            return rule
    return None


def all_options() -> dict[str, Option]:
    """Options of every rule, by name; rules sharing an option must agree on its default."""
    options: dict[str, Option] = {}
    for rule in all_rules():
        for option in rule.options:
            known = options.setdefault(option.name, option)
            if known.default != option.default:
                raise RegistryError(f"option '{option.name}' has two defaults ({rule.code})")
    return options


def known_codes() -> list[str]:
    return [*(r.code for r in all_rules()), *ENGINE_CODES]
