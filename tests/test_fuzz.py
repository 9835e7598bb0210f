"""Fuzzing in the suite: a few hundred generated and mutated specs and queries (see
fuzzing.py), each through `check --select setup`, `fmt --check` or `ask`, must end with an
exit code of 0 to 3, no internal error and no hang. Derandomized, so the suite is the same on
every run; bench/fuzz.py runs 10,000 with other seeds."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def _judge(kind: str, text: str, spec: Path = fuzzing.QUERY_SPEC) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for verdict in fuzzing.judge(kind, text, Path(tmp), 0, spec):
            assert verdict.ok, f"{verdict.what}: {verdict.detail}\n--- input ---\n{text[:3000]}"


@FUZZ
@given(st.randoms(use_true_random=False))
def test_generated_specs(rng):
    _judge("spec", fuzzing.generated_spec(rng))


@FUZZ
@given(st.sampled_from(fuzzing.SPEC_SEEDS), st.randoms(use_true_random=False))
def test_mutated_specs(seed, rng):
    _judge("spec", fuzzing.mutate(seed.read_bytes().decode("utf-8", "surrogateescape"), rng))


@settings(FUZZ, max_examples=60)
@given(st.randoms(use_true_random=False))
def test_generated_and_mutated_queries(rng):
    if rng.random() < 0.4:
        _judge("query", fuzzing.generated_query(rng))
        return
    kind, family, text, spec = "query", "", "", fuzzing.QUERY_SPEC
    while kind != "query" or not family.startswith("mutated"):
        kind, family, text, spec = fuzzing.case(rng)
    _judge("query", text, spec)


def test_the_oracle_catches_a_crash(monkeypatch):
    """A test that cannot fail is a defect: a crash in the pipeline must be a failed verdict."""
    from mafiacheck import cli

    def broken(*args, **kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(cli, "run_check", broken)
    verdict = fuzzing.run(["check", str(fuzzing.QUERY_SPEC)])
    assert not verdict.ok and "ValueError: a bug" in verdict.detail
