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


def test_a_required_exit_binds_only_while_the_game_runs(tmp_path):
    """`exit required` demands a vote exit on the days that are played: a game won before the
    bound has no further days to demand it of. (It used to forbid every game shorter than the
    bound, so a win reachable on day 1 was answered "no" within 3 rounds.)"""
    spec = tmp_path / "tiny.mafia"
    spec.write_text(REQUIRED, encoding="utf-8")
    scenario = load(str(spec))
    source, queries = load_queries("query a { can winner town within 1 }\n"
                                   "query b { can winner town within 3 }\n"
                                   "query c { can winner mafia within 3 }\n")
    verdicts = [answer.verdict for answer, *_ in answer_all(scenario, source, queries)]
    assert verdicts == ["yes", "yes", "yes"]
