"""A lock file held for as long as its holder runs: what the holder owns (the jobs an
in-process queue claimed, an RQ worker's scratch folder) is an orphan once it is free."""

from __future__ import annotations

import fcntl
import os
import re
import uuid
from pathlib import Path


class OwnerLock:
    """A lock file ``<folder>/<name>.lock`` held for as long as its holder runs: while it is
    held, what the holder owns (the jobs a queue claimed, a worker's scratch folder) is its
    own; once free (the process ended, even by ``kill -9``), it is an orphan."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(exist_ok=True)
        self.folder = folder
        self.name = uuid.uuid4().hex
        self._fd: int | None = os.open(self._path(self.name), os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def is_alive(self, owner: str) -> bool:
        if owner == self.name and self._fd is not None:
            return True
        if not re.fullmatch(r"[0-9a-f]{32}", owner):
            return False
        try:
            fd = os.open(self._path(owner), os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        self._path(owner).unlink(missing_ok=True)
        return False

    def others_alive(self) -> bool:
        """Whether another holder of a lock in this folder still runs."""
        return any(
            self.is_alive(lock.stem)
            for lock in self.folder.glob("*.lock")
            if lock.stem != self.name
        )

    def release(self) -> None:
        if self._fd is not None:
            self._path(self.name).unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None

    def _path(self, owner: str) -> Path:
        return self.folder / f"{owner}.lock"
