"""Open questions (`can … within K`) through the same path as `mafiacheck ask`."""

from mafiacheck.pipeline import load
from mafiacheck.queries import answer_all
from mafiacheck.query_text import load_queries

REQUIRED = '''scenario tiny "Tiny" { prefix TI }
side town "Town" town
side mafia "Mafia" dark
role boss "Boss" { side mafia }
role citizen "Citizen" { side town  plain }
composition 4 { boss, citizen * 3 }
ability shot { by boss  at night  target where target.alive  effect kill shot }
kind shot "Shot"
phases { start intro_night  cycle day, night  wins checked after day, night }
day { vote majority  tie no_exit  exit required }
win town when alive(mafia) == 0
win mafia when alive(mafia) >= alive(town)
'''


def _answers(tmp_path, queries: str) -> list:
    """The answers to `queries` on the spec REQUIRED, as `mafiacheck ask` gives them."""
    spec = tmp_path / "tiny.mafia"
    spec.write_text(REQUIRED, encoding="utf-8")
    source, parsed = load_queries(queries)
    return [answer for answer, *_ in answer_all(load(str(spec)), source, parsed)]


def test_a_required_exit_binds_only_while_the_game_runs(tmp_path):
    """`exit required` demands a vote exit on the days that are played: a game won before the
    bound has no further days to demand it of. (It used to forbid every game shorter than the
    bound, so a win reachable on day 1 was answered "no" within 3 rounds.)"""
    answers = _answers(tmp_path, "query a { can winner town within 1 }\n"
                                 "query b { can winner town within 3 }\n"
                                 "query c { can winner mafia within 3 }\n")
    verdicts = [answer.verdict for answer in answers]
    assert verdicts == ["yes", "yes", "yes"]


def test_winner_none_asks_for_a_game_nobody_has_won(tmp_path):
    """`winner none`: a game that nobody has won at the end of the rounds searched. With one
    exit required a day and a night kill, four players end within two rounds: day 1 and
    night 1 leave two, and the mafia then has parity (or the boss is out)."""
    answers = _answers(tmp_path, "query a { can winner none within 1 }\n"
                                 "query b { can winner none within 2 }\n"
                                 "query c { must winner none within 1 }\n")
    assert [a.verdict for a in answers] == ["yes", "no", "no"]
    # The game shown for `yes` is one the interpreter plays with nobody winning.
    assert answers[0].outcomes and all(r.winner is None for r in answers[0].outcomes[0].reports)


def test_winner_none_is_a_keyword_not_a_side(tmp_path):
    from mafiacheck.ast import OpenQuestion

    _, queries = load_queries("query a { can winner none within 1 }\n")
    question = queries[0].open
    assert isinstance(question, OpenQuestion) and question.goal == "nobody" and question.side is None
