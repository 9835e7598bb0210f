"""Forms where `ask` (the interpreter) and `check` (the Z3 encoding) once parted (the rows
docs/language.md section 5 no longer lists). Each test states the behaviour both must have
and checks both sides: the interpreter's answer, and the encoding's through the
phase-by-phase compare or an analysis."""

from pathlib import Path

from playing import bind, interpret
from mafiacheck import holes
from mafiacheck.crosscheck.differential import compare
from mafiacheck.encode.unroll import Game
from mafiacheck.interpreter.play import Player
from mafiacheck.pipeline import check_file, load

ROOT = Path(__file__).resolve().parent.parent
PARITY = ROOT / "tests" / "fixtures" / "parity"


def probe(name: str):
    return load(str(PARITY / f"{name}.mafia"))


def agree_along(scenario, text: str) -> list[str]:
    """The compare's verdict on each phase of a query played by the interpreter (each phase
    from the state the interpreter reached): the details of those that disagree."""
    bound = bind(scenario, text)
    player = Player(scenario)
    state = bound.state
    wrong = []
    for phase, uses in bound.phases:
        verdict = compare(scenario, state, phase, uses)
        if not verdict.agree or "not compared" in verdict.detail:
            wrong.append(f"{phase}: {verdict.detail}")
        results, problems = player.play(state, phase, uses)
        assert results and not problems, [p.message for p in problems]
        state = results[0][0]
    return wrong


def findings(name: str, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    result = check_file(str(PARITY / f"{name}.mafia"), select=kinds)
    assert not result.diagnostics, result.diagnostics
    return [(f.code, f.message) for f in result.findings]


# ------------------------------------------------------------------ `cases` of truths

def test_a_cases_of_truths_is_encoded_in_conditions_and_effects():
    every = findings("cases_truth", ("undefined", "dead-rule", "unreachable-win"))
    assert not [f for f in every if f[0] in ("MC900", "MC200")], every
    sc = probe("cases_truth")
    answer = interpret(sc, "query q { night 1 { shot on citizen@1 } }")
    assert [(s, k) for r in answer.outcomes[0].reports for s, k, _ in r.exits] == [(2, "fright")]
    assert agree_along(sc, "query q { night 1 { shot on citizen@1 }  day 1 { vote none }"
                           "  night 2 { shot on doc } }") == []


# ------------------------------------------------------------------ tables with no row

def test_a_table_with_no_row_in_a_rule_or_an_effect_is_a_hole_for_both():
    # Night 2 with three of the town left: no row for the rule, the learned count, the hush
    # (a blocking step) or the omen falling due.
    sc = probe("rowless")
    answer = interpret(sc, "query q { night 1 { shot on citizen@1  omen on warden }  day 1 { vote citizen@2 }"
                           "  night 2 { shot on citizen@3  tally on doc  hush on boss } }")
    assert answer.verdict == "undefined"
    said = {h.message.split(":")[0] for r in answer.outcomes[0].reports for h in r.holes}
    assert said == {"rule scared", "Tally", "Hush", "Omen"}, said
    found = [m for c, m in findings("rowless", ("undefined",)) if c == "MC203"]
    for source in ("rule scared", "Tally", "Hush", "Omen"):
        assert any(f"{source}: a table with no row" in m for m in found), (source, found)


def test_a_rule_whose_table_has_no_row_does_not_apply_for_either():
    # Night 1 with five of the town: the table has a row, the citizen runs. The same shot
    # with three left has none: the rule does not apply (a hole); the shot kills.
    sc = probe("rowless")
    text = ("query q { night 1 { shot on citizen@1 }  day 1 { vote citizen@2 }"
            "  night 2 { shot on citizen@3 } }")
    exits = [(s, k) for r in interpret(sc, text).outcomes[0].reports for s, k, _ in r.exits]
    assert exits == [(3, "fright"), (4, "vote"), (5, "shot")]
    assert agree_along(sc, text) == []


# ------------------------------------------------------------------ uses(ABILITY)

NIGHTS = ("query q { night 1 { shot on citizen@1  heal on doc }  day 1 { vote none }"
          "  night 2 { shot on citizen@2  heal on doc }  day 2 { vote none }"
          "  night 3 { shot on citizen@3 %s } }")


def test_uses_counts_the_uses_so_far_for_both():
    sc = probe("uses")
    answer = interpret(sc, NIGHTS % "")
    assert answer.verdict == "determined", [p.message for p in answer.problems]
    exits = [(s, k) for r in answer.outcomes[0].reports for s, k, _ in r.exits]
    assert exits == [(2, "shot"), (3, "shot"), (4, "fright")]
    assert agree_along(sc, NIGHTS % "") == []


def test_a_when_on_uses_forbids_a_third_heal_for_both():
    sc = probe("uses")
    assert interpret(sc, NIGHTS % " heal on doc").verdict == "illegal"
    bound = bind(sc, NIGHTS % " heal on doc")
    player, state = Player(sc), bound.state
    for phase, uses in bound.phases[:-1]:
        state = player.play(state, phase, uses)[0][0][0]
    phase, uses = bound.phases[-1]
    verdict = compare(sc, state, phase, uses)
    assert verdict.agree and "illegal for the interpreter" in verdict.detail, verdict.detail


# ------------------------------------------------------------------ inquire after the deaths

def test_an_inquiry_by_a_rule_after_the_deaths_is_seen_by_the_later_rules():
    sc = probe("late_inquire")
    saved = "query q { night 1 { shot on citizen@1  heal on citizen@1 } }"
    answer = interpret(sc, saved)
    assert answer.outcomes[0].state.memories.get("seen") == frozenset({2})
    assert agree_along(sc, saved) == []
    shot = "query q { night 1 { shot on citizen@1  heal on doc } }"
    assert not interpret(sc, shot).outcomes[0].state.memories.get("seen")
    assert agree_along(sc, shot) == []


# ------------------------------------------------------------------ win SIDE as an effect

def winner_of(scenario, text: str):
    answer = interpret(scenario, text)
    assert answer.verdict == "determined", (answer.verdict, [p.message for p in answer.problems])
    return answer.outcomes[0].winner


def test_a_declared_win_ends_the_phase_for_both():
    sc = probe("win_effect")
    night = "query q { night 1 { guess on boss } }"  # wins are checked after days only
    assert winner_of(sc, night) == "town"
    assert agree_along(sc, night) == []
    wrong = "query q { night 1 { guess on citizen@1  shot on citizen@1 } }"
    assert winner_of(sc, wrong) is None
    assert agree_along(sc, wrong) == []


def test_a_win_declared_by_an_exit_trigger_at_the_vote():
    sc = probe("win_effect")
    text = "query q { night 1 { }  day 1 { vote saint  last_word } }"
    assert winner_of(sc, text) == "town"
    assert agree_along(sc, text) == []


def test_declared_wins_of_two_sides_are_decided_by_priority():
    # Night 2: the Oracle names the Boss (town) and the rule declares for the mafia, the town
    # being down to one; `priority mafia > town`.
    sc = probe("win_effect")
    text = ("query q { night 1 { shot on citizen@1 }  day 1 { vote citizen@2 }"
            "  night 2 { guess on boss  shot on oracle } }")
    assert winner_of(sc, text) == "mafia"
    assert agree_along(sc, text) == []



def test_a_delayed_win_falls_due_for_both():
    sc = probe("win_effect")
    text = "query q { night 1 { prophecy on saint }  day 1 { vote none } }"
    assert winner_of(sc, text) == "town"
    assert agree_along(sc, text) == []


def test_a_win_declared_by_an_exit_rule_for_both():
    sc = probe("win_effect")
    text = "query q { night 1 { shot on saint } }"
    assert winner_of(sc, text) == "town"
    assert agree_along(sc, text) == []


# ------------------------------------------------------------------ cancel ABILITY

def exits_of(answer) -> list[list[tuple[int, str]]]:
    return sorted([(s, k) for r in o.reports for s, k, _ in r.exits] for o in answer.outcomes)


def test_a_cancel_takes_away_the_targets_uses_for_both():
    sc = probe("cancel")
    vetoed = "query q { night 1 { shot on citizen@1  veto on boss } }"
    answer = interpret(sc, vetoed)
    assert exits_of(answer) == [[]]
    assert answer.outcomes[0].state.memories.get("vetoed") == frozenset({0})
    assert agree_along(sc, vetoed) == []
    missed = "query q { night 1 { shot on citizen@1  veto on citizen@2 } }"
    assert exits_of(interpret(sc, missed)) == [[(3, "shot")]]
    assert agree_along(sc, missed) == []


def test_a_cancel_is_a_blocking_step_in_every_open_order_for_both():
    # The Jailer blocks the Judge: if the block comes first the veto is taken away and the
    # shot kills; if the veto comes first, the shot is cancelled.
    sc = probe("cancel")
    text = "query q { night 1 { shot on citizen@1  veto on boss  jail on judge } }"
    assert exits_of(interpret(sc, text)) == [[], [(3, "shot")]]
    assert agree_along(sc, text) == []


def test_a_cancel_of_a_blocking_step_depends_on_their_order_for_both():
    # The pardon cancels the Jailer's block of the Boss if it comes first; else the block
    # stands and the Boss's shot is taken away.
    sc = probe("cancel")
    text = "query q { night 1 { shot on citizen@1  pardon on jailer  jail on boss } }"
    assert exits_of(interpret(sc, text)) == [[], [(3, "shot")]]
    assert agree_along(sc, text) == []


# ------------------------------------------------------------------ block cycles across abilities

def blocked_of(answer) -> list[list[int]]:
    return sorted(sorted(o.reports[-1].blocked) for o in answer.outcomes)


def cycle_holes(answer) -> set:
    return {(h.source, h.other, h.seats) for o in answer.outcomes for h in o.reports[-1].holes
            if h.kind == holes.BLOCK_CYCLE}


def test_a_block_cycle_across_abilities_is_the_two_readings_and_a_hole_for_both():
    # The Jailer jails the Beauty who charms him, Jail and Charm unordered: the orders give
    # exactly the two readings (each block, stopping the other), as before the cycle was
    # named; every outcome carries the hole, and the encoding has the cycle exactly then
    # (compare holds pv.cycles to the interpreter's hole).
    sc = probe("block_cycle")
    text = "query q { night 1 { shot on citizen@1  jail on beauty  charm on jailer } }"
    answer = interpret(sc, text)
    assert answer.verdict == "ambiguous"
    assert blocked_of(answer) == [[1], [2]]
    assert exits_of(answer) == [[(4, "shot")], [(4, "shot")]]
    assert cycle_holes(answer) == {("charm", "jail", (2, 1))}
    assert all(len(o.reports[-1].holes) == 1 for o in answer.outcomes)
    bound = bind(sc, text)
    phase, uses = bound.phases[0]
    game = Game(sc, tuple(bound.state.roles), 1, start=bound.state, first_phase=phase.index, symmetry=False)
    assert [(holes.ring_abilities(h), h.seats) for _, h in game.vars[0].cycles] == [(("charm", "jail"), (2, 1))]
    assert agree_along(sc, text) == []


def test_no_block_cycle_without_the_block_back_or_with_a_third_block_first_for_both():
    sc = probe("block_cycle")
    # The Beauty does not charm: one block, one outcome, no hole.
    one = "query q { night 1 { shot on citizen@1  jail on beauty } }"
    assert interpret(sc, one).verdict == "determined" and not cycle_holes(interpret(sc, one))
    assert agree_along(sc, one) == []
    # The Witch's Hex comes after both: the cycle stands, the Hex on the Boss is a block of
    # its own in every order.
    hexed = "query q { night 1 { shot on citizen@1  jail on beauty  charm on jailer  hex on boss } }"
    answer = interpret(sc, hexed)
    assert cycle_holes(answer) == {("charm", "jail", (2, 1))} and exits_of(answer) == [[], []]
    assert agree_along(sc, hexed) == []


def test_a_block_cycle_is_ambiguous_resolution_not_ambiguous_order():
    every = findings("block_cycle", ("ambiguous-order", "ambiguous-resolution"))
    assert [c for c, _ in every] == ["MC208"], every
    assert all(name in every[0][1] for name in ("Jail by @2 (Jailer)", "Charm by @3 (Beauty)")), every


def test_an_order_disagreement_besides_a_cycle_is_still_ambiguous_order():
    # The Jailer may jail anyone: jailing the Boss whom the Beauty does not free is an order
    # disagreement no cycle explains (MC207, its witness no cycle), beside the cycle (MC208).
    result = check_file(str(ROOT / "examples" / "broken" / "jailer_and_beauty_block_each_other.mafia"),
                        select=("ambiguous-order", "ambiguous-resolution"))
    by_code = {f.code: f for f in result.findings}
    assert sorted(by_code) == ["MC207", "MC208"], [(f.code, f.message) for f in result.findings]
    assert not any("block each other" in line for o in by_code["MC207"].witness["outcomes"] for line in o)


# ------------------------------------------------------------------ rules in rounds

def test_a_rule_sees_what_a_rule_declared_after_it_writes_in_a_later_round_for_both():
    # `to_third` reads `second`, which `to_second` (declared after it) writes from `first`,
    # which `shot_first` (after both) writes: three rounds. `remembered` reads the inquiry
    # `survivor_checked` (after it) makes: two.
    sc = probe("rule_rounds")
    saved = "query q { night 1 { shot on citizen@1  heal on citizen@1 } }"
    memories = interpret(sc, saved).outcomes[0].state.memories
    assert [memories.get(m) for m in ("first", "second", "third", "seen")] == [frozenset({2})] * 4
    assert agree_along(sc, saved) == []


def test_a_rule_acts_once_a_phase_though_the_day_resolves_twice_for_both():
    # The day resolves before the vote and after it; the Doc tires once (3 -> 2).
    sc = probe("rule_rounds")
    text = "query q { night 1 { shot on citizen@1  heal on doc }  day 1 { vote none } }"
    assert interpret(sc, text).outcomes[0].state.counters[1] == {"grit": 2}
    assert agree_along(sc, text) == []


def test_rules_that_do_not_settle_within_as_many_rounds_as_rules_are_a_hole_for_both():
    sc = probe("unsettled")
    text = "query q { night 1 { guard_shot on boss } }"
    answer = interpret(sc, text)
    assert answer.verdict == "undefined"
    said = [h for r in answer.outcomes[0].reports for h in r.holes]
    assert [(h.kind, h.source) for h in said] == [("unsettled", "spread")]
    assert agree_along(sc, text) == []
    found = [m for c, m in findings("unsettled", ("undefined",)) if c == "MC203"]
    assert len(found) == 1 and said[0].message in found[0], found
    # With a second rule after the deaths, two rounds are followed: every player is tagged.
    two = probe("unsettled_two")
    answer = interpret(two, text)
    assert answer.verdict == "determined"
    assert answer.outcomes[0].state.memories["tagged"] == frozenset({0, 1, 2, 3})
    assert agree_along(two, text) == []
    assert not [m for c, m in findings("unsettled_two", ("undefined",)) if c == "MC203"]


# ------------------------------------------------------------------ blocks falling due, wins of a blocking step

def test_blocks_falling_due_and_wins_of_a_blocking_step_are_encoded():
    every = findings("delayed_blocks", ("undefined", "dead-rule", "unreachable-win"))
    assert not [f for f in every if f[0] in ("MC900", "MC200")], every


def test_a_cancel_falling_due_takes_away_the_uses_for_both():
    sc = probe("delayed_blocks")
    cursed = "query q { night 1 { curse on boss }  day 1 { vote none }  night 2 { shot on citizen@1 } }"
    assert exits_of(interpret(sc, cursed)) == [[]]
    assert agree_along(sc, cursed) == []
    elsewhere = "query q { night 1 { curse on citizen@1 }  day 1 { vote none }  night 2 { shot on citizen@1 } }"
    assert exits_of(interpret(sc, elsewhere)) == [[(4, "shot")]]
    assert agree_along(sc, elsewhere) == []


def test_a_block_falling_due_blocks_for_both():
    sc = probe("delayed_blocks")
    text = "query q { night 1 { promise on boss }  day 1 { vote none }  night 2 { shot on citizen@1 } }"
    assert exits_of(interpret(sc, text)) == [[]]
    assert agree_along(sc, text) == []


def test_a_win_declared_by_a_blocking_step_for_both():
    sc = probe("delayed_blocks")
    named = "query q { night 1 { seer_jail on boss } }"
    assert winner_of(sc, named) == "town"
    assert agree_along(sc, named) == []
    # The Jailer's block of the Seer, if it comes first, takes the declaration away.
    raced = "query q { night 1 { seer_jail on boss  jail on seer } }"
    assert sorted(str(o.winner) for o in interpret(sc, raced).outcomes) == ["None", "town"]
    assert agree_along(sc, raced) == []


# ------------------------------------------------------------------ rings of blocks (k >= 2)

RING = ROOT / "examples" / "broken" / "three_abilities_block_in_a_ring.mafia"


def ring_holes(answer) -> set:
    return {(holes.ring_abilities(h), h.seats) for o in answer.outcomes for h in o.reports[-1].holes
            if h.kind == holes.BLOCK_CYCLE}


def taking_effect(answer, ring) -> set:
    """The readings: which of the ring's uses (ability, user) take effect, outcome by outcome."""
    return {frozenset(u for u in ring if u not in o.reports[-1].blocked_uses) for o in answer.outcomes}


def test_three_unordered_blocks_in_a_ring_are_three_readings_and_one_hole_for_both():
    # Jail → Charm → Hex → Jail, no order declared: whichever resolves first takes effect
    # and stops the next; the one after a stopped block takes effect as well. Three
    # readings (each use stopped once), one hole naming the ring from its least key.
    sc = load(str(RING))
    text = "query q { night 1 { shot on citizen@1  jail on beauty  charm on witch  hex on jailer } }"
    answer = interpret(sc, text)
    ring = [("charm", 2), ("hex", 3), ("jail", 1)]
    assert ring_holes(answer) == {(("charm", "hex", "jail"), (2, 3, 1))}
    assert taking_effect(answer, ring) == {frozenset(ring) - {u} for u in ring}
    assert all(len(o.reports[-1].holes) == 1 for o in answer.outcomes)
    bound = bind(sc, text)
    phase, uses = bound.phases[0]
    game = Game(sc, tuple(bound.state.roles), 1, start=bound.state, first_phase=phase.index, symmetry=False)
    # The encoding lists every ring some choices could form (with the condition that they do,
    # which the compare holds to the interpreter's hole); this one is among them, word for word.
    (hole,) = answer.outcomes[0].reports[-1].holes
    assert [h.message for _, h in game.vars[0].cycles if h == hole] == [hole.message]
    assert agree_along(sc, text) == []
    # Two of the three: a chain, not a ring (one reading a player outside it sees no
    # difference in): no hole.
    chain = "query q { night 1 { shot on citizen@1  jail on beauty  charm on witch } }"
    assert not ring_holes(interpret(sc, chain)) and agree_along(sc, chain) == []


def test_a_ring_of_four_with_a_declared_order_has_the_readings_its_orders_allow_for_both():
    # Jail → Charm → Hex → Hush → Jail with Hush before Jail: each block can still be the one
    # that takes effect first over the next, so the ring is a cycle; of the six readings with
    # no order (a stopped use, or two not adjacent), the order leaves four: it cannot stop
    # Charm alone or Hex alone (either needs Jail before Hush).
    sc = probe("block_ring")
    text = "query q { night 1 { shot on citizen@1  jail on beauty  charm on witch  hex on nun  hush on jailer } }"
    answer = interpret(sc, text)
    ring = [("charm", 2), ("hex", 3), ("hush", 4), ("jail", 1)]
    assert ring_holes(answer) == {(("charm", "hex", "hush", "jail"), (2, 3, 4, 1))}
    stopped = {frozenset(ring) - r for r in taking_effect(answer, ring)}
    J, C, H, N = ("jail", 1), ("charm", 2), ("hex", 3), ("hush", 4)
    assert stopped == {frozenset(s) for s in ({J}, {N}, {J, H}, {C, N})}
    assert agree_along(sc, text) == []


def test_a_declared_order_that_leaves_a_block_of_the_ring_never_first_breaks_it_for_both():
    # Hush → Jail → Charm → Hush with Hush before Jail: Jail could stop Charm only by
    # resolving before it with Hush stopped, which needs Charm before Hush, so before Jail.
    # No cycle: the orders still disagree (ambiguous-order's, not ambiguous-resolution's).
    sc = probe("block_ring")
    text = "query q { night 1 { shot on citizen@1  hush on jailer  jail on beauty  charm on nun } }"
    answer = interpret(sc, text)
    assert not ring_holes(answer) and len(answer.outcomes) == 2
    assert agree_along(sc, text) == []


def test_the_ring_example_is_ambiguous_resolution_with_every_reading_and_no_ambiguous_order():
    result = check_file(str(RING), select=("ambiguous-order", "ambiguous-resolution"))
    assert [f.code for f in result.findings] == ["MC208"], [(f.code, f.message) for f in result.findings]
    message = result.findings[0].message
    assert "3 consistent readings" in message
    for reading in ("Charm by @3 (Beauty) and Hex by @4 (Witch) take effect",
                    "Charm by @3 (Beauty) and Jail by @2 (Jailer) take effect",
                    "Hex by @4 (Witch) and Jail by @2 (Jailer) take effect"):
        assert reading in message, message


def test_a_ring_of_four_with_no_order_has_six_readings_for_both(tmp_path):
    # The same ring with the order struck out: every set of stopped uses with none next to
    # another, and at least one (L(4) - 1 = 6), as the reference says.
    spec = tmp_path / "free_ring.mafia"
    spec.write_text((PARITY / "block_ring.mafia").read_text(encoding="utf-8").replace("resolve hush before jail", ""),
                    encoding="utf-8")
    sc = load(str(spec))
    text = "query q { night 1 { shot on citizen@1  jail on beauty  charm on witch  hex on nun  hush on jailer } }"
    answer = interpret(sc, text)
    ring = [("charm", 2), ("hex", 3), ("hush", 4), ("jail", 1)]
    J, C, H, N = ("jail", 1), ("charm", 2), ("hex", 3), ("hush", 4)
    assert {frozenset(ring) - r for r in taking_effect(answer, ring)} == \
        {frozenset(s) for s in ({J}, {C}, {H}, {N}, {J, H}, {C, N})}
    assert ring_holes(answer) == {(("charm", "hex", "hush", "jail"), (2, 3, 4, 1))}
    assert agree_along(sc, text) == []
