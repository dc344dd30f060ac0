"""A real JupyterHub, as docs/hub.md has an admin set it up, with two students in chromium.

As root (CI is): JupyterHub from PyPI (:data:`test_binder.JUPYTERHUB`, with jupyterhub-idle-culler,
in a virtual environment of its own: a test-only tool, never in the workbook's install) and
configurable-http-proxy from npm, both installed at set-up; the hub on loopback ports, started
with docs/hub/jupyterhub_config.py itself (its settings given through the environment variables
it reads); PAM logins for two non-root local users in the students' group; each student's server
started as that student from the environment binder/postBuild built for real
(tests/test_binder.py's :func:`environment`); the course's repository served over git's smart
HTTP on loopback, at an address ending in ``.git``, as nbgitpuller pulls it.

Each student logs in through chromium (the hub's default URL is an nbgitpuller link: the
repository is cloned into their home and JupyterLab opens its index), opens two dashboards
(``/voila/render/…``) and gets their first figures, follows the course site's hub link for
notebook 01 (:func:`delaylab.site.config.links`, the ``.git`` address) and runs it in JupyterLab.
Then: the two students' numbers differ; neither can read the other's files nor connect to the
other's kernels, nor reach the other's server through the hub; every request of every page went
to the hub (none to another host); each student loaded the compiled kernels and the notebooks'
figures that the install built (numba compiled nothing, the student's own sweep cache holds none
of the install's problems); a dashboard whose browser was killed (no ``beforeunload``) left no kernel
after the extension's grace, while the student's JupyterLab kernel lived on. The seconds to each
first figure are printed, beside the first dashboard on our own server (``python -m
delaylab.serve`` from the same environment, right after its start), and kept in
``test-artifacts/browser/hub.txt``; only gross bounds are asserted.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import warnings
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import test_browser as dashboards
from processes import stop
from test_binder import (JUPYTERHUB, SYSTEM_PYTHON, environment, ensure_user, is_root, remove_user, run_as,
                         source_copy)
from test_browser import ARTIFACTS, ROOT, SEEN, browser, free_port, shown_after  # noqa: F401  (browser: a fixture)

CONFIG = ROOT / "docs" / "hub" / "jupyterhub_config.py"
STUDENTS = ("dlhub-ada", "dlhub-bob")
GROUP = "dlhub-students"
#: each student's two dashboards: the first after their server's spawn, then a second one (warm)
DASHBOARDS = {"dlhub-ada": ("01_delayed_conversions.ipynb", "02_arm_dependent_delays.ipynb"),
              "dlhub-bob": ("01_delayed_conversions.ipynb", "04_aggregated_anonymous.ipynb")}
LAB_NOTEBOOK = "01_delayed_conversions.ipynb"
REPORT = ARTIFACTS / "hub.txt"
needs_root = pytest.mark.skipif(not is_root() or not Path(SYSTEM_PYTHON).exists(),
                                reason="a hub with local users (root needed; CI runs as root)")


# ============================================================================ the course's repository
class GitServer:
    """A git repository served over git's smart HTTP protocol (``git http-backend``) on a loopback
    port, as a course's repository is: nbgitpuller clones it shallow, which the dumb protocol
    cannot serve."""

    def __init__(self, root: Path):
        root_dir = str(root)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.backend()

            do_POST = do_GET

            def backend(self):
                path, _, query = self.path.partition("?")
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                env = {"GIT_PROJECT_ROOT": root_dir, "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path,
                       "QUERY_STRING": query, "REQUEST_METHOD": self.command, "REMOTE_ADDR": "127.0.0.1",
                       "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                       "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
                for header in ("Content-Encoding", "Git-Protocol"):
                    if self.headers.get(header):
                        env["HTTP_" + header.upper().replace("-", "_")] = self.headers[header]
                out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
                head, _, payload = out.partition(b"\r\n\r\n")  # CGI: its headers, a blank line, the body
                headers = [line.split(": ", 1) for line in head.decode().splitlines() if ": " in line]
                status = next((int(v.split()[0]) for k, v in headers if k.lower() == "status"), 200)
                self.send_response(status)
                for key, value in headers:
                    if key.lower() != "status":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def course_repository(base: Path) -> Path:
    """A bare repository holding this checkout as it is now, on branch main: ``base/git/delaylab.git``."""
    work = source_copy(base / "work")
    git = ["git", "-c", "user.name=delaylab tests", "-c", "user.email=tests@localhost", "-c", "init.defaultBranch=main"]
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "course"]):
        subprocess.run([*git, *cmd], cwd=work, check=True, capture_output=True)
    bare = base / "git" / "delaylab.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True, capture_output=True)
    return bare


# ============================================================================ the hub
def http(url, headers=None, timeout=10):
    """(status, body) of a GET, whatever the status."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, OSError):  # not listening yet
        return 0, b""


@pytest.fixture(scope="module")
def hub():
    """JupyterHub with configurable-http-proxy on loopback, two students, the course's repository."""
    built = environment()
    prefix = Path(built["prefix"])
    base = Path(tempfile.mkdtemp(prefix="delaylab-hub-"))
    base.chmod(0o755)
    made, processes, git = [], [], None
    seconds = {}
    try:
        t0 = time.perf_counter()
        subprocess.run(["npm", "install", "--prefix", str(base / "proxy"), "--no-audit", "--no-fund", "--loglevel=error",
                        "configurable-http-proxy@5"], check=True, capture_output=True, timeout=600)
        seconds["configurable-http-proxy (npm)"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        subprocess.run([SYSTEM_PYTHON, "-m", "venv", str(base / "hub")], check=True, capture_output=True)
        subprocess.run([str(base / "hub" / "bin" / "pip"), "install", "--quiet", "--no-cache-dir", JUPYTERHUB,
                        "jupyterhub-idle-culler"], check=True, capture_output=True, timeout=900)
        seconds["jupyterhub (PyPI)"] = round(time.perf_counter() - t0, 1)
        git = GitServer(course_repository(base).parent)
        subprocess.run(["groupadd", "-f", GROUP], check=True)
        passwords = {}
        for name in STUDENTS:
            remove_user(name)  # a previous run's, if it was stopped before its clean-up
            ensure_user(name)
            made.append(name)
            subprocess.run(["usermod", "-aG", GROUP, name], check=True)
            passwords[name] = secrets.token_urlsafe(12)
            subprocess.run(["chpasswd"], input=f"{name}:{passwords[name]}\n", text=True, check=True)
            every_cell_rendered(name)
        url = f"http://127.0.0.1:{free_port()}"
        repository = f"{git.url}/delaylab.git"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "DELAYLAB_", "VIRTUAL_ENV", "IPYTHON"))}
        env.update(PATH=f"{base / 'hub' / 'bin'}{os.pathsep}{env['PATH']}", DELAYLAB_HUB_ENV=str(prefix),
                   DELAYLAB_HUB_REPOSITORY=repository, DELAYLAB_HUB_BRANCH="main", DELAYLAB_HUB_GROUP=GROUP,
                   DELAYLAB_HUB_BIND_URL=url, DELAYLAB_HUB_STATE=str(base / "state"),
                   DELAYLAB_HUB_PROXY=str(base / "proxy" / "node_modules" / ".bin" / "configurable-http-proxy"),
                   DELAYLAB_HUB_API_URL=f"http://127.0.0.1:{free_port()}",
                   DELAYLAB_HUB_PROXY_API_URL=f"http://127.0.0.1:{free_port()}")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        log_path = ARTIFACTS / "hub.log"
        log = open(log_path, "w")
        # started from a folder students can enter: the config keeps the hub's state in its own (0700)
        proc = subprocess.Popen([str(base / "hub" / "bin" / "jupyterhub"), "-f", str(CONFIG)], cwd=base, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
        processes.append(proc)
        deadline = time.time() + 120
        while http(f"{url}/hub/api")[0] != 200:
            assert proc.poll() is None and time.time() < deadline, log_path.read_text()[-4000:]
            time.sleep(0.5)
        yield {"url": url, "prefix": prefix, "base": base, "passwords": passwords, "repository": repository,
               "log": log_path, "proc": proc, "seconds": seconds, "built": built}
    finally:
        for proc in processes:
            stop(proc, wait=60)  # the hub stops the students' servers and the proxy
        for name in made:
            leftover = subprocess.run(["pgrep", "-u", name], capture_output=True, text=True).stdout.split()
            for pid in leftover:  # none expected: the students' processes, started by this test's hub
                subprocess.run(["kill", "-9", pid], capture_output=True)
            remove_user(name)
        subprocess.run(["groupdel", GROUP], capture_output=True)
        if git is not None:
            git.close()
        shutil.rmtree(base, ignore_errors=True)


def every_cell_rendered(user: str) -> None:
    """JupyterLab renders only the cells on screen (windowing, since 4.2): the student's setting
    that renders them all, so that the test reads every exercise's numbers in the page."""
    import pwd

    account = pwd.getpwnam(user)
    folder = Path(account.pw_dir) / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    subprocess.run(["chown", "-R", f"{account.pw_uid}:{account.pw_gid}", str(Path(account.pw_dir) / ".jupyter")],
                   check=True)


def login(context, hub, name, timeout=300_000) -> float:
    """Log ``name`` in through the hub's login page; seconds until JupyterLab shows the index that
    the hub's default URL (nbgitpuller) opens."""
    page = context.new_page()
    dashboards.collect_errors(page)
    started = time.perf_counter()
    page.goto(f"{hub['url']}/hub/login", timeout=60_000)
    page.fill("#username_input", name)
    page.fill("#password_input", hub["passwords"][name])
    page.click("#login_submit")
    page.wait_for_url(re.compile(r".*/lab/tree/delaylab/notebooks/00_index\.ipynb.*"), timeout=timeout)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    seconds = time.perf_counter() - started
    page.close()
    return seconds


def api(context, hub, user, path="", follow=False):
    """(status, JSON or text) of ``/user/<user>/api/<path>`` with the context's cookies (and,
    with ``follow``, wherever the answer redirects to)."""
    response = context.request.get(f"{hub['url']}/user/{user}/api/{path}", max_redirects=20 if follow else 0)
    try:
        return response.status, response.json()
    except Exception:
        return response.status, response.text()


def dashboard(context, hub, user, notebook) -> tuple:
    """Open ``notebook``'s dashboard; (page, seconds to its first figure, its kernel id)."""
    from playwright.sync_api import Error as PlaywrightError

    page = context.new_page()
    dashboards.collect_errors(page)
    page.add_init_script(SEEN)
    started = time.perf_counter()
    page.goto(f"{hub['url']}/user/{user}/voila/render/delaylab/notebooks/{notebook}", wait_until="commit",
              timeout=300_000)
    try:
        first = shown_after(page, "figure", started)
    except PlaywrightError as exc:  # the page reloaded itself (README, "A page that lost its widgets")
        if "context was destroyed" not in str(exc):
            raise
        warnings.warn(f"{user}'s {notebook} reloaded itself: {page.console[-5:]}", stacklevel=2)
        page.wait_for_load_state("load", timeout=300_000)
        first = dashboards.until(page, dashboards.FIRST_FIGURE, started)
    return page, first, dashboards.page_kernel(page)


def run_in_lab(context, hub, user) -> list:
    """Follow the course site's hub link for :data:`LAB_NOTEBOOK` (nbgitpuller, the repository's
    address ending in .git), Run All in JupyterLab; the texts of the student's exercise numbers."""
    from delaylab.site.config import SiteConfig, links

    cfg = SiteConfig(repository=hub["repository"], branch="main", jupyterhub=hub["url"], binderhub="")
    page = context.new_page()
    dashboards.collect_errors(page)
    page.goto(links(cfg, LAB_NOTEBOOK)["hub_lab"], timeout=120_000)
    page.wait_for_url(re.compile(rf".*/lab/tree/delaylab/notebooks/{re.escape(LAB_NOTEBOOK)}.*"), timeout=180_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    deadline = time.time() + 120
    while (kernel := notebook_kernel(context, hub, user)) is None:  # the notebook's session, as JupyterLab opened it
        assert time.time() < deadline, api(context, hub, user, "sessions")
        time.sleep(0.5)
    state = lambda *states: lambda ks: any(k["id"] == kernel and k["execution_state"] in states for k in ks)  # noqa: E731
    wait_kernels(context, hub, user, state("idle"), 120)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    wait_kernels(context, hub, user, state("busy"), 60)
    wait_kernels(context, hub, user, state("idle"), 600, stable=3)
    try:  # the exercises' boxes, rendered once their outputs have arrived
        page.wait_for_function("() => document.querySelector('.jp-NotebookPanel-notebook').innerText"
                               ".includes('Your numbers')", timeout=60_000, polling=500)
    except Exception:
        (ARTIFACTS / f"hub-lab-{user}.html").write_text(page.content())
    text = page.inner_text(".jp-NotebookPanel-notebook")
    assert "Traceback" not in text
    assert page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / f"hub-lab-{user}.png"))
    # "Your numbers (<student>): …": the numbers, without the name
    numbers = [line.split("): ", 1)[-1] for line in text.splitlines() if line.startswith("Your numbers")]
    page.close()
    return numbers


def notebook_kernel(context, hub, user):
    """The kernel id of JupyterLab's session of :data:`LAB_NOTEBOOK`, or None."""
    status, sessions = api(context, hub, user, "sessions")
    if status != 200:
        return None
    return next((s["kernel"]["id"] for s in sessions if s.get("path", "").endswith(LAB_NOTEBOOK) and s.get("kernel")),
                None)


def wait_kernels(context, hub, user, predicate, timeout, stable=0.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        status, kernels = api(context, hub, user, "kernels")
        if status == 200 and predicate(kernels):
            if not stable:
                return kernels
            time.sleep(stable)
            status, kernels = api(context, hub, user, "kernels")
            if status == 200 and predicate(kernels):
                return kernels
        time.sleep(0.5)
    raise AssertionError(f"{user}'s kernels: not as expected within {timeout} s: {api(context, hub, user, 'kernels')}")


def close_tab(page) -> None:
    """Close the tab as a visitor does: its beforeunload handler asks the server to stop its kernel."""
    with page.expect_event("close", timeout=30_000):
        page.close(run_before_unload=True)


def killed_browser_tab(browser, hub, user, notebook) -> str:  # noqa: F811
    """``user`` logs in from a second chromium, opens ``notebook``'s dashboard, and that browser is
    killed (SIGKILL: no beforeunload, no shutdown request, its connections simply drop); the
    dashboard's kernel id."""
    profile = Path(tempfile.mkdtemp(prefix="delaylab-killed-browser-"))
    context = browser.browser_type.launch_persistent_context(
        str(profile), executable_path=dashboards.chromium_path(), args=dashboards.ARGS, headless=True,
        viewport={"width": 1400, "height": 900})
    try:
        login(context, hub, user)
        page, _, kernel = dashboard(context, hub, user, notebook)
        main = [pid for pid, argv in _processes() if f"--user-data-dir={profile}" in argv and
                not any(a.startswith("--type=") for a in argv)]
        assert len(main) == 1, main
        os.kill(main[0], 9)
    finally:
        try:
            context.close()
        except Exception:  # its browser is dead
            pass
        shutil.rmtree(profile, ignore_errors=True)
    return kernel


def _processes():
    """(pid, argv) of every process, from /proc."""
    out = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            out.append((int(proc.name), (proc / "cmdline").read_bytes().decode(errors="replace").split("\0")))
        except OSError:
            continue
    return out


def own_server_first_figure(prefix: Path, notebooks: Path, browser, notebook) -> float:  # noqa: F811
    """The first figure of ``notebook`` on our own server (``python -m delaylab.serve``, from the
    same environment), opened as soon as the server answers: its pool still filling."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER_CONFIG_PATH", "DELAYLAB_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{prefix / 'bin'}{os.pathsep}{env['PATH']}"
    env["DELAYLAB_CACHE"] = tempfile.mkdtemp(prefix="delaylab-own-cache-")
    server = dashboards.Server([str(prefix / "bin" / "python"), "-m", "delaylab.serve", str(notebooks), "--no-browser",
                                "--port={port}", "--Voila.ip=127.0.0.1"], "/delaylab/status", notebooks.parent,
                               "hub-own-server.log", env=env)
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.add_init_script(SEEN)
        page, started = dashboards.visit(context, f"{server.url}/voila/render/{notebook}")
        first = shown_after(page, "figure", started)
        dashboards.close(page, context, server)
        return first
    finally:
        server.close()
        shutil.rmtree(env["DELAYLAB_CACHE"], ignore_errors=True)


# ============================================================================ the test
@pytest.mark.browser
@pytest.mark.timing
@needs_root
def test_two_students_on_a_real_hub(hub, browser):  # noqa: F811
    import pwd

    origin = hub["url"]
    requests, report, numbers, kernels_of = [], {}, {}, {}
    contexts = {}
    for name in STUDENTS:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.on("request", lambda request: requests.append(request.url))
        contexts[name] = context
        r = report[name] = {"login to JupyterLab (spawn, clone)": round(login(context, hub, name), 1)}
        first_nb, second_nb = DASHBOARDS[name]
        page, first, first_kernel = dashboard(context, hub, name, first_nb)
        r["first dashboard after the spawn"] = round(first, 2)
        close_tab(page)
        page, warm, _ = dashboard(context, hub, name, second_nb)
        r["second dashboard (warm)"] = round(warm, 2)
        assert not page.errors, page.errors
        close_tab(page)
        if name == STUDENTS[0]:  # a browser killed with a dashboard open: its kernel is the culler's
            crashed = killed_browser_tab(browser, hub, name, first_nb)
            crashed_at = time.perf_counter()
            assert crashed != first_kernel
        numbers[name] = run_in_lab(context, hub, name)
        status, kernels = api(context, hub, name, "kernels")
        kernels_of[name] = {k["id"] for k in kernels}
        print(f"\n{name}: {r}")

    ada, bob = STUDENTS
    # ---- each student their own numbers
    assert numbers[ada] and numbers[bob] and numbers[ada] != numbers[bob], numbers
    # ---- one student cannot reach the other's server, files or kernels
    for user, other in ((ada, bob), (bob, ada)):
        status, _ = api(contexts[user], hub, other, "kernels")
        assert status in (302, 401, 403), (user, other, status)  # refused, or sent to the hub's authorisation
        status, answer = api(contexts[user], hub, other, "kernels", follow=True)
        assert status == 403 and not isinstance(answer, list), (user, other, status, str(answer)[:300])
        assert api(contexts[user], hub, user, "kernels")[0] == 200
    home = Path(pwd.getpwnam(ada).pw_dir)
    assert (home.stat().st_mode & 0o777) == 0o700  # the config's pre-spawn hook
    bob_user = pwd.getpwnam(bob)
    notebook = home / "delaylab" / "notebooks" / LAB_NOTEBOOK
    assert notebook.exists()
    probe = run_as(bob_user, [hub["prefix"] / "bin" / "python", "-c", f"open({str(notebook)!r}).read()"], cwd="/")
    assert probe.returncode != 0 and "PermissionError" in probe.stderr, probe
    for connection in _connection_files(ada, [k["id"] for k in api(contexts[ada], hub, ada, "kernels")[1]]):
        info = json.loads(connection.read_text())
        assert info["transport"] == "ipc", info  # Unix sockets in the student's own runtime folder
        socket_path = f"{info['ip']}-{info['shell_port']}"
        probe = run_as(bob_user, [hub["prefix"] / "bin" / "python", "-c",
                                  f"import socket; socket.socket(socket.AF_UNIX).connect({socket_path!r})"], cwd="/")
        assert probe.returncode != 0 and "PermissionError" in probe.stderr, probe
    # ---- nothing requested from another host
    assert requests and all(u.startswith(origin + "/") or urlsplit(u).scheme in ("data", "blob") for u in requests), \
        sorted({u for u in requests if not u.startswith(origin + "/")})
    # ---- the install's compiled kernels and figures served every student
    shared = Path(hub["prefix"]) / "share" / "delaylab" / "cache"
    shared_problems = {p.name for p in shared.iterdir() if p.is_dir()}
    for name in STUDENTS:
        user = pwd.getpwnam(name)
        own = Path(user.pw_dir) / ".cache" / "delaylab"
        recomputed = {p.name for p in own.iterdir() if p.is_dir()} & shared_problems if own.is_dir() else set()
        assert not recomputed, (name, recomputed)
        out = run_as(user, [hub["prefix"] / "bin" / "python", "-P", "-m", "delaylab.kernels"], cwd=user.pw_dir)
        assert out.returncode == 0, out.stderr
        report[name]["numba"] = out.stdout.strip().splitlines()[-1]
        assert re.search(r": [1-9]\d* loaded from numba's cache, 0 compiled, in .*/\.cache/delaylab-kernels/", out.stdout), \
            out.stdout
    # ---- the killed browser's kernel is stopped after the grace; the student's JupyterLab kernel is not
    context = contexts[ada]
    kernels = wait_kernels(context, hub, ada, lambda ks: crashed not in {k["id"] for k in ks}, 240)
    gone_after = time.perf_counter() - crashed_at
    lab_kernels = kernels_of[ada] - {crashed}
    assert lab_kernels and lab_kernels <= {k["id"] for k in kernels}, (lab_kernels, kernels)
    log = hub["log"].read_text()
    # ---- the config's settings reached the hub and the students' servers (docs/hub.md, section 5)
    state = hub["base"] / "state"
    assert (state.stat().st_mode & 0o777) == 0o700 and (state / "jupyterhub.sqlite").is_file() \
        and (state / "jupyterhub_cookie_secret").is_file(), sorted(state.iterdir())
    assert not [p.name for p in hub["base"].iterdir() if p.name.startswith("jupyterhub")], sorted(hub["base"].iterdir())
    assert "Culling kernels with idle durations > 1800 seconds at 300 second intervals" in log, log[-3000:]
    servers = [pid for pid, argv in _processes() if any(a.endswith("/jupyterhub-singleuser") for a in argv)
               and Path(f"/proc/{pid}").stat().st_uid == pwd.getpwnam(ada).pw_uid]
    assert servers, "no server of " + ada
    server_env = dict(line.split("=", 1) for line in Path(f"/proc/{servers[0]}/environ").read_bytes().decode()
                      .split("\0") if "=" in line)
    assert server_env.get("DELAYLAB_SOLUTIONS") == "lecture" and server_env.get("DELAYLAB_CACHE_MAX") == "200M", \
        {k: v for k, v in server_env.items() if k.startswith("DELAYLAB_")}
    culled = re.findall(rf"stopping dashboard kernel {crashed}: no page connected for (\d+) s", log)
    assert culled and int(culled[0]) >= 45, log[-3000:]
    report["killed browser's dashboard kernel stopped after (s)"] = round(gone_after, 1)
    # ---- the dashboards' kernels were the servers' spare kernels (delaylab/serve/spare.py)
    spared = len(re.findall(r"delaylab: a page's kernel is the spare", log))
    started = len(re.findall(r"delaylab: a spare dashboard kernel started", log))
    report["dashboards whose kernel was a spare"] = f"{spared} of {2 * len(STUDENTS) + 1}"
    assert spared >= len(STUDENTS) and started >= spared, log[-3000:]
    # ---- our own server, the same notebook, right after its start
    own = own_server_first_figure(Path(hub["prefix"]), hub["base"] / "work" / "notebooks", browser,
                                  DASHBOARDS[ada][0])
    report["our own server: first dashboard right after its start"] = round(own, 2)
    for context in contexts.values():
        context.close()
    load = os.getloadavg()
    lines = [f"JupyterHub 6.1.1, two students (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})",
             f"set-up: {hub['seconds']}, the environment: {hub['built']['seconds']} s"]
    for key, value in report.items():
        lines.append(f"{key}: {value}")
    text = "\n".join(lines)
    print("\n" + text)
    REPORT.write_text(text + "\n")
    assert "Traceback (most recent call last)" not in log, log[-4000:]
    for name in STUDENTS:  # gross bounds only (the targets, on a quiet machine: warm <= 3 s)
        assert report[name]["first dashboard after the spawn"] < 120 and report[name]["second dashboard (warm)"] < 60


def _connection_files(user: str, kernel_ids=()) -> list:
    """The connection files of ``user``'s running kernels, read as root: from their command lines,
    and, for the kernels ``kernel_ids`` (a dashboard's kernel that was the server's spare has
    ``--spare`` on its command line instead, delaylab/serve/spare.py), in the same runtime folder."""
    import pwd

    uid = pwd.getpwnam(user).pw_uid
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if proc.stat().st_uid != uid:
                continue
            argv = (proc / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "-f" in argv and ("ipykernel_launcher" in argv or "delaylab.serve.kernel" in argv):
            found.append(Path(argv[argv.index("-f") + 1]))
    assert found, f"no kernel of {user} running"
    for kernel_id in kernel_ids:
        path = found[0].parent / f"kernel-{kernel_id}.json"
        if path.exists() and path not in found:
            found.append(path)
    return found


# ============================================================================ cheaper checks
def test_numba_s_cache_sub_folder_is_computed_as_numba_computes_it():
    from numba.core import caching

    from delaylab import kernels

    module = kernels.INSTALLED.parent / "index.py"
    locator = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator  # numba < 0.61
    assert kernels._numba_subfolder(kernels.INSTALLED.parent) == locator.get_suitable_cache_subpath(str(module))


def test_a_user_who_cannot_write_the_package_gets_a_seeded_copy(tmp_path, monkeypatch):
    from delaylab import kernels

    installed = tmp_path / "installed"
    installed.mkdir()
    for name in ("a.nbi", "a.1.nbc", "other.txt"):
        (installed / name).write_bytes(name.encode())
    mine = tmp_path / "mine"
    assert kernels.seed(mine, installed) == 2 and sorted(p.name for p in mine.iterdir()) == ["a.1.nbc", "a.nbi"]
    assert kernels.seed(mine, installed) == 0  # nothing newer
    (mine / "a.nbi").write_bytes(b"this user's own index")  # numba added a specialisation: kept
    assert kernels.seed(mine, installed) == 0 and (mine / "a.nbi").read_bytes() == b"this user's own index"
    later = time.time() + 60
    os.utime(installed / "a.nbi", (later, later))  # delaylab installed anew
    assert kernels.seed(mine, installed) == 1 and (mine / "a.nbi").read_bytes() == b"a.nbi"
    monkeypatch.setattr(kernels, "_writable", lambda folder: False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", "")
    assert kernels.cache_folder().parent == tmp_path / "xdg" / "delaylab-kernels"


def test_the_sweep_cache_reads_the_install_time_cache_and_never_writes_it(tmp_path, monkeypatch):
    import numpy as np

    import delaylab as dl
    from delaylab.cache import Cache

    shared = tmp_path / "shared"
    setting, policy = dl.Conversions([0.5, 0.3], dl.Geometric(mean=3), window=5), dl.UCB1()
    filled = dl.sweep(setting, policy, 50, runs=4, seed=1, cache=Cache(shared, shared=()))
    before = sorted((p, p.stat().st_mtime_ns) for p in shared.rglob("*.npz"))
    monkeypatch.setenv("DELAYLAB_SHARED_CACHE", str(shared))
    shared.chmod(0o555)
    try:
        own = tmp_path / "own"
        res = dl.sweep(setting, policy, 50, runs=6, seed=1, cache=own)  # 4 runs from the shared cache, 2 computed
        assert res.notes["cached_runs"] == 4 and res.notes["computed_runs"] == 2
        assert np.array_equal(res.regret["UCB1"][:4], filled.regret["UCB1"])
        again = dl.sweep(setting, policy, 50, runs=6, seed=1, cache=own)
        assert again.notes["computed_runs"] == 0
        assert sorted((p, p.stat().st_mtime_ns) for p in shared.rglob("*.npz")) == before  # never written nor touched
        info = dl.cache_info(own)
        assert info["shared"] == [{"folder": str(shared), "size": sum(p.stat().st_size for p, _ in before),
                                   "entries": len(before)}]
    finally:
        shared.chmod(0o755)
    monkeypatch.setenv("DELAYLAB_SHARED_CACHE", "")
    assert dl.sweep(setting, policy, 50, runs=6, seed=1, cache=tmp_path / "alone").notes["computed_runs"] == 6


def test_the_extension_stops_a_dashboard_kernel_whose_page_is_gone_and_no_other():
    import asyncio
    import concurrent.futures
    from datetime import datetime, timedelta, timezone

    from delaylab.serve.extension import DashboardCuller

    clock = [1000.0]

    class Kernel:
        def __init__(self):
            self.execution_state, self.last_activity = "idle", datetime.now(timezone.utc)

    class Manager:
        def __init__(self):
            self._kernels = {k: Kernel() for k in ("lab", "page", "never", "busy")}
            self._kernel_connections = {"lab": 0, "page": 1, "never": 0, "busy": 0}
            self._pending_kernels = {}
            self.stopped = []

        async def shutdown_kernel(self, kernel_id):
            self.stopped.append(kernel_id)
            del self._kernels[kernel_id]

    def run(coroutine):  # in a thread of its own: a browser test before may hold this thread's loop
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, coroutine).result()

    manager = Manager()
    culler = DashboardCuller(manager, clock=lambda: clock[0], cull_interval=0)
    assert (culler.cull_unconnected_timeout, culler.page_load_grace) == (45, 180)  # delaylab.serve's
    for kernel_id in ("page", "never", "busy"):  # "lab": a JupyterLab kernel, never recorded
        culler.add(kernel_id)
    manager._kernels["busy"].execution_state = "busy"
    assert run(culler.cull()) == []
    manager._kernel_connections["page"] = 0  # the tab crashed
    for kernel in manager._kernels.values():
        kernel.last_activity = datetime.now(timezone.utc) - timedelta(seconds=600)
    clock[0] += 44
    assert run(culler.cull()) == []  # within the grace
    clock[0] += 2
    assert run(culler.cull()) == ["page"]
    clock[0] += 140  # "never" connected: 186 s after its start
    assert run(culler.cull()) == ["never"]
    assert manager.stopped == ["page", "never"] and set(manager._kernels) == {"lab", "busy"}
    # a page that connects and is killed between two looks: heard through jupyter_server's notifications
    heard = []
    manager.notify_connect = manager.notify_disconnect = heard.append
    quick = DashboardCuller(manager, clock=lambda: clock[0], cull_interval=0)
    manager._kernels["quick"], manager._kernel_connections["quick"] = Kernel(), 0
    manager._kernels["quick"].last_activity -= timedelta(seconds=600)
    quick.add("quick")
    manager.notify_connect("quick")
    manager.notify_disconnect("quick")
    assert heard == ["quick", "quick"]  # jupyter_server's own methods still called
    clock[0] += 46
    assert run(quick.cull()) == ["quick"]  # 46 s after its page left, not page_load_grace
