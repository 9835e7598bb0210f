"""Where the two implementations of the game meet: the encoding's games replayed by the
interpreter (witnesses), open questions answered by the encoding and shown through the
interpreter, and the differential comparison of the two on one phase."""
