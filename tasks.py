#!/usr/bin/env python3
"""The workbook's commands. Each one creates or refreshes the local virtual environment
(.venv) first, so on a fresh machine with python3 a single command does all the set-up.

    python3 tasks.py lab        open the workbook in JupyterLab (notebooks/00_index.ipynb)
                                (and has git ignore the outputs of saved notebooks: README)
    python3 tasks.py test       run every test: unit tests and the notebooks (nbval), each notebook
                                twice: as shipped (every exercise "not answered yet") and with every
                                exercise's solution filled in (tests/solved_notebooks/, see conftest.py)
    python3 tasks.py bench      print the benchmark table (`bench book`: the course site's build)
    python3 tasks.py book       build the course site (static, no server needed) into _build/site
                                (--out DIR; installs Jupyter Book, the "site" extra, on first use)
    python3 tasks.py dashboard  serve the notebooks as Voila dashboards (and live slides) on localhost
                                (--public: on every interface, with caps for a public host;
                                --solutions=lecture|all|none|1.1,1.3: the solutions they show)
    python3 tasks.py slides     set the notebooks' slide boundaries (lecture mode, RISE)
    python3 tasks.py slides --pdf [NN ...] [--out DIR] [--size 1024x768]
                                each deck of live slides as a PDF, a backup for a room without a
                                server (default _build/slides; chromium photographs the slides)
    python3 tasks.py assignment NN|all|weekN [--out DIR] [--exercises 1.2,1.4] [--points 1.4=4]
                                graded assignments of the paper notebooks as an nbgrader course
                                folder (default assignments/; weekN: the guide's module table)
    python3 tasks.py nbgrader CMD ... --course DIR
                                nbgrader itself (e.g. generate_assignment week1), run in DIR from
                                the grading environment .venv-grade (nbgrader from PyPI)
    python3 tasks.py grade ASSIGNMENT --course DIR
                                grade the submissions in DIR/submitted/, each in a sandbox
                                (bubblewrap), into DIR's gradebook and DIR/grades-ASSIGNMENT.csv
                                (docs/instructor.md, "Graded homework")
    python3 tasks.py progress [STUDENT]
                                each student's progress through the exercises (the records that
                                JupyterLab keeps beside the notebooks, notebooks/.delaylab-work/)
    python3 tasks.py clean      remove the virtual environment and caches
    python3 tasks.py clean --cache   empty the sweep cache ($DELAYLAB_CACHE or ~/.cache/delaylab)

Extra arguments after ``test`` go to pytest (e.g. ``python3 tasks.py test -k laws``, or
``-m 'not browser'`` to leave out the tests in a real browser, which otherwise run after the
others, on their own). As root, ``test`` installs
Debian's chromium for those tests if it is missing.
Only the Python standard library is used here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".delaylab-installed"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")


def say(msg: str) -> None:
    print(f"[delaylab] {msg}", flush=True)


def run(cmd, check=True, **kw) -> None:
    say(" ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=check, cwd=ROOT, **kw)


def run_with_progress(cmd, what: str, every: float = 10.0) -> None:
    """``run(cmd)``, saying ``what`` and then, every ``every`` seconds, that it is still at it: a
    long silent step looks like a hung one."""
    import threading
    import time

    say(what + "…")
    done = threading.Event()
    started = time.monotonic()

    def tick():
        while not done.wait(every):
            say(f"  … still {what.split(',')[0]} ({time.monotonic() - started:.0f} s)")

    threading.Thread(target=tick, daemon=True).start()
    try:
        run(cmd)
    finally:
        done.set()


def _fingerprint() -> str:
    h = hashlib.sha256()
    for name in ("pyproject.toml", "tasks.py"):
        h.update((ROOT / name).read_bytes())
    return h.hexdigest()


def _create_venv() -> None:
    say(f"creating the virtual environment {VENV}")
    proc = subprocess.run([sys.executable, "-m", "venv", str(VENV)], cwd=ROOT)
    if proc.returncode == 0 and PY.exists():
        return
    shutil.rmtree(VENV, ignore_errors=True)
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        say("python3 -m venv failed: installing Debian's python3-venv")
        v = f"{sys.version_info.major}.{sys.version_info.minor}"
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "python3-venv", f"python{v}-venv"], check=False)
        if subprocess.run([sys.executable, "-m", "venv", str(VENV)], cwd=ROOT).returncode == 0:
            return
    sys.exit("[delaylab] could not create a virtual environment with `python3 -m venv`. "
             "On Debian or Ubuntu install it first: sudo apt-get install python3-venv")


def ensure_venv(extras=("test",)) -> None:
    """Create .venv if needed and (re)install delaylab when pyproject.toml or this file changed
    since the last installation, with the extras asked for (pyproject.toml) and those already
    installed: ``test`` (the test tools) for ``test``, ``site`` (Jupyter Book) for ``book``; the
    workbook itself, ``lab`` and ``dashboard``, needs none of them."""
    if not PY.exists():
        _create_venv()
    stamp = STAMP.read_text().split("+") if STAMP.exists() else [""]
    fresh = stamp[0] == _fingerprint()
    have = set(stamp[1:]) if fresh else set()
    if not fresh or not set(extras) <= have:
        wanted = sorted(have | set(extras))
        run([PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        run([PY, "-m", "pip", "install", "--quiet", "-e", f".[{','.join(wanted)}]" if wanted else "."], env=pip_env())
        # compile the numba kernels now, not at the first slider move (about a minute on 2 cores)
        run_with_progress([PY, "-m", "delaylab.kernels"], "compiling the numba kernels, once (about a minute)")
        STAMP.write_text("+".join([_fingerprint(), *wanted]))
        fetch_plotly_basic()
    elif not any((VENV / "share" / "delaylab").glob("plotly-basic-*.min.js")):
        fetch_plotly_basic()  # offline last time: try again


def fetch_plotly_basic() -> None:
    """plotly.js's basic bundle from the npm registry, for the dashboards (delaylab/viz/plotlyjs.py:
    each page about a second faster). Not fatal: without it the dashboards serve plotly in full."""
    run([PY, "-m", "delaylab.viz.plotlyjs"], check=False)


def pip_env() -> dict:
    """pip's environment: setuptools' note that an editable install was made ("Editable
    installation. Please be careful with folders in your working directory...", a warning block
    pip shows like an error) is left out; every other warning stays."""
    env = dict(os.environ)
    env["PYTHONWARNINGS"] = ",".join(w for w in [env.get("PYTHONWARNINGS", ""), "ignore:Editable installation"] if w)
    return env


#: Jupyter configuration read by every Jupyter command run from here (JUPYTER_CONFIG_PATH, before
#: the user's): delaylab's server extension enabled (as a wheel install does; an editable install
#: does not install data files), and JupyterLab without the "official Jupyter news?" question
JUPYTER_CONFIG = ROOT / "jupyter-config"


def jupyter_env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in [str(JUPYTER_CONFIG), env.get("JUPYTER_CONFIG_PATH", "")] if p)
    return env


def configure_git_filter() -> None:
    """In a git checkout, strip the notebooks' outputs when git reads them (tools/strip_notebook.py,
    named in .gitattributes): a notebook you ran and saved stays "unchanged" for git, and pulls
    bring new versions without conflicts on outputs. Only this checkout's config is touched."""
    if not shutil.which("git") or not (ROOT / ".gitattributes").exists():
        return
    inside = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=ROOT, capture_output=True, text=True)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return
    clean = f'"{Path(sys.executable).as_posix()}" tools/strip_notebook.py'
    current = subprocess.run(["git", "config", "--local", "filter.delaylab-strip.clean"], cwd=ROOT,
                             capture_output=True, text=True).stdout.strip()
    if current != clean:
        subprocess.run(["git", "config", "--local", "filter.delaylab-strip.clean", clean], cwd=ROOT, check=False)
        say("git now ignores the outputs of the notebooks you save (filter delaylab-strip, see README)")


def _caller_paths(args, *options) -> list:
    """``args`` with the folders given to ``options`` (``--out DIR`` or ``--out=DIR``) made absolute
    from the caller's working directory: the commands run from this checkout's folder."""
    out, it = [], iter(args)
    for a in it:
        name, eq, value = a.partition("=")
        if name in options and eq:
            a = f"{name}={Path(value).expanduser().resolve()}"
        elif a in options:
            nxt = next(it, None)
            out.append(a)
            a = nxt if nxt is None else str(Path(nxt).expanduser().resolve())
            if a is None:
                continue
        out.append(a)
    return out


#: the background filling of the caches started by ``lab`` appends its output here
PREFILL_LOG = VENV / "prefill.log"


def start_prefill(notebooks: Path = ROOT / "notebooks", env: dict | None = None, parent: int | None = None,
                  log: Path = PREFILL_LOG) -> int | None:
    """Start ``python -m delaylab.serve.prefill`` in the background, at the lowest priority, to
    fill this user's caches for a first Run All (the compiled kernels, the notebooks' figures at
    their defaults) once per version of the code: it checks, and exits at once when they are
    current (README, "Set-up"). Detached: a session of its own, on POSIX a grandchild of this
    process (nothing waits for it, nothing is left to reap); its output is appended to ``log``;
    it stops when ``parent`` stops, by default this process (JupyterLab, after ``exec``). Never
    fails the caller. Returns the pid of the process started, or None (``DELAYLAB_PREFILL=off``
    in ``env``, or it could not start)."""
    env = dict(os.environ if env is None else env)
    if env.get("DELAYLAB_PREFILL", "").strip().lower() in ("off", "0", "no", "false"):
        return None
    cmd = [str(PY), "-m", "delaylab.serve.prefill", str(notebooks)]
    try:
        with open(log, "ab") as out:
            if os.name != "posix":
                flags = getattr(subprocess, "IDLE_PRIORITY_CLASS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
                return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=ROOT, env=env,
                                        creationflags=flags).pid
            cmd += ["--parent", str(os.getpid() if parent is None else parent)]
            # a short-lived middle process lowers its priority and starts the prefill in a session
            # of its own, says its pid and exits: the prefill is then nobody's child to reap
            spawned = subprocess.run([sys.executable, "-I", "-S", "-c", _SPAWN, *cmd], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=out, cwd=ROOT, env=env, timeout=60)
        return int(spawned.stdout) if spawned.returncode == 0 and spawned.stdout.strip() else None
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        say(f"the caches are not filled in the background ({exc})")
        return None


_SPAWN = ("import os, subprocess, sys; os.setpriority(os.PRIO_PROCESS, 0, 19); "
          "print(subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=2, stderr=2, "
          "start_new_session=True).pid)")


def cmd_lab(args) -> None:
    ensure_venv(extras=())
    configure_git_filter()
    if start_prefill():
        say(f"the notebooks' figures at their defaults and the compiled kernels are checked, and made if "
            f"missing, in the background at low priority (once per version of the code; {PREFILL_LOG})")
    as_root = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []  # containers, CI
    # the checkout's folder, opening notebooks/00_index.ipynb (as on Binder or a hub): the notebooks'
    # links to ../docs/readings.md then open in JupyterLab; unless the caller chose a folder (Jupyter
    # refuses a second --notebook-dir)
    chosen = any(a.split("=", 1)[0] in ("--notebook-dir", "--ServerApp.root_dir") for a in args)
    folder = [] if chosen else ["--notebook-dir", ROOT, "--LabApp.default_url=/lab/tree/notebooks/00_index.ipynb"]
    cmd = [str(c) for c in [PY, "-m", "jupyter", "lab", *folder, *as_root,
                            *_caller_paths(args, "--notebook-dir", "--ServerApp.root_dir")]]
    if os.name == "posix":
        # this process becomes JupyterLab: a SIGTERM (a service manager, `kill`, `docker stop`) reaches
        # the server itself, which shuts its kernels down, instead of ending only this script
        say(" ".join(cmd))
        os.chdir(ROOT)
        os.execve(cmd[0], cmd, jupyter_env())
    run(cmd, env=jupyter_env())


def apt_install(package: str, what: str) -> None:
    """Install a Debian package, as root with apt-get (elsewhere nothing: the caller says what is missing)."""
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        say(f"installing {what}")
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", package], check=False,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def ensure_browser() -> None:
    """The browser tests drive Debian's chromium; as root with apt-get, install it if missing
    (never `playwright install`, which downloads a browser from the internet)."""
    if any(shutil.which(b) for b in ("chromium", "chromium-browser")) or os.environ.get("DELAYLAB_CHROMIUM"):
        return
    apt_install("chromium", "Debian's chromium for the browser tests (about 480 MB, once)")
    if not shutil.which("chromium"):
        say("no chromium: the browser tests will fail (install chromium, or set DELAYLAB_CHROMIUM, "
            "or deselect them with `-m 'not browser'`)")


def cmd_test(args) -> None:
    ensure_venv(extras=("test", "site"))  # the tests build the course site too
    ensure_browser()
    ensure_sandbox_tool()  # tests/test_grading.py grades in the sandbox
    run([PY, ROOT / "tests" / "a11y.py"], check=False)  # axe-core from npm, for the accessibility tests
    workers = ["-n", str(min(4, os.cpu_count() or 1)), "--dist", "loadscope"]
    nbval = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg")]
    if "-m" in args:  # the caller chose which tests
        run([PY, "-m", "pytest", *workers, *nbval, *args], env=jupyter_env())
        return
    # Everything but the browser, on every core; then the browser tests. Those marked ``timing`` print
    # what a visitor or a student waits for (first figures, first visits after a start, a hub): they
    # run alone, last, on a quiet machine, as the notebooks executed alongside would slow them down
    # and, under heavy load, disturb them (see tests/test_browser.py). The other browser tests check
    # what a page shows (drawing, layout, accessibility, the decks) with generous time limits, and run
    # two at a time (pytest-xdist groups keep a module's server and chromium in one worker).
    run([PY, "-m", "pytest", *workers, *nbval, "-m", "not browser", "--durations=15", *args], env=jupyter_env())
    # (the ten-visitor load check is a benchmark: `tasks.py bench visitors`)
    phases = [["-m", "browser and not load and not timing", "-n", "2", "--dist", "loadgroup"],
              ["-m", "browser and timing and not load"]]
    codes = []
    for phase in phases:
        cmd = [str(PY), "-m", "pytest", *phase, "--durations=15", *args]
        say(" ".join(cmd))
        codes.append(subprocess.run(cmd, cwd=ROOT, env=jupyter_env()).returncode)
    failed = [c for c in codes if c not in (0, 5)]  # 5: the arguments selected no test of that phase
    if failed:
        sys.exit(failed[0])


def cmd_bench(args) -> None:
    ensure_venv(extras=("test", "site") if {"book", "lighthouse"} & set(args) else ("test",))
    run([PY, ROOT / "benchmarks" / "bench.py", *args], env=jupyter_env())


def cmd_book(args) -> None:
    """Build the course site (delaylab/site; README, "Course site"): ``book [--out DIR]``, default
    _build/site; ``--repository URL``, ``--hub URL``, ``--branch B``, ``--binderhub URL``
    override [tool.delaylab.site] of pyproject.toml for this build."""
    ensure_venv(extras=("site",))
    out = ["--out", str(ROOT / "_build" / "site")] if "--out" not in args else []
    run([PY, "-m", "delaylab.site", "--root", ROOT, "--notebooks", ROOT / "notebooks", *out,
         *_caller_paths(args, "--out")],
        env=jupyter_env())


def cmd_dashboard(args) -> None:
    """Serve notebooks/ as Voila dashboards (delaylab/serve: settings in voila.json, read from
    this folder). ``dashboard [PORT]`` on 127.0.0.1; ``dashboard --public [PORT]`` on every
    interface with the caps of a public server (README, "Hosting the dashboards");
    ``--solutions=…`` which exercises' solutions they show (default: those of the lectures, not the
    graded homework). Other arguments go to Voila (e.g. --DashboardServer.max_kernels=20)."""
    ensure_venv(extras=())
    public = "--public" in args
    rest = [a for a in args if a != "--public"]
    port = rest.pop(0) if rest and rest[0].isdigit() else "8866"
    host = "0.0.0.0" if public else "127.0.0.1"
    say(f"dashboards at http://{'<this host>' if public else host}:{port}/voila/render/00_index.ipynb once every "
        "notebook has a preheated kernel (the log says 'ready'; Ctrl-C stops)")
    # the port opens once every notebook has a preheated kernel: the first visitors after a start
    # wait no longer than later ones (issue 37; `bench start` measures it)
    ready = [] if any(a.startswith("--DashboardServer.ready_wait=") for a in rest) else ["--DashboardServer.ready_wait=600"]
    cmd = [str(c) for c in [PY, "-m", "delaylab.serve", ROOT / "notebooks", f"--port={port}", "--no-browser",
                            *(["--public"] if public else [f"--Voila.ip={host}"]), *ready, *rest]]
    if os.name == "posix":
        # this process becomes the server: a SIGTERM (a service manager, `kill`, `docker stop`) reaches
        # the server itself, which stops its kernels, instead of ending only this script
        say(" ".join(cmd))
        os.chdir(ROOT)
        os.execve(cmd[0], cmd, jupyter_env())
    run(cmd, env=jupyter_env())


def cmd_slides(args) -> None:
    """Set the notebooks' slide boundaries for lecture mode (tools/slides.py; ``--check`` only checks);
    ``--pdf``: each deck as a PDF (tools/slides_pdf.py: the dashboards' server, and chromium driven by
    playwright from the test tools, photograph the live slides)."""
    if "--pdf" in args:
        ensure_venv(extras=("test",))
        ensure_browser()
        run([PY, ROOT / "tools" / "slides_pdf.py", *_caller_paths([a for a in args if a != "--pdf"], "--out")],
            env=jupyter_env())
        return
    code = subprocess.run([sys.executable, str(ROOT / "tools" / "slides.py"), *args], cwd=ROOT).returncode
    if code:
        sys.exit(code)


def cmd_assignment(args) -> None:
    """Write graded assignments of the paper notebooks as an nbgrader course folder
    (delaylab/exercises/assignment.py; nbgrader itself is installed apart: docs/instructor.md)."""
    ensure_venv(extras=())
    run([PY, "-m", "delaylab.exercises.assignment", *_caller_paths(args, "--out", "--from")])


#: the grading environment: nbgrader and delaylab from this checkout, apart from .venv (whose
#: JupyterLab must not carry nbgrader's extensions; nbgrader is no dependency of the workbook)
GRADE_VENV = ROOT / ".venv-grade"
GRADE_PY = GRADE_VENV / ("Scripts" if os.name == "nt" else "bin") / ("python.exe" if os.name == "nt" else "python")
NBGRADER = "nbgrader>=0.9.6,<0.10"


def ensure_grade_venv() -> None:
    """Create or refresh .venv-grade (nbgrader from PyPI, delaylab editable from this checkout) when
    pyproject.toml or this file changed; callers running at once (parallel tests) wait for one another."""
    import fcntl

    with open(ROOT / ".venv-grade.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = GRADE_VENV / ".delaylab-installed"
        if stamp.exists() and stamp.read_text() == f"{_fingerprint()}+{NBGRADER}" and GRADE_PY.exists():
            return
        say(f"creating the grading environment {GRADE_VENV} (nbgrader and delaylab)")
        if not GRADE_PY.exists() and subprocess.run([sys.executable, "-m", "venv", str(GRADE_VENV)], cwd=ROOT).returncode:
            sys.exit("[delaylab] could not create the grading environment with `python3 -m venv`")
        run([GRADE_PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        run([GRADE_PY, "-m", "pip", "install", "--quiet", NBGRADER, "-e", "."], env=pip_env())
        stamp.write_text(f"{_fingerprint()}+{NBGRADER}")


def ensure_sandbox_tool() -> None:
    """Student code is graded inside bubblewrap; as root with apt-get, install it if missing (without
    it, the grader refuses and says what to install)."""
    if shutil.which("bwrap") or not sys.platform.startswith("linux"):
        return
    apt_install("bubblewrap", "Debian's bubblewrap, the sandbox student code is graded in")


def _course(args) -> tuple[list, Path | None]:
    """``args`` without ``--course DIR`` (or ``--course=DIR``), and DIR made absolute."""
    rest, course, it = [], None, iter(args)
    for a in it:
        if a == "--course":
            course = next(it, None)
        elif a.startswith("--course="):
            course = a.split("=", 1)[1]
        else:
            rest.append(a)
    return rest, (Path(course).expanduser().resolve() if course else None)


def cmd_grade(args) -> None:
    """Grade an assignment's submissions in sandboxes (delaylab/grading); ``grade --setup`` only
    makes the grading environment and prints its Python."""
    ensure_grade_venv()
    if args == ["--setup"]:
        print(GRADE_PY)
        return
    ensure_sandbox_tool()
    run([GRADE_PY, "-m", "delaylab.grading.grade", *_caller_paths(args, "--course")])


def cmd_nbgrader(args) -> None:
    """``nbgrader ARGS --course DIR``: nbgrader from the grading environment, in the course folder DIR."""
    rest, course = _course(args)
    if course is None:
        sys.exit("[delaylab] tasks.py nbgrader needs --course DIR, the course folder (python3 tasks.py assignment "
                 "writes one)")
    ensure_grade_venv()
    env = {**os.environ, "PATH": f"{GRADE_PY.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    say(f"(in {course}) nbgrader {' '.join(rest)}")
    code = subprocess.run([str(GRADE_PY.parent / "nbgrader"), *rest], cwd=course, env=env).returncode
    if code:
        sys.exit(code)
def cmd_progress(args) -> None:
    """Each student's progress (delaylab/exercises/work.py): exercises right at the first try, right
    later, tried, open, hints and solutions seen, per notebook."""
    ensure_venv(extras=())
    extra = [] if any(a.split("=", 1)[0] == "--folder" for a in args) else [
        "--folder", ROOT / "notebooks" / ".delaylab-work"]
    run([PY, "-m", "delaylab.exercises", *_caller_paths(args, "--folder"), *extra])


def cmd_clean(args) -> None:
    if "--cache" in args:  # only the sweep cache ($DELAYLAB_CACHE or ~/.cache/delaylab)
        ensure_venv(extras=())
        run([PY, "-c", "import delaylab as dl; from delaylab.summary import fmt_bytes; i = dl.cache_info(); "
             "print(f'[delaylab] removed {i[\"entries\"]} cache entries ({fmt_bytes(dl.cache_clear())}) "
             "from {i[\"folder\"]}')"])
        return
    for p in [VENV, GRADE_VENV, ROOT / ".pytest_cache"]:
        shutil.rmtree(p, ignore_errors=True)
    say("removed .venv, .venv-grade and caches")


COMMANDS = {"lab": cmd_lab, "test": cmd_test, "bench": cmd_bench, "book": cmd_book, "dashboard": cmd_dashboard,
            "slides": cmd_slides, "assignment": cmd_assignment, "grade": cmd_grade, "nbgrader": cmd_nbgrader,
            "progress": cmd_progress, "clean": cmd_clean}


def main(argv) -> None:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        sys.exit(2 if argv else 0)
    try:
        COMMANDS[argv[0]](argv[1:])
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main(sys.argv[1:])
