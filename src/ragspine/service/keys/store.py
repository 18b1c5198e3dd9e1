"""API keys: random tokens stored only as hashes, each with a name and a sensitivity clearance.

The contract the app relies on is :class:`Caller` and :class:`Authenticator`; the workspace's
key store (:class:`KeyStore`, in ``DIR/service.db``) implements it, and so does
``ragspine.service.keys.pg_keys.PostgresKeyStore`` for a scale-out deployment.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
from dataclasses import dataclass
from typing import Protocol, Self

from ragspine.errors import UsageError
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.service_db import ServiceDb
from ragspine.storage.facts import utc_timestamp
from ragspine.storage.wal_watch import ReadCache, WalWatch
from ragspine.workspace import Workspace


@dataclass(frozen=True)
class Caller:
    """Who is asking: the key's name (never the key) and the highest level it may read."""

    name: str
    clearance: Sensitivity


class Authenticator(Protocol):
    """Turns a presented token into its caller; ``None`` for an unknown or revoked key."""

    def authenticate(self, token: str) -> Caller | None: ...


# The caller of a service run with --no-auth.
NO_AUTH_NAME = "no-auth"
# The 401 messages, the same on /v1 and on /mcp.
KEY_REQUIRED = "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key'"
KEY_UNKNOWN = "the API key is unknown or revoked"

# Tokens carry a recognisable prefix so a leaked one is easy to spot (and to grep for).
TOKEN_PREFIX = "rsk_"
# How much of a token is kept in clear for display: the prefix and 8 of its 43 random
# characters (48 of 256 bits), enough to tell keys apart, far too little to guess the rest.
_SHOWN = len(TOKEN_PREFIX) + 8
# Longer than any token we issue: nothing longer is hashed or looked up.
_MAX_TOKEN = 128
_NAME = re.compile(r"[\w.@-]{1,64}")


@dataclass(frozen=True)
class KeyInfo:
    """One key as ``keys list`` shows it: never the token, never its hash."""

    key_id: int
    name: str
    prefix: str
    clearance: Sensitivity
    created_at: str
    revoked_at: str = ""

    @property
    def active(self) -> bool:
        return not self.revoked_at


def token_digest(token: str) -> str:
    # A plain SHA-256 is enough here, unlike for passwords: a token holds 256 random bits, so
    # no dictionary or brute force over the hash can find it, and a fast hash keeps
    # authenticating each request cheap. Looking the digest up (instead of comparing tokens)
    # also means no comparison leaks, through its timing, how much of a token was right.
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class KeyStore:
    """The API keys of a workspace, kept in ``DIR/service.db``; an :class:`Authenticator`."""

    def __init__(self, workspace: Workspace) -> None:
        self._db = ServiceDb(workspace)
        # Each request presents a key: the answer is kept until service.db's next commit (a
        # key created or revoked here or in another process, or any job write), which its
        # mapped wal-index tells without a system call (``storage.wal_watch``). The mapping is
        # made once this thread's connection has opened the WAL, and dropped before it closes.
        self._db.connection()
        watch = WalWatch.open(self._db.path)
        self._known: ReadCache | None = None if watch is None else ReadCache(watch)

    def create(self, name: str, clearance: Sensitivity | str) -> tuple[KeyInfo, str]:
        """A new key: its description and the token, which exists nowhere else afterwards."""
        level, token = new_key(name, clearance)
        created = utc_timestamp()
        try:
            with self._db.transaction() as conn:
                cursor = conn.execute(
                    "INSERT INTO api_keys (name, prefix, token_hash, clearance, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (name, shown_prefix(token), token_digest(token), level.value, created),
                )
        except sqlite3.IntegrityError:
            raise name_taken(name) from None
        key_id = cursor.lastrowid
        assert key_id is not None  # an INSERT into a rowid table always sets it
        return KeyInfo(key_id, name, shown_prefix(token), level, created), token

    def list(self) -> list[KeyInfo]:
        """Every key, revoked ones included, oldest first."""
        rows = self._db.connection().execute(
            "SELECT key_id, name, prefix, clearance, created_at, revoked_at FROM api_keys "
            "ORDER BY key_id"
        )
        return [
            KeyInfo(key_id, name, prefix, Sensitivity(level), created, revoked)
            for key_id, name, prefix, level, created, revoked in rows
        ]

    def revoke(self, name_or_id: str | int) -> KeyInfo:
        """Revoke the active key of that name (or that id); it authenticates no more."""
        key = find_key(self.list(), str(name_or_id))
        if not key.active:
            raise UsageError(f"key {key.name!r} (id {key.key_id}) is already revoked")
        revoked = utc_timestamp()
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at = ''",
                (revoked, key.key_id),
            )
        return KeyInfo(key.key_id, key.name, key.prefix, key.clearance, key.created_at, revoked)

    def authenticate(self, token: str) -> Caller | None:
        if not presentable(token):
            return None
        digest = token_digest(token)  # the cache never holds a token either
        if self._known is None:
            return self._look_up(digest)
        return self._known.get(digest, lambda: self._look_up(digest))

    def _look_up(self, digest: str) -> Caller | None:
        row = (
            self._db.connection()
            .execute(
                "SELECT name, clearance FROM api_keys WHERE token_hash = ? AND revoked_at = ''",
                (digest,),
            )
            .fetchone()
        )
        return Caller(row[0], Sensitivity(row[1])) if row else None

    def close(self) -> None:
        if self._known is not None:
            self._known.close()
            self._known = None
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def new_key(name: str, clearance: Sensitivity | str) -> tuple[Sensitivity, str]:
    """Check a new key's name and clearance; the level and a fresh token."""
    if not _NAME.fullmatch(name) or name.isdigit():
        raise UsageError(
            f"key name {name!r} is not valid; use 1 to 64 letters, digits, '.', '_', '@' "
            "or '-', not only digits"
        )
    return _clearance(clearance), TOKEN_PREFIX + secrets.token_urlsafe(32)


def shown_prefix(token: str) -> str:
    """What is kept of a token in clear, for display."""
    return token[:_SHOWN]


def presentable(token: str) -> bool:
    """Whether a presented token can be one of ours (worth hashing and looking up)."""
    return token.startswith(TOKEN_PREFIX) and len(token) <= _MAX_TOKEN


def name_taken(name: str) -> UsageError:
    return UsageError(
        f"an active key is already named {name!r}; revoke it first or choose another name"
    )


def find_key(keys: list[KeyInfo], wanted: str) -> KeyInfo:
    """The key ``wanted`` names (a name: its active key, else its latest) or numbers."""
    # Names are never all digits, so a number is always an id.
    if wanted.isdigit():
        found = [k for k in keys if k.key_id == int(wanted)]
    else:
        named = [k for k in keys if k.name == wanted]
        found = [k for k in named if k.active] or named[-1:]
    if not found:
        raise UsageError(f"no key named or numbered {wanted!r}; see `ragspine keys list`")
    return found[0]


def _clearance(raw: Sensitivity | str) -> Sensitivity:
    try:
        return Sensitivity.parse(raw)
    except ValueError as err:
        raise UsageError(f"clearance: {err}") from None
