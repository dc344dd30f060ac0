"""How a live panel's status line reads."""

from __future__ import annotations


def status_line(*facts, race_line: str = "") -> str:
    """The HTML of a status line: the facts (non-empty ones) joined by " · ", then the raced
    policy's sentence on a line of its own."""
    text = " · ".join(f for f in facts if f)
    return f"<span style='color:#555'>{text}</span>{race_line}"
