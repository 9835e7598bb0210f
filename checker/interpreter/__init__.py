"""The reference interpreter: a scenario's rules played on concrete games.

Written to be read against the rulebook. It never picks where the spec leaves a choice
open: every resolution order the spec allows is tried, and every distinct outcome returned.
"""
