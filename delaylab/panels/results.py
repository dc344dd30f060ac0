"""What a live panel remembers between control moves."""

from __future__ import annotations


class ResultCache(dict):
    """Simulation results of a panel keyed by (policy, settings), so that toggling a policy or
    returning to earlier settings is instant; beyond ``limit`` entries the least recently asked
    for are forgotten (asking ``key in cache`` counts: a panel asks for every curve it is about to
    draw, so storing the missing ones never forgets one it is drawing)."""

    def __init__(self, limit: int = 60):
        super().__init__()
        self.limit = limit

    def __contains__(self, key) -> bool:
        """A first answer (fewer runs or a shorter horizon, see :mod:`.budget`) is shown but
        does not count as computed: the full result replaces it."""
        if not super().__contains__(key):
            return False
        super().__setitem__(key, super().pop(key))  # the most recently asked for
        notes = getattr(self[key], "notes", None)
        return not (isinstance(notes, dict) and "first_answer" in notes)

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        while len(self) > self.limit:
            del self[next(iter(self))]
