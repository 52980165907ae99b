"""Fuzzing (issue 8): generated programs never crash rtlint, and every --fix output parses,
is idempotent and leaves no finding it claims to fix (tests/support/fuzzing.py states the
properties; tests/support/programs.py builds the programs).

CI runs a bounded number of examples (RTLINT_FUZZ_EXAMPLES scales them; the profile below
keeps the suite fast); `python -m bench.fuzz` runs 10,000 and prints what it saw.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .support.fuzzing import check_bytes, check_program
from .support.programs import hypothesmith_programs, realtime_module, spliced_module

SCALE = float(os.environ.get("RTLINT_FUZZ_EXAMPLES_SCALE", "1"))

settings.register_profile(
    "rtlint-ci",
    deadline=None,  # a LibCST parse of a big generated program can take a while
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    derandomize=False,
    print_blob=True,  # a failure prints the @reproduce_failure line
)
PROFILE = settings.get_profile("rtlint-ci")


def examples(n: int) -> settings:
    return settings(PROFILE, max_examples=max(1, int(n * SCALE)))


# the counts below are what issue 8's closing note calls "fuzz examples run" per CI run
REALTIME, SPLICED, GRAMMAR, BYTES, TEXT = 60, 15, 30, 150, 150


@examples(REALTIME)
@given(realtime_module())
def test_realtime_programs(text: str) -> None:
    check_program(text)


@examples(SPLICED)
@given(spliced_module())
def test_realtime_shapes_spliced_into_generated_programs(text: str) -> None:
    check_program(text)


@examples(GRAMMAR)
@given(hypothesmith_programs())
def test_generated_programs(text: str) -> None:
    check_program(text)


@examples(BYTES)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(raw: bytes) -> None:
    check_bytes(raw)


@examples(TEXT)
@given(st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    check_bytes(text.encode("utf-8"))
