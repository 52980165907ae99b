"""Rule options and their values: what `[tool.rtlint]` configures (shared by the engine,
the file contexts and the rules without importing one another)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    """A `[tool.rtlint]` key a rule reads. Rules sharing a vocabulary declare the same option."""

    name: str
    default: Any
    help: str

    def validate(self, value: Any) -> Any:
        expected = type(self.default)
        if isinstance(self.default, (list, tuple)):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise TypeError(f"'{self.name}' must be a list of strings")
            return tuple(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise TypeError(f"'{self.name}' must be of type {expected.__name__}")
        return value


class Settings:
    """Option values by name, defaults filled in."""

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        self._values = dict(values or {})

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self._values.get(name, default)

    def fingerprint(self) -> str:
        return repr(sorted(self._values.items()))
