"""What a live panel remembers between control moves."""

from __future__ import annotations


class ResultCache(dict):
    """Simulation results of a panel keyed by (policy, settings), so that toggling a policy or
    returning to earlier settings is instant; beyond ``limit`` entries the oldest are forgotten."""

    def __init__(self, limit: int = 60):
        super().__init__()
        self.limit = limit

    def __contains__(self, key) -> bool:
        """A first answer (fewer runs or a shorter horizon, see :mod:`.budget`) is shown but
        does not count as computed: the full result replaces it."""
        if not super().__contains__(key):
            return False
        notes = getattr(self[key], "notes", None)
        return not (isinstance(notes, dict) and "first_answer" in notes)

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        while len(self) > self.limit:
            del self[next(iter(self))]
