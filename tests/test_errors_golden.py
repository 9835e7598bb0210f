"""Every bad input under tests/bad/ produces exactly its recorded message, caret included."""

import pytest

import golden


@pytest.mark.parametrize("case", golden.cases(), ids=lambda p: p.stem)
def test_bad_input_message(case):
    expected = golden.expected_path(case).read_text(encoding="utf-8")
    assert golden.render(case) == expected


def test_there_are_enough_bad_inputs():
    assert len(golden.cases()) >= 15
