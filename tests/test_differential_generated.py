"""The interpreter against the encoding on generated scenarios (tests/strategies.py): every
phase of random games compared, and every construct of the language must have taken part in
a compared phase. The coverage table prints at the end of the run (tests/conftest.py)."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import Run, play_and_compare, scenario_texts

EXAMPLES = 160  # with the seeds, about 60–90 s on two cores
SEEDS = sorted((Path(__file__).parent / "fixtures" / "generated").glob("*.mafia"))
WALKS_PER_SEED = 20
RUN = Run(avoid_known=True)


@given(text=scenario_texts(avoid_known=True), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def _generated(text, seed):
    play_and_compare(RUN, text, seed)


def test_generated_scenarios_agree_and_cover_every_construct():
    # Seeds in the generator's style for the constructs that need the most luck (a blocked
    # use against a limit, a trigger for the next night, a team's leader gone), then the
    # generated scenarios; coverage counts only what took part in a compared phase.
    for path in SEEDS:
        for seed in range(WALKS_PER_SEED):
            play_and_compare(RUN, path.read_text(encoding="utf-8"), seed)
    _generated()
    TABLES.append(RUN.table())
    print(RUN.table())
    assert RUN.stats["loaded"] >= 0.9 * RUN.stats["specs"], "most generated specs must load"
    assert not RUN.splits, "the two implementations disagree:\n" + "\n\n".join(
        f"{phase}: {detail}\nuses: {uses}\n{text}" for detail, text, phase, uses, *_ in RUN.splits[:3])
    assert not RUN.missing(), "constructs no compared phase exercised: " + ", ".join(RUN.missing())


TABLES: list[str] = []  # read by the terminal summary in conftest.py
