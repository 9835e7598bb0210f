"""The Z3 encoding of a scenario: games of bounded length as one formula over choices."""
