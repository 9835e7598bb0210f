"""mafiacheck: formal rule checking for Mafia scenarios."""

__version__ = "0.1.0"
