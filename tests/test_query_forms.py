"""The `expect` forms of a query file, asked through `mafiacheck ask` as a moderator asks them:
a player's role, side and counter after the phases, exits in a given phase and a second exit,
reveals and announcements, what a player learns and that he learns nothing."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JACK = "specs/godfather_jack.mafia"

# Kane is shot on night 1, Constantine returns him on night 2 and the town votes him out on
# day 3: two exits of one player, in two phases (G2-R24).
TWO_EXITS = """
  night 1 { shot on kane  life_glass on citizen@3 }
  day 2 { vote none }
  night 2 { revive on kane  life_glass on citizen@3 }
  day 3 { vote kane }
"""
# Kane's inquiry finds Saul, of the mafia: his side is revealed a day later (G2-R22).
REVEAL = """
  night 1 { kane_inquiry on saul  life_glass on citizen@3 }
  day 2 { vote none }
"""


def ask(tmp_path, spec, text, *extra):
    path = tmp_path / "q.query"
    path.write_text(text, encoding="utf-8")
    exe = shutil.which("mafiacheck")
    cmd = [exe] if exe else [sys.executable, "-m", "mafiacheck"]
    r = subprocess.run([*cmd, "ask", spec, str(path), *extra], cwd=ROOT, capture_output=True,
                       text=True, encoding="utf-8")
    return r, str(path)


def failed(r) -> list[str]:
    return [line for line in r.stdout.splitlines() if line.startswith("EXPECTATION FAILED")]


def test_exits_in_a_phase_and_a_second_exit(tmp_path):
    r, _ = ask(tmp_path, JACK, "query q {" + TWO_EXITS + """
  expect leaves kane by shot in night 1
  expect leaves kane by vote in day 3
  expect leaves kane by vote
  expect stays kane in night 2
  expect exits kane = 2
}""")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_wrong_phase_or_count_of_exits_fails(tmp_path):
    r, path = ask(tmp_path, JACK, "query q {" + TWO_EXITS + """
  expect leaves kane by vote in night 1
  expect stays kane in day 3
  expect exits kane = 1
}""")
    assert r.returncode == 1
    lines = failed(r)
    assert [line.split(": query")[0] for line in lines] == [
        f"EXPECTATION FAILED: {path}:7:10", f"EXPECTATION FAILED: {path}:8:10",
        f"EXPECTATION FAILED: {path}:9:10"]
    # What did happen is named with its phase, so the moderator sees the second exit.
    assert "leaves by vote in day 3" in lines[2]


def test_role_side_and_counter_after_the_phases(tmp_path):
    r, _ = ask(tmp_path, JACK, """query q {
  state { counter godfather immunity = 1 }
  night 1 { leon_shot on godfather  life_glass on citizen@3 }
  expect stays godfather
  expect counter godfather immunity = 0
  expect role godfather = godfather
  expect side godfather = mafia
  expect side leon = town
}""")
    assert r.returncode == 0, r.stdout + r.stderr
    r, _ = ask(tmp_path, JACK, """query q {
  night 1 { leon_shot on godfather  life_glass on citizen@3 }
  expect counter godfather immunity = 1
  expect side godfather = town
  expect role godfather = citizen
}""")
    lines = failed(r)
    assert r.returncode == 1 and len(lines) == 3
    assert "counter godfather immunity is 0" in lines[0]
    assert "side godfather is mafia" in lines[1] and "role godfather is godfather" in lines[2]


def test_a_side_set_in_the_state_is_the_side_played(tmp_path):
    # `state { side P = SIDE }`: Kane, put on the mafia's side, is what Kane's own side wins
    # by; here only seen as his side at the end, and as the side a reveal shows.
    r, _ = ask(tmp_path, JACK, """query q {
  state { side saul = town }
  night 1 { kane_inquiry on saul  life_glass on citizen@3 }
  day 2 { vote none }
  expect side saul = town
  expect learns kane nothing
  expect no announcement
}""")
    assert r.returncode == 0, r.stdout + r.stderr


def test_reveals_and_announcements(tmp_path):
    r, _ = ask(tmp_path, JACK, "query q {" + REVEAL + """
  expect reveals saul
  expect reveals saul as mafia
}""")
    assert r.returncode == 0, r.stdout + r.stderr
    r, _ = ask(tmp_path, JACK, "query q {" + REVEAL + """
  expect reveals saul as town
  expect reveals godfather
  expect no announcement
}""")
    lines = failed(r)
    assert r.returncode == 1 and len(lines) == 3
    assert "announced: @2 is" in lines[2]


def test_announces_the_rulebook_words(tmp_path):
    # Commando: a real bullet is announced as «جنگی», a dummy one as «مشقی», and the real
    # one reveals the side of the player it takes (CO-R26).
    r, _ = ask(tmp_path, "specs/commando.mafia", """query real {
  from day 1
  state { holds @8 gun(real) }
  day 1 { fire_gun by @8 on @3  vote none }
  expect announces "جنگی"
  expect reveals @3 as mafia
  expect leaves @3 by gun
}
query dummy {
  from day 1
  state { holds @8 gun(dummy) }
  day 1 { fire_gun by @8 on @3  vote none }
  expect announces "جنگی"
  expect reveals @3
}""")
    lines = failed(r)
    assert r.returncode == 1 and len(lines) == 2 and all("query dummy" in line for line in lines)
    assert "announced: مشقی" in lines[0]


def test_learns_about_and_learns_nothing(tmp_path):
    r, _ = ask(tmp_path, "specs/gangster.mafia", """query q {
  night 1 { inquiry on godfather }
  expect learns detective negative about godfather
  expect learns doctor nothing
}
query r {
  night 1 { inquiry on godfather }
  expect learns detective nothing
  expect learns detective negative about doctor
}""")
    lines = failed(r)
    assert r.returncode == 1 and len(lines) == 2 and all("query r" in line for line in lines)


def test_unknown_names_in_the_new_forms_are_located_input_errors(tmp_path):
    r, path = ask(tmp_path, JACK, """query q {
  night 1 { shot on kane  life_glass on citizen@3 }
  expect role kane = jak
  expect side kane = towm
  expect counter kane vets = 1
  expect leaves kane in night 2
  expect reveals saul as nobody
  expect learns kane x about nobody
}""")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    for line, column, message in [(3, 22, "unknown role 'jak'"), (4, 22, "unknown side 'towm'"),
                                  (5, 23, "unknown counter 'vets'"),
                                  (6, 25, "the query plays no phase 'night 2'; it plays: night 1"),
                                  (7, 26, "'nobody' is neither a role nor a side"),
                                  (8, 30, "unknown role 'nobody'")]:
        assert f"{path}:{line}:{column}: error: {message}" in r.stderr, r.stderr


def test_a_phase_played_twice_must_be_named_with_its_number(tmp_path):
    r, path = ask(tmp_path, JACK, "query q {" + TWO_EXITS + "  expect stays kane in night\n}")
    assert r.returncode == 2
    assert f"{path}:6:24: error: the query plays more than one night: say which, as " \
           "`in night 1` or `in night 2`" in r.stderr
