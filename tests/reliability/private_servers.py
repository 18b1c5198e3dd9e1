"""A PostgreSQL cluster and a Redis server of the test's own, to stop, kill and restart.

The shared servers of ``tests/postgres_server.py`` and ``tests/redis_server.py`` serve every
other test (and other engineers' runs): a fault test must never restart them. These start a
fresh cluster (``initdb``, trust authentication, a free port on 127.0.0.1, its socket in its
own folder) and a Redis server without persistence, so a restart of Redis loses its data as
a crashed Redis without AOF does. Under root, PostgreSQL runs as the ``postgres`` user (it
refuses to run as root). When the binaries are missing the tests skip on a laptop and fail
under ``CI=true``, as the shared servers' fixtures do.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.scaleout.processes import free_port
from tests.skip_guard import ci_enabled

PG_BINARIES = ("initdb", "pg_ctl", "postgres")
START_SECONDS = 60.0


def require(*binaries: str) -> None:
    """Skip (fail under CI) unless every binary is on the PATH."""
    missing = [name for name in binaries if shutil.which(name) is None]
    if not missing:
        return
    problem = f"{', '.join(missing)} not on the PATH; the fault tests start servers of their own"
    if ci_enabled():
        pytest.fail(f"{problem}; CI must run them", pytrace=False)
    pytest.skip(problem)


def _until(what: str, done: Callable[[], bool], seconds: float = START_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {seconds} s")
        time.sleep(0.1)


class PrivatePostgres:
    """A PostgreSQL cluster in a temporary folder, on a free port, as long as the test runs."""

    def __init__(self) -> None:
        require(*PG_BINARIES)
        self.port = free_port()
        self._user = "postgres" if os.geteuid() == 0 else None
        self.folder = Path(tempfile.mkdtemp(prefix="ragspine-fault-pg-"))
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self.data = self.folder / "data"
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        subprocess.run(
            args,
            check=True,
            capture_output=True,
            user=self._user,
            cwd=self.folder,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-o", options, "-w",
            "start",
        )  # fmt: skip
        _until("PostgreSQL answers", self.answers)

    def stop(self, mode: str = "fast") -> None:
        """``fast`` ends every session (what an operator's restart does); ``immediate`` is a
        crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def answers(self) -> bool:
        import psycopg

        try:
            psycopg.connect(self.url, connect_timeout=2).close()
        except psycopg.Error:
            return False
        return True

    def close(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


class PrivateRedis:
    """A Redis server without persistence on a free port: a restart empties it."""

    def __init__(self) -> None:
        require("redis-server")
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="ragspine-fault-redis-"))
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        with (self.folder / "log").open("ab") as log:
            self._proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        _until("Redis answers", self.answers)

    def kill(self) -> None:
        """SIGKILL: the server and everything it held are gone."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGKILL)
            self._proc.wait()
            self._proc = None

    def answers(self) -> bool:
        import redis

        try:
            with redis.Redis.from_url(self.url, socket_connect_timeout=1) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)
