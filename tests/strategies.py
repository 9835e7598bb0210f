"""Hypothesis strategies for small scenarios (4–7 players), written as spec TEXT from building
blocks and loaded through the real pipeline, so the differential runs reach every construct
of the language: sides, roles with counters, plain roles and appearances, a team with or
without a leader, abilities by role, team, moderator and holder at night, by day before and
after the vote (and at both moments of a day) and on an intro night, targets, filters, limits, `choose`, `when`,
`mandatory`, `blocked uses …`, triggers, cards, every effect verb, rules with `for`,
`unless`, `overrides`, `at`, the event predicates, `round`, the day's clauses, wins with
readings, and priorities.

`scenario_texts()` draws a text; `load_text()` loads one (None when the resolver rejects it:
the tests count those). With `avoid_known=True` the texts stay clear of the splits already
found and kept as strict xfails in tests/test_splits_found.py (`KNOWN_SPLITS`), so that a
run over them can fail only on a new one; the sweep draws them too.
"""

from __future__ import annotations

import os
import re
import tempfile

from hypothesis import strategies as st

from mafiacheck.errors import SpecError
from mafiacheck.pipeline import load

HEADER = """scenario generated "Generated" { prefix GN }
side town "Town" town
side mafia "Mafia" dark
kind shot "Shot"
kind hit "Hit"
kind fright "Fright"
kind grief "Grief"
kind omen "Omen"
kind removed "Removed"
item gun "Gun" variants live "Live", blank "Blank"
memory marked: set of player
memory picked: player
memory tally: int = 0
"""

LIMITS = ("limit 1 per night", "limit 1 per game", "limit 2 per game", "limit 1 per game on self",
          "limit no repeat")
BLOCKED = ("", "", "blocked uses count", "blocked uses do not count",
           'blocked uses unspecified "whether a blocked use counts"')


@st.composite
def _limits(draw, blocked: bool = True, per_game: bool = False) -> str:
    """Limits, and (with a limit per game, which a blocked use can count against) what a
    blocked use does to them."""
    limits = draw(st.lists(st.sampled_from(LIMITS), max_size=2, unique=True))
    if per_game and not any("per game" in x for x in limits):
        limits.append("limit 2 per game")
    if "limit 1 per game" in limits and "limit 2 per game" in limits:
        limits.remove("limit 2 per game")
    modes = (BLOCKED[4], BLOCKED[3], BLOCKED[2]) if per_game else BLOCKED
    mode = draw(st.sampled_from(modes)) if blocked and any("per game" in x for x in limits) else ""
    return "  ".join(limits + [mode])


# Each block: a role (None for none) with what it brings (abilities, rules), drawn.

# The lists of phases that name more than one moment of a day: both moments, in either order
# and with `day` for the one before the vote, or each day its own moment.
DAY_MOMENTS = ("day before vote, day after vote", "day after vote, day before vote", "day, day after vote",
               "day 1 before vote, day from 2 after vote", "day 1, day 2 after vote, day from 3")

@st.composite
def doc(draw):
    when = draw(st.sampled_from(["", "when actor.heals > 0", "when round >= 2"]))
    consume = draw(st.sampled_from(["; consume heals on actor", "", "; set heals = 0 on actor"]))
    kinds = draw(st.sampled_from(["from shot", "from shot, hit", ""]))
    text = (f'role doc "Doc" {{ side town  counter heals = 2 }}\n'
            f'ability heal "Heal" {{ by doc  at night  target where target.alive  {draw(_limits(per_game=True))}\n'
            f'  {when}  {draw(st.sampled_from(["", "mandatory", "optional"]))}\n'
            f'  effect save {kinds}{consume} }}\n')
    if draw(st.booleans()):
        text += 'rule saved_note for p: if save(p) and kill(p, shot) then announce "saved" at night\n'
    if draw(st.booleans()):
        text += ('rule lazy_doc for p:\n  if p.role == doc and p.alive and idle(p, heal) >= 1 and not acted(p, heal)\n'
                 '  then unspecified "what happens to an idle doctor" at night\n')
    if draw(st.booleans()):
        text += 'rule any_heal: if used(heal) then announce "a heal was used" at night\n'
    return "doc", text


SEER_TARGETS = ("target.alive and target != actor", "target.alive and target.role != citizen and target != actor",
                "target.alive and target.side == town and not target.plain and target != actor")


@st.composite
def seer(draw):
    at = draw(st.sampled_from(["night", "night from 2", "day before vote", "night, day after vote",
                               "night, day before vote, day after vote"]))
    learn = draw(st.sampled_from(["inquire", "learn target.side", "inquire; learn target.role"]))
    return "seer", (f'role seer "Seer" {{ side town }}\n'
                    f'ability look "Look" {{ by seer  at {at}  target where {draw(st.sampled_from(SEER_TARGETS))}\n'
                    f'  {draw(_limits())}  effect {learn} }}\n')


@st.composite
def jammer(draw):
    text = ('role jammer "Jammer" { side town }\n'
            f'ability jam "Jam" {{ by jammer  at night  target where {draw(st.sampled_from(SEER_TARGETS))}  '
            f'{draw(_limits(blocked=False))}  effect block }}\n')
    if draw(st.booleans()):
        text += ('rule jammed_flee "whoever the Jammer picks runs away" for q:\n'
                 '  if targeted(q, jam) and q.role == citizen then leave fright on q\n')
    if draw(st.booleans()):
        text += 'rule jam_note for p: if block(p) and blocked(p) then announce "jammed" at night\n'
    if draw(st.booleans()):
        text += 'rule jam_attr for p: if p.blocked and p.role == boss then mark in marked on p at night\n'
    return "jammer", text


@st.composite
def guard(draw):
    what = draw(st.sampled_from(["block", "shot", "shot, hit"]))
    text = ('role guard "Guard" { side town }\n'
            f'ability shield "Shield" {{ by guard  at night  target where target.alive  '
            f'{draw(_limits(blocked=what != "block"))}\n'
            f'  effect protect from {what} }}\n')
    if "shot" in what:
        text += 'rule guarded for p: if protect(p, shot) then announce "guarded" at night\n'
    return "guard", text


@st.composite
def hunter(draw):
    trigger = draw(st.sampled_from(["leave by vote next night", "kill by shot immediately",
                                    "leave immediately", "leave by vote next night",
                                    "kill immediately"]))
    text = ('role hunter "Hunter" { side town }\n'
            f'ability last_shot "Last shot" {{ by hunter  on {trigger}\n'
            f'  target where target.alive and target != actor  {draw(st.sampled_from(["", "mandatory"]))}\n'
            f'  effect kill hit }}\n')
    if draw(st.booleans()):
        text += ('rule hunter_marks for p, q: if attacked_by(p, q) and p.role == hunter\n'
                 '  then mark in marked on q at night\n')
    return "hunter", text


MANDATORY_VOTED = "mandatory"  # known split: `avoid_known` drops it (see `scenario_texts`)


@st.composite
def avenger(draw):
    """Like the Hunter, always on any exit, at once (by night and by the vote)."""
    return "avenger", ('role avenger "Avenger" { side town }\n'
                       'ability avenge "Avenge" { by avenger  on leave immediately\n'
                       f'  target where {draw(st.sampled_from(["target.alive and target != actor", "target.alive"]))}\n'
                       '  effect kill hit }\n')


@st.composite
def martyr(draw):
    return "martyr", ('role martyr "Martyr" { side town }\n'
                      'ability curse "Curse" { by martyr  on voted immediately\n'
                      f'  target where target.alive and target != actor  {draw(st.sampled_from(["", MANDATORY_VOTED]))}\n'
                      '  effect kill hit }\n')


@st.composite
def preacher(draw):
    give = draw(st.sampled_from(["give gun", "give gun(live)", "give gun(blank)", "give gun"]))
    choose = "choose variant of gun as load" if give == "give gun" else ""
    filt = draw(st.sampled_from(["target.alive and not chosen(target, shot)", "target.alive"]))
    text = ('role preacher "Preacher" { side town }\n'
            f'ability bless "Bless" {{ by preacher  at night  target where {filt}  {choose}\n'
            f'  {draw(_limits())}  effect mark in marked; {give} }}\n'
            'ability fire "Fire" { by holder of gun  at day before vote  target where target.alive\n'
            '  effect if item_variant(actor, gun) == live then kill hit else nothing; lose gun on actor;'
            ' unmark in marked on actor }\n')
    if draw(st.booleans()):
        text += ('rule marked_resist "the marked resist the shot" for p:\n'
                 '  if kill(p, shot) and p in marked then stay on p overrides shot\n')
    return "preacher", text


@st.composite
def medium(draw):
    at = draw(st.sampled_from(["night", "night from 2"]))
    return "medium", ('role medium "Medium" { side town }\n'
                      f'ability raise "Raise" {{ by medium  at {at}  target where not target.alive  '
                      f'{draw(_limits())}  effect revive{draw(st.sampled_from(["; unmark in marked", ""]))} }}\n')


@st.composite
def twin(draw):
    text = ('role twin "Twin" { side town }\n'
            'ability bond "Bond" { by twin  at night  target where target.alive and target != actor\n'
            f'  {draw(st.sampled_from(["limit 1 per game", ""]))}  effect link; mark in picked }}\n')
    if draw(st.booleans()):
        text += 'rule twin_grief for t: if t.role == twin and t.alive and leaves(linked(t)) then leave grief on t\n'
    return "twin", text


@st.composite
def exposer(draw):
    at = draw(st.sampled_from(["day before vote", "day after vote"] + list(DAY_MOMENTS)))
    what = draw(st.sampled_from(["side", "role"]))
    return "exposer", ('role exposer "Exposer" { side town }\n'
                       f'ability expose "Expose" {{ by exposer  at {at}  target where target.alive\n'
                       f'  {draw(st.sampled_from(["limit 1 per game", "", "limit no repeat"]))}  '
                       f'effect reveal {what}; announce "exposed" }}\n')


@st.composite
def priest(draw):
    return "priest", ('role priest "Priest" { side town }\n'
                      'ability absolve "Absolve" { by priest  at night  target where target.alive  '
                      f'{draw(st.sampled_from(["limit no repeat", ""]))}  effect unblock }}\n')


@st.composite
def witch(draw):
    return "witch", ('role witch "Witch" { side town }\n'
                     'ability hex "Hex" { by witch  at night  target where target.alive and target != actor\n'
                     f'  choose one of hex_kill, hex_save as spell  {draw(st.sampled_from(["limit 1 per game", ""]))}\n'
                     '  effect if spell == hex_kill then kill hit else save }\n')


@st.composite
def oracle(draw):
    return "oracle", ('role oracle "Oracle" { side town }\n'
                      'ability guess "Guess" { by oracle  at night  target where target.alive and target != actor\n'
                      f'  choose role as g  {draw(st.sampled_from(["limit no repeat", ""]))}\n'
                      '  effect if g == target.role then { learn target.side; set tally = tally + 2 } else nothing }\n')


@st.composite
def poisoner(draw):
    unit = draw(st.sampled_from(["night", "day"]))
    count = draw(st.sampled_from([1, 1, 2]))
    return "poisoner", ('role poisoner "Poisoner" { side mafia }\n'
                        'ability poison "Poison" { by poisoner  at night  target where target.alive and target != actor\n'
                        f'  {draw(st.sampled_from(["limit 1 per game", ""]))}  effect after {count} {unit}: kill hit }}\n')


@st.composite
def brander(draw):
    return "brander", ('role brander "Brander" { side town }\n'
                       'ability brand "Brand" { by brander  at night  target where target.alive\n'
                       f'  effect set tally = tally + 1; if tally >= {draw(st.integers(1, 2))} then announce "branded" }}\n')


@st.composite
def judge(draw):
    # `cancel`: a blocking step that takes away the target's uses of the mafia's shot (of the
    # team's, when the target is its shooter), in every order with the other blocking steps.
    text = ('role judge "Judge" { side town }\n'
            'ability veto "Veto" { by judge  at night  target where target.alive and target != actor\n'
            f'  {draw(st.sampled_from(["limit 1 per game", "limit no repeat", ""]))}  effect cancel shot }}\n')
    if draw(st.booleans()):  # a cancel falling due: it acts before the next night's first step
        text += ('ability injunction "Injunction" { by judge  at night  target where target.alive and target != actor\n'
                 '  limit 1 per game  effect after 1 night: cancel shot }\n')
    return "judge", text


@st.composite
def arbiter(draw):
    # `win SIDE` as an effect: the Arbiter who names the Boss ends the game for the town.
    text = ('role arbiter "Arbiter" { side town }\n'
            'ability verdict "Verdict" { by arbiter  at night  target where target.alive and target != actor\n'
            '  limit 1 per game  effect if target.role == boss then win town else nothing }\n')
    if draw(st.booleans()):
        text += 'rule last_stand "a verdict with the town down to two is the mafia\'s": ' \
                'if used(verdict) and alive(town) <= 2 then win mafia\n'
    if draw(st.booleans()):  # a blocking step that declares a win
        text = text.replace("effect if target.role == boss", "effect block; if target.role == boss")
    return "arbiter", text


BLOCKS = (doc, seer, jammer, guard, hunter, avenger, martyr, preacher, medium, twin, exposer, priest,
          witch, oracle, poisoner, brander, judge, arbiter)
# The blocks drawn first more often (Hypothesis shrinks towards the front): those whose
# constructs need the most luck to take part (a blocked use, a trigger, a delayed effect).
WEIGHTED = (doc, jammer, hunter, avenger, poisoner, doc, jammer, hunter, avenger, poisoner) + BLOCKS


# What `avoid_known` keeps out, one line per split of tests/test_splits_found.py.
KNOWN_SPLITS = (
    "conversion to a role with a counter",
    "a win with readings of its own beside an `on leave immediately` ability",
    "`leaves(linked(t))` with nobody linked",
    "a mandatory `on voted immediately` ability",
    "`wins checked after … vote` beside an `on leave immediately` ability",
    "two `set` of one number memory in one night",
)


@st.composite
def scenario_texts(draw, avoid_known: bool = False) -> str:
    n = draw(st.integers(4, 7))
    specials = draw(st.lists(st.sampled_from(WEIGHTED), min_size=1, max_size=min(4, n - 2), unique=True))
    parts = [draw(b()) for b in specials]
    roles = [r for r, _ in parts]
    thug = n >= 6 or draw(st.booleans())
    mafia = ["boss"] + (["thug"] if thug else [])
    if "poisoner" in roles:
        mafia.append("poisoner")
    town_specials = [r for r in roles if r != "poisoner"]
    citizens = n - len(mafia) - len(town_specials)
    if citizens < 1:
        drop = town_specials[citizens - 1:] if citizens < 1 else []
        parts = [p for p in parts if p[0] not in drop]
        town_specials = [r for r in town_specials if r not in drop]
        citizens = n - len(mafia) - len(town_specials)
    out = [HEADER]
    appears = "  appears clean to seer" if "seer" in town_specials and draw(st.booleans()) else ""
    out.append(f'role boss "Boss" {{ side mafia{appears} }}\n')
    recruit = draw(st.booleans())
    grit = "  counter grit = 1" if not (avoid_known and recruit) else ""
    if thug:
        out.append(f'role thug "Thug" {{ side mafia{grit} }}\n')
    out.append('role citizen "Citizen" { side town  plain }\n')
    loner = n >= 5 and citizens >= 2 and draw(st.integers(0, 3)) == 0
    if loner:
        out.append('side loner "Loner" independent\nrole jester "Jester" { side loner }\n')
        citizens -= 1
    for role, text in parts:
        # Pairs whose interplay needs luck, made likelier: the Jammer after the Doc (a
        # blocked use against a limit), the Seer after the mafia (an appearance).
        if role == "jammer" and "doc" in town_specials and draw(st.booleans()):
            text = text.replace("target where target.alive", "target where target.role == doc and target.alive", 1)
        if role == "seer" and appears and draw(st.booleans()):
            text = text.replace("target where target.alive", "target where target.side == mafia and target.alive", 1)
        out.append(text)
    entries = mafia + town_specials + (["jester"] if loner else []) + [f"citizen * {citizens}"]
    out.append(f"composition {n} {{ {', '.join(entries)} }}\n")

    # The mafia's team: its leader (or none), its options.
    options = "shot, recruit" if recruit else "shot"
    leader = draw(st.sampled_from(["", "leader boss", "leader boss then any"]))
    out.append(f"team mafia {{ members side mafia  one of {options} per night  {leader} }}\n")
    shot_filter = draw(st.sampled_from(["target.alive", "target.alive and target.side != mafia"]))
    out.append(f'ability shot "Shot" {{ by team mafia  at night  target where {shot_filter}\n'
               f'  {draw(st.sampled_from(["", "mandatory"]))}  effect kill shot }}\n')
    if recruit:
        out.append('ability recruit "Recruit" { by boss  for team mafia  at night  target where target.plain\n'
                   '  limit 1 per game  effect convert to thug }\n')
        if not thug:
            out.append(f'role thug "Thug" {{ side mafia{grit} }}\n')
    # The phases: an intro night or not, readings of when wins are checked.
    intro = draw(st.booleans())
    start = draw(st.sampled_from(["night", "day"]))
    readings = draw(st.sampled_from(["wins checked after day, night",
                                     "wins checked after day, night or after deaths, day",
                                     "wins checked after night, vote"]))
    if avoid_known and "on leave immediately" in "".join(out) and "vote" in readings:
        readings = "wins checked after day, night"
    starts = f"start intro_night, {start}" if intro else f"start {start}"
    out.append(f"phases {{ {starts}  cycle {'day, night' if start == 'day' else 'night, day'}  {readings} }}\n")
    if intro:
        out.append('ability meet "Meet" { by moderator  at intro_night  targets 1  mandatory\n'
                   '  effect mark in marked on targets; announce "met" }\n')
    if draw(st.booleans()):
        out.append('ability dawn "Dawn" { by moderator  at day  mandatory  effect announce "dawn" }\n')
    # Cards, drawn by the player voted out.
    if draw(st.booleans()):
        out.append('rule last_card "a player voted out draws a card" for p: if voted(p) then draw card on p at day\n')
        out.append('card revenge_card "Revenge" { by drawer  at night  target where target.alive  effect kill hit }\n')
        out.append('card reveal_card "Reveal" { by drawer  at day after vote  effect reveal side on actor; '
                   'unspecified "what else the card does" }\n')
    # Rules on the night's shot: `unless`, `overrides`, `round`.
    if thug and draw(st.booleans()):
        grit_rule = (" and p.grit > 0 then stay on p; consume grit on p" if grit else " then stay on p")
        out.append('rule tough "the Thug survives one shot" for p:\n'
                   f'  if kill(p, shot) and p.role == thug{grit_rule}\n'
                   '  unless blocked(p) overrides shot\n')
    if draw(st.booleans()):
        out.append('rule second_life "the specials survive the first night\'s shot" for p:\n'
                   '  if kill(p, shot) and p.side == town and not p.plain then stay on p\n'
                   '  unless round >= 2 overrides shot\n')
    if draw(st.booleans()):
        out.append('rule first_night_omen for p: if kill(p, shot) and round == 1 then leave omen on p\n')
    if draw(st.booleans()):
        out.append('rule boss_gone for p: if leaves(p) and p.role == boss then announce "the boss is gone"\n')
    if draw(st.booleans()):
        out.append('rule vote_note for p: if voted(p) and p.side == mafia then announce "a mafia member is voted out" at day\n')
    # The day.
    vote = draw(st.sampled_from(["majority", "quorum by alive { 6..7: 3, 4..5: 2, else: 1 }",
                                 "quorum by alive { 4..7: 2, else: 1 }"]))
    tie = draw(st.sampled_from(["no_exit", "no_exit", "random", "all_leave", "undecided"]))
    required = draw(st.integers(0, 3)) == 0
    clauses = [f"vote {vote}", f"tie {tie}"]
    if draw(st.booleans()):
        clauses.append("exits 1")
    if required:
        clauses.append("exit required")
    cand = draw(st.sampled_from(["", "candidates where candidate.alive and not candidate.revealed",
                                 "candidates on day 1 where candidate not in marked"]))
    if cand:
        clauses.append(cand)
    out.append("day { " + "  ".join(clauses) + " }\n")
    # Wins.
    checked = draw(st.sampled_from(["", "", " checked after day, night or after vote"]))
    if avoid_known and "on leave immediately" in "".join(out):
        checked = ""
    out.append("win town when alive(mafia) == 0\n")
    out.append(f"win mafia when alive(mafia) >= alive(town){checked}\n")
    if loner:
        out.append("win loner when alive(mafia) >= alive(town)\n")
        out.append(draw(st.sampled_from(["priority loner > mafia\n", "priority mafia > loner\n"])))
    # Rules after the deaths in rounds: the first reads what the one declared after it writes.
    if draw(st.booleans()):
        out.append('memory echoed: set of player\n'
                   'rule echo "a marked player is echoed" for p: if p in marked then mark in echoed on p\n'
                   'rule shot_marked "a shot player is marked" for p: if kill(p, shot) then mark in marked on p\n')
    text = "".join(out)
    if avoid_known:
        text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("rule twin_grief"))
        text = text.replace("; set tally = tally + 2", "")
        text = re.sub(r"(ability curse [^}]*?)mandatory", r"\1", text)
    return text


def load_text(text: str):
    """The scenario of a spec text, or None when the resolver rejects it."""
    fd, path = tempfile.mkstemp(suffix=".mafia")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            return load(path)
        except SpecError:
            return None
    finally:
        os.unlink(path)


# ------------------------------------------------------------------ a differential run

class Run:
    """What a run of generated scenarios found: how many loaded, phases compared, the
    constructs each compared phase exercised, and the disagreements."""

    def __init__(self, avoid_known: bool = False):
        from collections import Counter

        self.avoid_known = avoid_known  # skip the choices of known splits (counted)
        self.stats = Counter()
        self.coverage = Counter()
        self.splits: list[tuple] = []  # (detail, text, phase name, uses, state, phase)

    def table(self) -> str:
        from mafiacheck.crosscheck.differential import CONSTRUCTS, NOT_COMPARABLE

        s = self.stats
        lines = [f"differential coverage: {s['specs']} specs generated, {s['loaded']} loaded "
                 f"({s['rejected']} rejected by the resolver, {s['unsupported']} phases on specs "
                 f"the encoding refuses), {s['phases']} phases, {s['compared']} compared "
                 f"({s['illegal']} illegal on both sides), {s['skipped']} skipped as known splits, "
                 f"{len(self.splits)} disagreements"]
        width = max(len(c) for c in CONSTRUCTS)
        for c in CONSTRUCTS:
            n = self.coverage[c]
            lines.append(f"  {c:<{width}}  {n:>6}{'' if n else '   NOT COVERED'}")
        for c, why in NOT_COMPARABLE.items():
            lines.append(f"  {c:<{width}}       -   not comparable: {why}")
        return "\n".join(lines)

    def missing(self) -> list[str]:
        from mafiacheck.crosscheck.differential import CONSTRUCTS

        return [c for c in CONSTRUCTS if not self.coverage[c]]


def play_and_compare(run: Run, text: str, seed: int, length: int = 6) -> None:
    """One generated scenario: a random walk through the interpreter, every phase of it
    compared, and two phases again with fresh random choices (often illegal).

    Played in a forked child process: building an encoding (`Game`) keeps some 8 MB that
    no collection frees, so a long run in one process would run out of memory."""
    import pickle

    if not hasattr(os, "fork"):
        return _play_and_compare(run, text, seed, length)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: play, send back what it found, and leave at once
        os.close(read)
        code = 0
        try:
            part = Run(run.avoid_known)
            _play_and_compare(part, text, seed, length)
            data = pickle.dumps((part.stats, part.coverage, part.splits))
        except BaseException as exc:  # noqa: BLE001 (reported by the parent)
            data = pickle.dumps(exc)
            code = 1
        with os.fdopen(write, "wb") as f:
            f.write(data)
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    found = pickle.loads(data)
    if isinstance(found, BaseException):
        raise found
    stats, coverage, splits = found
    run.stats.update(stats)
    run.coverage.update(coverage)
    run.splits.extend(splits)


def _known_split_choices(scenario, uses) -> bool:
    """Choices that meet a split already kept in tests/test_splits_found.py, whatever the
    spec. (None now: the tied votes beside `candidates` or a use triggered `immediately`
    agree since the encoding has the tied players for every tie rule.)"""
    return False


def _play_and_compare(run: Run, text: str, seed: int, length: int) -> None:
    import random

    from mafiacheck.crosscheck.differential import compare, random_choices, random_walk

    run.stats["specs"] += 1
    scenario = load_text(text)
    if scenario is None:
        run.stats["rejected"] += 1
        return
    run.stats["loaded"] += 1
    rng = random.Random(seed)
    walk = random_walk(scenario, scenario.compositions[0].seats(), rng, length)
    again = [(s, p, random_choices(scenario, s, p, rng)) for s, p, _ in rng.sample(walk, min(2, len(walk)))]
    for state, phase, uses in walk + again:
        if run.avoid_known and _known_split_choices(scenario, uses):
            run.stats["skipped"] += 1  # (none left: kept for the next split found)
            continue
        verdict = compare(scenario, state, phase, uses)
        run.stats["phases"] += 1
        if verdict.detail.startswith("the encoding does not support"):
            run.stats["unsupported"] += 1
        if verdict.covered:
            run.stats["compared"] += 1
            run.stats["illegal"] += "illegal choice" in verdict.covered
        run.coverage.update(verdict.covered)
        if not verdict.agree:
            run.splits.append((verdict.detail, text, str(phase), uses, state, phase))
