# JupyterHub's configuration for a course with delaylab on one machine (docs/hub.md): PAM login
# for the machine's users in one Unix group, each student's server started as that student
# (JupyterHub's default local-process spawner) from the students' environment that
# binder/postBuild built, the course's notebooks brought into each student's home by nbgitpuller,
# idle servers culled. tests/test_hub.py starts a real hub with this very file.
#
# Start it as root, from the folder that keeps the hub's state (its database and cookie secret):
#   cd /srv/jupyterhub && /opt/jupyterhub/bin/jupyterhub -f /path/to/this/jupyterhub_config.py
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
#: the course's repository (the one the course site's hub links name) and its branch
REPOSITORY = os.environ.get("DELAYLAB_HUB_REPOSITORY", "https://github.com/<owner>/delaylab")
BRANCH = os.environ.get("DELAYLAB_HUB_BRANCH", "main")
#: the folder of each student's home the repository is cloned into (the site's links use the
#: repository's name without ".git")
FOLDER = os.environ.get("DELAYLAB_HUB_FOLDER", "delaylab")
#: the Unix group whose members may log in (`groupadd students; usermod -aG students <user>`)
STUDENTS = os.environ.get("DELAYLAB_HUB_GROUP", "students")
#: where students reach the hub: put a TLS-terminating proxy in front (nginx, Caddy), or give
#: c.JupyterHub.ssl_cert / ssl_key
PUBLIC_URL = os.environ.get("DELAYLAB_HUB_URL", "http://127.0.0.1:8000")
#: configurable-http-proxy, from npm (`npm install --prefix /opt/jupyterhub configurable-http-proxy`)
PROXY = os.environ.get("DELAYLAB_HUB_PROXY", "/opt/jupyterhub/node_modules/.bin/configurable-http-proxy")
#: the hub's and the proxy's own addresses on this machine
HUB_API_URL = os.environ.get("DELAYLAB_HUB_API_URL", "http://127.0.0.1:8081")
PROXY_API_URL = os.environ.get("DELAYLAB_HUB_PROXY_API_URL", "http://127.0.0.1:8001")
#: a server nobody has used for this long is stopped (its student's files stay)
IDLE_SECONDS = int(os.environ.get("DELAYLAB_HUB_IDLE_SECONDS", "3600"))

# ------------------------------------------------------------------------ the hub and its proxy
c.JupyterHub.bind_url = PUBLIC_URL
c.JupyterHub.hub_bind_url = HUB_API_URL
c.ConfigurableHTTPProxy.command = [PROXY]
c.ConfigurableHTTPProxy.api_url = PROXY_API_URL

# ------------------------------------------------------------------------ who may log in
# PAM: the machine's own accounts and passwords
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_groups = {STUDENTS}
# c.Authenticator.admin_users = {"lecturer"}  # may open any student's server from the hub's admin page

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
    # graded homework: no solution in any notebook (README, "Teaching with delaylab")
    # "DELAYLAB_SOLUTIONS": "off",
}
# the dashboards' kernels (delaylab's server extension): at most 3 GiB of address space each
c.Spawner.args = ["--DashboardKernelSpecManager.memory_mb=3072"]


def private_home(spawner):
    """Each student's home readable by the student alone: `useradd -m` makes homes 0755, and a
    classmate could read the saved answers (and the kernels' connection files) in it."""
    home = pwd.getpwnam(spawner.user.name).pw_dir
    if os.path.isdir(home):
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
# within a minute, the student's JupyterLab kernels live as long as their server
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={IDLE_SECONDS}"],
}]
