"""Which exercises' solutions a notebook may show: the student's setting, and the lecturer's.

``DELAYLAB_SOLUTIONS`` in the kernel's environment decides, per exercise, whether the hint
button's last step ("show the solution"), an explanation's model answer, ``ex.solution`` and
``ex.solution_code`` give the solution:

* unset, ``on`` or ``all``: every solution (a student working alone in JupyterLab);
* ``off`` or ``none``: none (a student's server while homework is open: on a JupyterHub,
  ``c.Spawner.environment = {"DELAYLAB_SOLUTIONS": "off"}``);
* ``lecture``: the solutions of the exercises done in the lecture, none of a week's graded
  homework (the guide's module table, :data:`delaylab.exercises.assignment.WEEKS`);
* a list of exercises, by number or id (``1.1,1.3,01.window``): those only.

Anything else shows no solution (and says which value it did not understand). A graded release
(``ex.start(graded=True)``) shows none, whatever the setting.

**The lecturer's switch.** The dashboards' server (``python3 tasks.py dashboard``, which also
serves the live slides) sets this variable for its own kernels from its option ``--solutions``
(``DashboardServer.solutions``, default ``lecture``), whatever the variable says in the server's
own environment: the projected slides can show Exercise 1.1's worked answer while the graded
Exercise 1.4's stays hidden, and a hub that switches the students' solutions off does not switch
off the lecture's. Voila inside a student's own server (Binder, a hub) keeps the student's setting.
"""

from __future__ import annotations

import os
import re

ENV = "DELAYLAB_SOLUTIONS"
#: the words the setting may be, besides a list of exercises
WORDS = {"": "all", "on": "all", "all": "all", "off": "none", "none": "none", "lecture": "lecture"}
#: the dashboards' server's default (DashboardServer.solutions)
LECTURE = "lecture"


def _number(eid: str) -> str:
    from . import heading

    m = re.match(r"✎ Exercise (\d+\.\d+) ", heading(eid))
    return m.group(1) if m else eid


def _ids() -> dict:
    """Every exercise by its id and by its number."""
    from ._core import ids

    out = {}
    for eid in ids():
        out[eid] = eid
        out[_number(eid)] = eid
    return out


def homework() -> frozenset:
    """The ids of the exercises some week of the module grades."""
    from .assignment import WEEKS

    known = _ids()
    return frozenset(known[n] for week in WEEKS.values() for n in week if n in known)


def check(value: str) -> str:
    """``value`` as a setting, normalised (``all``, ``none``, ``lecture`` or a list of ids), or a
    ValueError naming it and the valid choices."""
    text = str(value).strip().lower()
    if text in WORDS:
        return WORDS[text]
    known, out, bad = _ids(), [], []
    for part in filter(None, (p.strip() for p in text.split(","))):
        (out if part in known else bad).append(known.get(part, part))
    if bad or not out:
        raise ValueError(f"solutions={value!r}: not a setting. Give all, none, lecture (the exercises of the "
                         f"lectures, not the graded homework), or a list of exercises such as 1.1,1.3 "
                         f"(unknown: {', '.join(bad) or 'an empty list'}; the exercises are "
                         f"{', '.join(sorted({_number(e) for e in known.values()}, key=lambda n: tuple(map(int, n.split('.')))))})")
    return ",".join(dict.fromkeys(out))


def setting() -> str:
    """The kernel's setting, normalised; ``none`` (with :func:`misread` set) if it is not one."""
    value = os.environ.get(ENV, "")
    try:
        return check(value)
    except ValueError:
        return "none"


def misread() -> str:
    """The value of ``DELAYLAB_SOLUTIONS`` when it is not a setting (then no solution is shown), else ''."""
    value = os.environ.get(ENV, "")
    try:
        check(value)
        return ""
    except ValueError:
        return value


def shown(eid: str | None = None) -> bool:
    """Whether the setting shows the solution of exercise ``eid`` (None: of every exercise)."""
    value = setting()
    if value in ("all", "none"):
        return value == "all"
    if eid is None:
        return False
    if value == "lecture":
        return eid not in homework()
    return eid in value.split(",")


def why_not(eid: str | None = None) -> str:
    """What the student reads instead of a solution the setting withholds."""
    bad = misread()
    if bad:
        return (f"Solutions are off here: {ENV}={bad!r} is not a setting this workbook knows "
                "(all, none, lecture or a list of exercises), so none is shown.")
    if setting() == "lecture":
        return ("This exercise is graded homework in the course's module, so its solution is not shown "
                "here. Ask your lecturer after the deadline.")
    return "Solutions are switched off here for this exercise. Ask your lecturer."
