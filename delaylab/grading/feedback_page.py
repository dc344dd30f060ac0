"""The page a student reads back: one self-contained HTML file per notebook of a submission.

It holds, for each graded exercise: the statement (its formulas as MathML, which browsers draw
themselves: no script, no stylesheet or font from another host), the student's own numbers, the
answer as they gave it, the points and a one-line reason — never a traceback. With
``solutions=True`` it adds the worked answer for their numbers. Written to nbgrader's place for
feedback, ``feedback/<student>/<assignment>/<notebook>.html``, so that ``nbgrader
release_feedback`` can hand it out.
"""

from __future__ import annotations

import html

from ..exercises import get, given_text
from ..exercises._core import reference_explanation
from ..exercises.ui import heading

_REASON = {"right": "right", "wrong": "wrong", "missing": "missing", "error": "error", "timeout": "time limit",
           "manual": "graded by hand"}
_STYLE = """
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;background:#fff;margin:0}
main{max-width:52rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere}
h1{font-size:1.6rem}h1 small{display:block;font-size:1rem;font-weight:normal}h2{font-size:1.2rem;margin-top:2rem;border-top:1px solid #d1d5db;padding-top:1rem}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #9ca3af;padding:.3rem .6rem;text-align:left}
pre{background:#f3f4f6;padding:.6rem;overflow-x:auto;white-space:pre-wrap}
.box{border-left:4px solid #4b5563;background:#f3f4f6;padding:.5rem .8rem;margin:.6rem 0}
.right{border-color:#1b5e20;background:#e8f5e9;color:#1b5e20}.lost{border-color:#8a3b00;background:#fff3e0;color:#6b2d00}
.manual{border-color:#1e3a8a;background:#eef2ff;color:#1e3a8a}
@media (prefers-color-scheme: dark){body{background:#111827;color:#e5e7eb}pre,.box{background:#1f2937}
.right{background:#0b2e13;color:#a7f3d0}.lost{background:#3b1d00;color:#fed7aa}.manual{background:#1e1b4b;color:#c7d2fe}
th,td{border-color:#6b7280}}
"""


def statement_html(markdown: str) -> str:
    """An exercise's statement (markdown with TeX) as HTML with MathML formulas."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from ..serve.mathml import markdown_with_mathml

    return markdown2html_mistune(markdown_with_mathml(markdown))


def _points(v) -> str:
    return "—" if v.points is None else f"{v.points:g} of {v.max_points:g}"


def page(*, assignment: str, notebook: str, student: str, verdicts: list, statements: dict, typed: str | None,
         notes: list, graded_at: str, solutions: bool = False) -> str:
    """The HTML page of one notebook of a submission (see the module's docstring)."""
    auto = [v for v in verdicts if v.points is not None and v.reason != "manual"]
    got, out_of = sum(v.points for v in auto), sum(v.max_points for v in auto)
    manual = [v for v in verdicts if v.reason == "manual"]
    e = html.escape
    parts = [f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
             f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
             f"<title>Feedback: {e(assignment)}, {e(student)}</title><style>{_STYLE}</style></head><body><main>",
             f"<h1>Feedback on {e(assignment)} <small>({e(notebook)})</small></h1>",
             f"<p>Graded for <b>{e(student)}</b> on {e(graded_at)}, with that id's numbers: "
             f"<b>{got:g} of {out_of:g}</b> automatic points"
             + (f"; {len(manual)} answer(s) graded by hand." if manual else ".") + "</p>"]
    if typed is not None and typed.strip() and typed.strip().casefold() != student:
        parts.append(f"<p class='box'>Your notebook typed the id “{e(typed)}”. You are graded as <b>{e(student)}</b> "
                     "(the name your submission was collected under), with that id's numbers.</p>")
    for note in notes:
        parts.append(f"<p class='box'>{e(note)}</p>")
    parts.append("<table><caption>Points per exercise</caption><thead><tr><th scope='col'>exercise</th>"
                 "<th scope='col'>points</th><th scope='col'>result</th></tr></thead><tbody>")
    for v in verdicts:
        parts.append(f"<tr><td><a href='#{e(v.eid)}'>{e(_number(v.eid))}</a></td><td>{_points(v)}</td>"
                     f"<td>{e(_REASON[v.reason])}</td></tr>")
    parts.append("</tbody></table>")
    for v in verdicts:
        ex = get(v.eid)
        css = "right" if v.reason == "right" else "manual" if v.reason == "manual" else "lost"
        parts.append(f"<section id='{e(v.eid)}'><h2>{e(heading(v.eid))}</h2>")
        if statements.get(v.eid):
            parts.append(statement_html(statements[v.eid]))
        if ex.parameterised:
            parts.append(f"<p><b>Your numbers</b> (for {e(student)}): {e(given_text(v.eid, student=student))}</p>")
        if v.answer:
            answer = (f"<pre>{e(v.answer)}</pre>" if "\n" in v.answer or ex.kind in ("implement", "explain")
                      else f"<code>{e(v.answer)}</code>")
            parts.append(f"<p><b>Your answer</b>:</p>{answer}" if answer.startswith("<pre") else
                         f"<p><b>Your answer</b>: {answer}</p>")
        parts.append(f"<p class='box {css}'><b>{_points(v)} points — {e(_REASON[v.reason])}.</b> {e(v.message)}</p>")
        if solutions and ex.kind != "explain":
            why = reference_explanation(v.eid, student=student)
            if why:
                parts.append(f"<details><summary>The answer for your numbers</summary><p>{e(why)}</p></details>")
        parts.append("</section>")
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def _number(eid: str) -> str:
    """``"1.2"`` for ``"01.pending"``: the exercise's number as the notebook shows it."""
    from ..exercises import ids

    nb = eid.split(".")[0]
    return f"{int(nb)}.{ids(nb).index(eid) + 1}"
