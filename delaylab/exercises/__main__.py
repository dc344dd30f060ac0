"""``python -m delaylab.exercises [student] [--folder DIR]``: each student's progress through the
exercises, from the records beside the notebooks (what ``python3 tasks.py progress`` runs; see
:func:`delaylab.exercises.work.main`)."""

from .work import main

if __name__ == "__main__":  # pragma: no cover - command line
    raise SystemExit(main())
