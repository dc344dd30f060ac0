# JupyterHub's configuration for a course with delaylab on one machine (docs/hub.md): PAM login
# for the machine's users in one Unix group, each student's server started as that student
# (JupyterHub's default local-process spawner) from the students' environment that
# binder/postBuild built, the course's notebooks brought into each student's home by nbgitpuller,
# idle kernels and idle servers culled. tests/test_hub.py starts a real hub with this very file.
#
# Start it as root (from any folder: its state lives in STATE below):
#   /opt/jupyterhub/bin/jupyterhub -f /srv/jupyterhub/jupyterhub_config.py
#
# What a course changes is in the block below; each value can also come from the environment
# variable named beside it (the hub test sets them to its own folders and free ports).
import os
import pwd
import sys
from urllib.parse import quote

c = get_config()  # noqa: F821  (JupyterHub's configuration object, given to this file)

# ------------------------------------------------------------------------ what a course changes
#: the students' environment: a Python environment readable by every student, with delaylab,
#: nbgitpuller and jupyterhub (its single-user server) installed by binder/postBuild (docs/hub.md)
ENVIRONMENT = os.environ.get("DELAYLAB_HUB_ENV", "/opt/delaylab")
#: the course's repository (the one the course site's hub links name) and its branch: every
#: student's server clones it anonymously, over http(s) (docs/hub.md, "The course's repository")
REPOSITORY = os.environ.get("DELAYLAB_HUB_REPOSITORY", "https://github.com/<owner>/delaylab")
BRANCH = os.environ.get("DELAYLAB_HUB_BRANCH", "main")
#: the folder of each student's home the repository is cloned into (the site's links use the
#: repository's name without ".git")
FOLDER = os.environ.get("DELAYLAB_HUB_FOLDER", "delaylab")
#: the Unix group whose members may log in (`groupadd students; usermod -aG students <user>`)
STUDENTS = os.environ.get("DELAYLAB_HUB_GROUP", "students")
#: the hub's administrators (comma-separated user names): the hub's admin page, stopping any
#: student's server; they may log in whether or not they are in STUDENTS
ADMINS = {name.strip() for name in os.environ.get("DELAYLAB_HUB_ADMINS", "").split(",") if name.strip()}
#: the address configurable-http-proxy listens on. Behind a TLS proxy (nginx, Caddy): a loopback
#: address it forwards to; the students' address (https://hub.example.edu) goes into the TLS
#: proxy and the course site's `jupyterhub = …`, never here
BIND_URL = os.environ.get("DELAYLAB_HUB_BIND_URL", "http://127.0.0.1:8000")
#: configurable-http-proxy, from npm (`npm install --prefix /opt/jupyterhub configurable-http-proxy@5`)
PROXY = os.environ.get("DELAYLAB_HUB_PROXY", "/opt/jupyterhub/node_modules/.bin/configurable-http-proxy")
#: the hub's and the proxy's own APIs: loopback only; change a port if it is taken
HUB_API_URL = os.environ.get("DELAYLAB_HUB_API_URL", "http://127.0.0.1:8081")
PROXY_API_URL = os.environ.get("DELAYLAB_HUB_PROXY_API_URL", "http://127.0.0.1:8001")
#: the hub's state (its database, cookie secret, the proxy's pid file): made private to root
STATE = os.environ.get("DELAYLAB_HUB_STATE", "/srv/jupyterhub")
#: which solutions the students' notebooks and dashboards show (delaylab/exercises/solutions.py):
#: "lecture" = the exercises done in the lectures, none of any week's graded homework; "off" =
#: none; "all" = every one (self-study); or a list such as "1.1,1.3". A courtesy, not a lock
SOLUTIONS = os.environ.get("DELAYLAB_HUB_SOLUTIONS", "lecture")
#: the size cap of each student's own sweep cache (~/.cache/delaylab; disposable)
CACHE_MAX = os.environ.get("DELAYLAB_HUB_CACHE_MAX", "200M")
#: a JupyterLab kernel with no tab connected and idle this long is stopped (0: never)
KERNEL_IDLE_SECONDS = int(os.environ.get("DELAYLAB_HUB_KERNEL_IDLE_SECONDS", "1800"))
#: a server with no activity this long is stopped, its kernels' state lost (the student's files
#: stay). Reading or scrolling an open tab is not activity: give a course's sessions room
IDLE_SECONDS = int(os.environ.get("DELAYLAB_HUB_IDLE_SECONDS", "7200"))

# ------------------------------------------------------------------------ the hub and its proxy
c.JupyterHub.bind_url = BIND_URL
c.JupyterHub.hub_bind_url = HUB_API_URL
c.ConfigurableHTTPProxy.command = [PROXY]
c.ConfigurableHTTPProxy.api_url = PROXY_API_URL
# the hub's state in one folder that only root can read (JupyterHub writes its database 0644:
# in a folder students can enter, any student's terminal could copy it), whatever folder the hub
# was started from (a relative path would give a new, empty database)
os.makedirs(STATE, mode=0o700, exist_ok=True)
os.chmod(STATE, 0o700)
c.JupyterHub.db_url = "sqlite:///" + os.path.join(os.path.abspath(STATE), "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "jupyterhub-proxy.pid")

# ------------------------------------------------------------------------ who may log in
# PAM: the machine's own accounts and passwords
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_groups = {STUDENTS}
c.Authenticator.admin_users = ADMINS
c.Authenticator.allowed_users = set(ADMINS)  # JupyterHub admits admins only through allowed_users

# ------------------------------------------------------------------------ each student's server
# started as the student (the default local-process spawner), from the students' environment
c.Spawner.cmd = [os.path.join(ENVIRONMENT, "bin", "jupyterhub-singleuser")]
c.Spawner.environment = {
    # the environment's commands first (a terminal's python and pip, the kernels' Python)
    "PATH": os.pathsep.join([os.path.join(ENVIRONMENT, "bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
    # each student's own numbers in the exercises, without typing an id
    "DELAYLAB_STUDENT": lambda spawner: spawner.user.name,
    # the notebooks' figures at their defaults, in JupyterLab too, from the environment's
    # install-time cache (read-only) and then from the student's own (~/.cache/delaylab)
    "DELAYLAB_DEFAULT_CACHE": "~/.cache/delaylab",
    # the student's own cache: least recently used entries deleted beyond this size
    "DELAYLAB_CACHE_MAX": CACHE_MAX,
    # no graded homework's solution on the students' servers (README, "Teaching with delaylab")
    "DELAYLAB_SOLUTIONS": SOLUTIONS,
}
c.Spawner.args = [
    # the dashboards' kernels (delaylab's server extension): at most 3 GiB of address space each
    "--DashboardKernelSpecManager.memory_mb=3072",
    # JupyterLab's kernels: one with no tab connected and idle for KERNEL_IDLE_SECONDS is stopped
    # (an open notebook's kernel is kept; a busy one too)
    f"--MappingKernelManager.cull_idle_timeout={KERNEL_IDLE_SECONDS}",
    "--MappingKernelManager.cull_interval=300",
]
# a lecture hall logging in at once on one machine: spawns of 5-20 s each, queued (JupyterHub's
# defaults, 60 s and 30 s, fail a student whose server is slow to answer)
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 180


def private_home(spawner):
    """Each student's home readable by the student alone, made if missing: `useradd -m` makes
    homes 0755 (a classmate could read the saved answers and the kernels' connection files in
    it), and a directory account (LDAP, SSSD) may have none yet (JupyterHub opens no PAM
    session, so pam_mkhomedir does not run, and the server starts in the home)."""
    account = pwd.getpwnam(spawner.user.name)
    home = account.pw_dir
    if not os.path.isdir(home):
        os.mkdir(home, 0o700)
        os.chown(home, account.pw_uid, account.pw_gid)
    os.chmod(home, 0o700)


c.Spawner.pre_spawn_hook = private_home

# the first page after a login: nbgitpuller clones the course's repository into ~/FOLDER (and,
# on later logins, merges the repository's changes without touching the student's own edits),
# then opens the index notebook in JupyterLab; the course site's links open any notebook, in
# JupyterLab or as a dashboard, the same way
c.Spawner.default_url = (f"/git-pull?repo={quote(REPOSITORY, safe='')}&branch={quote(BRANCH)}"
                         f"&targetpath={quote(FOLDER)}"
                         f"&urlpath={quote(f'lab/tree/{FOLDER}/notebooks/00_index.ipynb', safe='')}")

# ------------------------------------------------------------------------ idle servers
# jupyterhub-idle-culler (PyPI, installed beside the hub) stops the servers of students who left
# without logging out; a dashboard's kernel whose page is gone is stopped by delaylab's extension
# within a minute, a JupyterLab kernel without a tab after KERNEL_IDLE_SECONDS
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={IDLE_SECONDS}"],
}]
