"""The guide's five-week module: each week's graded homework, by exercise number.

Read by ``python3 tasks.py assignment week1`` (:mod:`delaylab.exercises.assignment`) and by the
dashboards' default solutions, ``lecture``, which show every exercise's solution but these
(:mod:`delaylab.exercises.solutions`). docs/instructor.md, "A five-week module", states the same
table; a test keeps the two equal.
"""

WEEKS = {"week1": ("1.2", "1.4", "1.5"), "week2": ("2.2", "2.3", "2.5"), "week3": ("3.2", "3.3", "3.4"),
         "week4": ("4.2", "4.3"), "week5": ("5.1", "5.2", "5.3")}
