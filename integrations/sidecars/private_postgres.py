"""
A private PostgreSQL for a sidecar whose library needs one (Nemori): the machine's own PostgreSQL
binaries (Debian: `apt-get install postgresql-15`, found under /usr/lib/postgresql/<version>/bin or on
PATH), a cluster made with initdb under the sidecar's state folder, listening on a free port on
127.0.0.1 only (no Unix socket), trust authentication for its one local user. Started when the sidecar
starts, stopped when it stops (a sidecar killed outright leaves it running: the next start on the
same folder finds it by its postmaster.pid and uses it).

PostgreSQL refuses to run as root: under root the cluster belongs to the `postgres` user (made by
Debian's package) and its commands run through `runuser`; the state folder must then be reachable
by that user (a folder under /root is not: give `--state` elsewhere, or DATABASE_URL of your own).
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
from typing import Optional

USER = "nemori"


def _bin_dir(explicit: Optional[str]) -> str:
    if explicit:
        return explicit
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if debian:
        return os.path.dirname(debian[-1])
    found = shutil.which("pg_ctl")
    if found:
        return os.path.dirname(found)
    raise RuntimeError("no PostgreSQL found (pg_ctl): install it (Debian: apt-get install postgresql-15) or give DATABASE_URL")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivatePostgres:
    def __init__(self, root: str, bin_dir: Optional[str] = None, database: str = "nemori"):
        self.root = os.path.abspath(root)
        self.data = os.path.join(self.root, "data")
        self.log = os.path.join(self.root, "postgres.log")
        self.bin = _bin_dir(bin_dir)
        self.database = database
        self.port = 0
        self.started = False
        self.as_user = "postgres" if os.geteuid() == 0 else None

    def _run(self, tool: str, *args: str) -> subprocess.CompletedProcess:
        cmd = [os.path.join(self.bin, tool), *args]
        if self.as_user:
            cmd = ["runuser", "-u", self.as_user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True)

    def _check(self, r: subprocess.CompletedProcess, what: str) -> None:
        if r.returncode != 0:
            raise RuntimeError(f"PostgreSQL {what} failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-2000:]} (log: {self.log})")

    def _own(self) -> None:
        """Under root: the cluster's folder belongs to the postgres user, who must reach it."""
        if not self.as_user:
            return
        pw = pwd.getpwnam(self.as_user)
        for d, _, files in os.walk(self.root):
            os.chown(d, pw.pw_uid, pw.pw_gid)
            for f in files:
                os.chown(os.path.join(d, f), pw.pw_uid, pw.pw_gid)
        r = subprocess.run(["runuser", "-u", self.as_user, "--", "test", "-w", self.root])
        if r.returncode != 0:
            raise RuntimeError(
                f"the PostgreSQL user '{self.as_user}' cannot reach {self.root} (a parent folder is closed to it): "
                "start the sidecar with --state in a folder it can reach, or give DATABASE_URL"
            )

    def _running_port(self) -> Optional[int]:
        """The port of a server already running on this cluster (left by a sidecar killed outright)."""
        pid_file = os.path.join(self.data, "postmaster.pid")
        if not os.path.exists(pid_file) or self._run("pg_ctl", "status", "-D", self.data).returncode != 0:
            return None
        with open(pid_file, encoding="utf-8") as f:
            lines = f.read().split("\n")
        return int(lines[3]) if len(lines) > 3 and lines[3].strip().isdigit() else None

    def start(self) -> str:
        """Starts (or finds running) the cluster; returns its DSN."""
        os.makedirs(self.root, exist_ok=True)
        self._own()
        if not os.path.exists(os.path.join(self.data, "PG_VERSION")):
            self._check(self._run("initdb", "-D", self.data, "-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C"), "initdb")
        running = self._running_port()
        if running:
            self.port = running
        else:
            self.port = _free_port()
            opts = f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories='' -c timezone=UTC"
            self._check(self._run("pg_ctl", "start", "-w", "-t", "60", "-D", self.data, "-l", self.log, "-o", opts), "start")
            self.started = True
        r = self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", "postgres", "-tAc", f"SELECT 1 FROM pg_database WHERE datname='{self.database}'")
        self._check(r, "psql")
        if r.stdout.strip() != "1":
            self._check(self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, self.database), "createdb")
        return self.dsn

    @property
    def dsn(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{self.database}"

    def stop(self) -> None:
        if self.port and os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self._run("pg_ctl", "stop", "-D", self.data, "-m", "fast", "-w")
        self.started = False
