"""Where a student's code runs while it is graded: a sandbox made with bubblewrap.

Every process that runs a student's code (the notebook's kernel, the process that calls an
implemented function) is started by :meth:`Sandbox.command`:

* **its own throwaway folder** is the one place it can write; it sees the system's ``/usr``, the
  grading environment's Python and, for a kernel, delaylab's package, all read-only, and nothing
  else: not the course folder (gradebook, configuration, other submissions), not the home folders,
  not the repository;
* **no network**: a network namespace of its own, with only its own loopback;
* **its own process and IPC namespaces**: it cannot see or signal the grader or another sandbox,
  and everything in it dies with it (``--die-with-parent``, and a killed namespace kills all);
* **limits** (:class:`Limits`, ``setrlimit``): address space (the memory cap), CPU seconds, the
  size of any file it writes, the number of processes, open files; no core dumps;
* **an unprivileged user**: run as root (CI, a course server), the grader makes the mounts and
  then drops to a dedicated system user, :data:`USER` (created on first use), with
  ``no_new_privs``; run as an ordinary user (a lecturer's laptop), bubblewrap puts the process in
  a user namespace with no capabilities, and the mounts above are all it can reach.

There is no way to grade without a sandbox: where bubblewrap is missing or cannot create its
namespaces, :meth:`Sandbox.for_this_machine` raises :class:`Unavailable` with what to install or
change. This module uses only the standard library, so that ``python3 sandbox.py --check`` runs
with any Python (``tests/test_grading.py`` runs it as an unprivileged user).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

#: the system user that runs student code when the grader runs as root
USER = "delaylab-grader"

#: what a sandboxed process may do: (rlimit name, Limits field)
_RLIMITS = (("RLIMIT_AS", "memory"), ("RLIMIT_CPU", "cpu"), ("RLIMIT_FSIZE", "file_size"),
            ("RLIMIT_NPROC", "processes"), ("RLIMIT_NOFILE", "open_files"), ("RLIMIT_CORE", "core"))

#: run inside the sandbox (``python -I -S -c``) before the student's process: the limits, then (as
#: root) the chown of the files the grader wrote for it and the drop to the sandbox's user, then
#: no_new_privs, then exec
_LAUNCHER = r"""
import base64, ctypes, json, os, resource, sys
spec = json.loads(base64.b64decode(sys.argv[1]))
for name, value in spec["limits"].items():
    resource.setrlimit(getattr(resource, name), (value, value))
if spec.get("uid") is not None:
    for path in spec.get("chown", []):
        os.chown(path, spec["uid"], spec["gid"])
    os.setgroups([])
    os.setgid(spec["gid"])
    os.setuid(spec["uid"])
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SystemExit("delaylab sandbox: could not drop root")
if ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
    raise SystemExit("delaylab sandbox: could not set no_new_privs")
os.execve(sys.argv[2], sys.argv[2:], os.environ)
"""


class Unavailable(RuntimeError):
    """No sandbox can be made on this machine; the message says what to install or change."""


@dataclass(frozen=True)
class Limits:
    """What one sandboxed process may use (each is an rlimit, inherited by its children).

    ``memory`` is its address space in bytes (a numpy array beyond it raises MemoryError);
    ``cpu`` its CPU seconds, a backstop behind the grader's wall-clock limits; ``file_size`` the
    largest file it may write; ``processes`` the processes (and threads) of the sandbox's user
    (or, without root, the number it may start besides those the user already runs)."""

    memory: int = 4 << 30
    cpu: int = 1800
    file_size: int = 256 << 20
    processes: int = 256
    open_files: int = 1024
    core: int = 0


INSTALL_HINT = ("install bubblewrap (Debian and Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install "
                "bubblewrap; Arch: sudo pacman -S bubblewrap)")


@dataclass
class Sandbox:
    """How to start a process in a sandbox on this machine (see the module's docstring).

    ``uid``/``gid``: the dedicated user the process runs as (when the grader is root), or None (the
    grader's own user, inside a user namespace). ``python``: the interpreter of the grading
    environment; its prefixes are mounted read-only."""

    bwrap: str
    uid: int | None = None
    gid: int | None = None
    limits: Limits = field(default_factory=Limits)
    python: str = sys.executable
    _paths: list | None = field(default=None, repr=False)

    # ---------------------------------------------------------------- finding one
    @classmethod
    def for_this_machine(cls, limits: Limits | None = None, *, user: str = USER, python: str | None = None,
                         check: bool = True) -> "Sandbox":
        """The sandbox of this machine: as root, the dedicated ``user`` (created if missing);
        otherwise the caller's user in a user namespace. :class:`Unavailable` if bubblewrap is
        missing or cannot create its namespaces (``check``: a real sandboxed process is started)."""
        if not sys.platform.startswith("linux"):
            raise Unavailable("delaylab grades student code only inside a Linux sandbox (bubblewrap), and this is "
                              f"{sys.platform}: grade on a Linux machine or in a Linux virtual machine, where you "
                              f"{INSTALL_HINT}.")
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise Unavailable(f"delaylab grades student code only inside a sandbox, and bubblewrap (bwrap) is not "
                              f"installed: {INSTALL_HINT}. Nothing was graded.")
        uid = gid = None
        if os.geteuid() == 0:
            uid, gid = system_user(user)
        box = cls(bwrap=bwrap, uid=uid, gid=gid, limits=limits or Limits(), python=python or sys.executable)
        if check:
            box.check()
        return box

    @property
    def as_root(self) -> bool:
        return self.uid is not None

    def describe(self) -> str:
        """One line: how student code runs here."""
        who = (f"as the unprivileged user {user_name(self.uid)} (uid {self.uid})" if self.as_root else
               f"as your user (uid {os.getuid()}) in a user namespace without capabilities")
        return (f"sandbox: bubblewrap, {who}; no network; memory {self.limits.memory >> 20} MiB, "
                f"files up to {self.limits.file_size >> 20} MiB, {self.limits.processes} processes")

    # ---------------------------------------------------------------- folders
    def folder(self, path) -> Path:
        """Create ``path`` (mode 0700) for a sandboxed process: owned by the sandbox's user."""
        path = Path(path)
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.give(path)
        return path

    def give(self, path) -> None:
        """Hand ``path`` (a folder: everything in it) to the sandbox's user (as root; else nothing to do)."""
        if not self.as_root:
            return
        path = Path(path)
        os.chown(path, self.uid, self.gid)
        if path.is_dir():
            for parent, dirs, files in os.walk(path):
                for name in dirs + files:
                    os.chown(os.path.join(parent, name), self.uid, self.gid, follow_symlinks=False)

    # ---------------------------------------------------------------- the command
    def python_paths(self) -> list[str]:
        """The folders the grading environment's Python needs, read-only (its prefixes)."""
        if self._paths is None:
            self._paths = self._find_python_paths()
        return list(self._paths)

    def _find_python_paths(self) -> list[str]:
        exe = os.path.realpath(self.python)
        found = subprocess.run([self.python, "-I", "-c",
                                "import sys; print(sys.prefix); print(sys.base_prefix); print(sys.exec_prefix); "
                                "print(sys.base_exec_prefix)"], capture_output=True, text=True, check=True)
        paths = [p for p in found.stdout.split("\n") if p] + [str(Path(exe).parent.parent),
                                                                 str(Path(os.path.abspath(self.python)).parent.parent)]
        return _outermost(p for p in paths if not _under(p, "/usr"))

    def command(self, argv, *, workdir, env: dict, read_only=(), overlays=None, hidden=(), chown=(),
                cwd=None) -> list[str]:
        """``argv`` (its first item the program, e.g. :attr:`python`) as a sandboxed command.

        ``workdir``: the one writable folder (also its working directory, with ``HOME`` and
        ``TMPDIR`` inside); ``env``: its whole environment; ``read_only``: more folders it may read
        (at the same paths); ``overlays``: ``{path: folder}`` mounted read-only over ``path`` (what
        it sees there instead); ``hidden``: paths replaced by an empty folder; ``chown``: files the
        grader wrote for it (handed to its user before it starts); ``cwd``: where it starts (a
        folder inside ``workdir``; default ``workdir``)."""
        workdir = os.path.abspath(workdir)
        mounts = [("--ro-bind", p, p) for p in [*self.python_paths(), *map(str, read_only)]]
        mounts += [("--ro-bind", str(src), str(dest)) for dest, src in (overlays or {}).items()]
        mounts += [("--tmpfs", None, str(p)) for p in hidden]
        mounts += [("--bind", workdir, workdir)]
        args = [self.bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                "--die-with-parent", "--new-session", "--hostname", "grading"]
        if not self.as_root:
            args += ["--unshare-user", "--disable-userns"]
        args += ["--ro-bind", "/usr", "/usr"]
        for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        args += ["--perms", "0755", "--dir", "/etc"]
        for f in ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf", "/etc/mime.types"):
            if os.path.exists(f):
                args += ["--ro-bind", f, f]
        args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(64 << 20), "--tmpfs", "/tmp"]
        made = {"/", "/usr", "/tmp", "/proc", "/dev", "/etc"}
        placed: list[str] = []
        for kind, src, dest in sorted(mounts, key=lambda m: (m[2].count("/"), m[2])):
            for parent in reversed(Path(dest).parents):
                p = str(parent)
                if p in made or any(_under(p, q) for q in placed):
                    continue
                args += ["--perms", "0755", "--dir", p]  # (bwrap would make it 0700: unreadable once not root)
                made.add(p)
            args += [kind, dest] if src is None else [kind, src, dest]
            placed.append(dest)
            made.add(dest)
        full_env = {"HOME": os.path.join(workdir, "home"), "TMPDIR": os.path.join(workdir, "tmp"),
                    "PATH": f"{Path(self.python).parent}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                    "USER": "student", "LOGNAME": "student", **env}
        args += ["--chdir", os.path.abspath(cwd or workdir), "--clearenv"]
        for key, value in full_env.items():
            args += ["--setenv", key, str(value)]
        spec = {"limits": self._rlimits(), "uid": self.uid, "gid": self.gid, "chown": [str(p) for p in chown]}
        encoded = base64.b64encode(json.dumps(spec).encode()).decode()
        return [*args, "--", self.python, "-I", "-S", "-c", _LAUNCHER, encoded, *map(str, argv)]

    def _rlimits(self) -> dict:
        values = asdict(self.limits)
        out = {name: int(values[key]) for name, key in _RLIMITS}
        if not self.as_root:  # RLIMIT_NPROC counts every task of the real user: add those already running
            out["RLIMIT_NPROC"] += tasks_of(os.getuid())
        return out

    def run(self, argv, *, workdir, env=None, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
        """Run a sandboxed command to its end (killed after ``timeout`` seconds: returncode None)."""
        cmd = self.command(argv, workdir=workdir, env=env or {}, **kw)
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = proc.communicate(timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            code = None
        return subprocess.CompletedProcess(cmd, code, out.decode(errors="replace"), err.decode(errors="replace"))

    # ---------------------------------------------------------------- the check
    def check(self) -> None:
        """Start one sandboxed process that must run Python, see only its folder, reach no network
        and run unprivileged; :class:`Unavailable` (with bubblewrap's own error) if it cannot."""
        import tempfile

        base = Path(tempfile.mkdtemp(prefix="dlg-check-"))
        try:
            os.chmod(base, 0o711)
            work = self.folder(base / "w")
            result = self.run([self.python, "-I", "-c", CHECK], workdir=work, timeout=60)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        if result.returncode != 0 or result.stdout.strip() != "sandboxed":
            detail = (result.stderr.strip() or result.stdout.strip() or "no output").splitlines()[-3:]
            hint = ("the grading environment must be readable by that user: a Python installed in a folder only root "
                    "can open (such as /root/.pyenv) is mounted for it, but check its permissions"
                    if self.as_root else
                    "bubblewrap needs unprivileged user namespaces: sudo sysctl kernel.unprivileged_userns_clone=1 "
                    "(Debian), or on Ubuntu 24.04 and later use the distribution's bwrap (its AppArmor profile "
                    "allows it), or run the grader as root")
            raise Unavailable("delaylab could not start a sandboxed process, so nothing was graded "
                              f"({' / '.join(detail)}); {hint}.")


#: what :meth:`Sandbox.check` runs inside the sandbox (standard library only)
CHECK = r"""
import os, socket, sys
home = os.path.expanduser("~")
assert os.getuid() != 0 and os.geteuid() != 0, "runs as root"
assert not os.path.exists("/etc/passwd"), "sees /etc/passwd"
open(os.path.join(os.getcwd(), "probe"), "w").write("x")
try:
    open("/usr/sandbox-probe", "w")
    raise AssertionError("can write to /usr")
except OSError:
    pass
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    raise AssertionError("reaches the network")
except OSError:
    pass
print("sandboxed")
"""


def system_user(name: str = USER) -> tuple[int, int]:
    """uid and gid of the system user ``name``, created (``useradd --system``, no home, no login
    shell) if it does not exist yet. Needs root."""
    import pwd

    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        if not os.path.exists(useradd):
            raise Unavailable(f"the grader runs student code as the user {name!r}, which does not exist, and this "
                              "machine has no useradd to create it: create it yourself (a system user without a "
                              "home or a login shell)") from None
        made = subprocess.run([useradd, "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell",
                               "/usr/sbin/nologin", "--user-group", name], capture_output=True, text=True)
        if made.returncode != 0:
            raise Unavailable(f"could not create the user {name!r} that runs student code: "
                              f"{made.stderr.strip()}") from None
        entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise Unavailable(f"the user {name!r} is root: student code must run as an unprivileged user")
    return entry.pw_uid, entry.pw_gid


def user_name(uid) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def tasks_of(uid: int) -> int:
    """How many tasks (threads) the real user ``uid`` runs now (what RLIMIT_NPROC counts)."""
    n = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            n += int(fields.get("Threads", "1").strip())
    return n


def _under(path: str, folder: str) -> bool:
    path, folder = os.path.normpath(path), os.path.normpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _outermost(paths) -> list[str]:
    """The paths, without those inside another one, in order."""
    out: list[str] = []
    for p in sorted({os.path.normpath(x) for x in paths}, key=len):
        if not any(_under(p, q) for q in out):
            out.append(p)
    return out


def main(argv=None) -> int:
    """``python3 sandbox.py --check``: make this machine's sandbox and run its check."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["--check"]:
        print(__doc__)
        return 2
    try:
        box = Sandbox.for_this_machine()
    except Unavailable as exc:
        print(f"[delaylab] {exc}", file=sys.stderr)
        return 1
    print(f"[delaylab] {box.describe()}: checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
