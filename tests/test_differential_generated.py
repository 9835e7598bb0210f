"""The interpreter against the encoding on generated scenarios (tests/strategies.py): every
phase of random games compared, and every construct of the language must have taken part in
a compared phase. The coverage table prints at the end of the run (tests/conftest.py)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import Run, play_and_compare, scenario_texts

EXAMPLES = 220  # about 60–90 s on two cores
RUN = Run(avoid_known=True)


@given(text=scenario_texts(avoid_known=True), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def _generated(text, seed):
    play_and_compare(RUN, text, seed)


def test_generated_scenarios_agree_and_cover_every_construct():
    _generated()
    TABLES.append(RUN.table())
    print(RUN.table())
    assert RUN.stats["loaded"] >= 0.9 * RUN.stats["specs"], "most generated specs must load"
    assert not RUN.splits, "the two implementations disagree:\n" + "\n\n".join(
        f"{phase}: {detail}\nuses: {uses}\n{text}" for detail, text, phase, uses, *_ in RUN.splits[:3])
    assert not RUN.missing(), "constructs no compared phase exercised: " + ", ".join(RUN.missing())


TABLES: list[str] = []  # read by the terminal summary in conftest.py
