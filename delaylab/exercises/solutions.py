"""Which exercises' solutions a notebook may show: the student's setting, and the lecturer's.

``DELAYLAB_SOLUTIONS`` in the kernel's environment decides, per exercise, whether the hint
button's last step ("show the solution"), an explanation's model answer, ``ex.solution`` and
``ex.solution_code`` give the solution:

* unset, ``on`` or ``all``: every solution (a student working alone in JupyterLab);
* ``off`` or ``none``: none (a student's server while homework is open: on a JupyterHub,
  ``c.Spawner.environment = {"DELAYLAB_SOLUTIONS": "off"}``);
* ``lecture``: the solutions of the exercises done in the lecture, none of a week's graded
  homework (the guide's module table, :data:`delaylab.exercises.weeks.WEEKS`);
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

from .weeks import WEEKS

ENV = "DELAYLAB_SOLUTIONS"
#: the words the setting may be, besides a list of exercises
WORDS = {"": "all", "on": "all", "all": "all", "off": "none", "none": "none", "lecture": "lecture"}
#: the dashboards' server's default (DashboardServer.solutions)
LECTURE = "lecture"

# ``known`` below: every exercise by its id and by its number ({"1.1": "01.n-tilde",
# "01.n-tilde": "01.n-tilde", …}; :func:`delaylab.exercises._core.known_exercises`): this module
# sits below the registry and does not import it.


def _order(number: str) -> tuple:
    return tuple(int(x) for x in number.split(".")) if number.replace(".", "").isdigit() else (99, number)


def homework(known: dict) -> frozenset:
    """The ids of the exercises some week of the module grades."""
    return frozenset(known[n] for week in WEEKS.values() for n in week if n in known)


def check(value: str, known: dict) -> str:
    """``value`` as a setting, normalised (``all``, ``none``, ``lecture`` or a list of ids), or a
    ValueError naming it and the valid choices."""
    text = str(value).strip().lower()
    if text in WORDS:
        return WORDS[text]
    out, bad = [], []
    for part in filter(None, (p.strip() for p in text.split(","))):
        (out if part in known else bad).append(known.get(part, part))
    if bad or not out:
        numbers = sorted((k for k in known if k not in known.values()), key=_order)
        raise ValueError(f"solutions={value!r}: not a setting. Give all, none, lecture (the exercises of the "
                         f"lectures, not the graded homework), or a list of exercises such as 1.1,1.3 "
                         f"(unknown: {', '.join(bad) or 'an empty list'}; the exercises are {', '.join(numbers)})")
    return ",".join(dict.fromkeys(out))


def setting(known: dict) -> str:
    """The kernel's setting, normalised; ``none`` if it is not one (:func:`misread` says which)."""
    try:
        return check(os.environ.get(ENV, ""), known)
    except ValueError:
        return "none"


def misread(known: dict) -> str:
    """The value of ``DELAYLAB_SOLUTIONS`` when it is not a setting (then no solution is shown), else ''."""
    value = os.environ.get(ENV, "")
    try:
        check(value, known)
        return ""
    except ValueError:
        return value


def shown(eid: str | None, known: dict) -> bool:
    """Whether the setting shows the solution of exercise ``eid`` (None: of every exercise)."""
    value = setting(known)
    if value in ("all", "none"):
        return value == "all"
    if eid is None:
        return False
    if value == LECTURE:
        return eid not in homework(known)
    return eid in value.split(",")


def why_not(eid: str | None, known: dict) -> str:
    """What the student reads instead of a solution the setting withholds."""
    bad = misread(known)
    if bad:
        return (f"Solutions are off here: {ENV}={bad!r} is not a setting this workbook knows "
                "(all, none, lecture or a list of exercises), so none is shown.")
    if setting(known) == LECTURE:
        return ("This exercise is graded homework in the course's module, so its solution is not shown "
                "here. Ask your lecturer after the deadline.")
    return "Solutions are off here for this exercise. Ask your lecturer."
