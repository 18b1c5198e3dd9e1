"""Which ingestion workers are alive, and the duties a worker process keeps in a thread.

RQ's own worker registration cannot tell an API process whether a worker runs: an idle RQ
worker refreshes it only between its blocking dequeues (minutes apart), and a Redis that
restarts empty loses it for good — the workers go on taking jobs but never register again.
So each ``ragspine worker`` writes a heartbeat of its own: every ``HEARTBEAT_SECONDS`` a
background thread of the worker's main process sets the worker's score, Redis's own clock,
in the sorted set ``ragspine:heartbeats:<queue>``. A worker is live while its last beat is
at most ``LIVE_SECONDS`` old (by the same clock, so machines' clocks never matter); a
worker that stops removes itself, one killed stops beating. The set is written again after
Redis restarts, and the same thread adds the worker back to RQ's registration, which RQ's
registry maintenance reads.

The thread also does the work of RQ's scheduler (moving a retried job from its delay into
the queue when the delay has passed), which RQ would run in a forked child process that a
SIGKILL of the worker leaves orphaned. One worker of a queue schedules, holding RQ's lock;
the lock of a worker that stopped beating is freed for another at once, not a minute later
when RQ's time to live would free it. The child that runs each job (RQ's work horse) is
made to die with the worker on Linux, so a killed worker leaves no process behind.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
from typing import Any

import redis
from rq import SimpleWorker, Worker, worker_registration
from rq.job import Job
from rq.queue import Queue
from rq.scheduler import RQScheduler
from rq.scripts import release_lock

_log = logging.getLogger(__name__)

# How often a worker beats, and how old its last beat may be for it to count as live: a
# worker killed (or cut off from Redis) leaves `/readyz` within this bound.
HEARTBEAT_SECONDS = 2.0
LIVE_SECONDS = 10.0
# A deployment whose workers are all gone leaves its set behind this long at most.
_SET_SECONDS = 3600
# Redis calls of the thread and of the readiness check fail rather than hang on a Redis that
# stopped answering.
REDIS_TIMEOUT_SECONDS = 2.0
_PR_SET_PDEATHSIG = 1


def heartbeat_key(queue_name: str) -> str:
    return f"ragspine:heartbeats:{queue_name}"


def _server_time(connection: redis.Redis) -> float:
    seconds, micros = connection.time()
    return float(seconds) + micros / 1_000_000


def live_workers(connection: redis.Redis, queue_name: str) -> int:
    """How many workers of the queue beat within ``LIVE_SECONDS`` (raises ``RedisError``)."""
    now = _server_time(connection)
    return int(connection.zcount(heartbeat_key(queue_name), now - LIVE_SECONDS, "+inf"))


class WorkerDuties:
    """The worker process's background thread: heartbeat, RQ registration, scheduling."""

    def __init__(self, worker: Worker | SimpleWorker, redis_url: str, queue: Queue) -> None:
        self._worker = worker
        self._key = heartbeat_key(queue.name)
        self._connection = redis.Redis.from_url(
            redis_url,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
        )
        # RQ's scheduler is untyped: Any keeps mypy from checking calls it cannot. Named as the
        # worker, so the lock it holds names a member of the heartbeat set.
        self._scheduler: Any = RQScheduler([queue], connection=self._connection, name=worker.name)
        self._queue_name = queue.name
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="ragspine-worker-duties", daemon=True
        )
        self._failing = False

    def start(self) -> None:
        self.beat()  # live from the start: the worker's first job may run before the thread
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and say so: the worker no longer counts as live."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
        try:
            self._connection.zrem(self._key, self._worker.name)
            self._scheduler.release_locks()
        except redis.RedisError:
            pass  # its beat lapses by itself
        self._connection.close()

    def _run(self) -> None:
        while not self._stopping.wait(HEARTBEAT_SECONDS):
            self.beat()

    def beat(self) -> None:
        """One round of the duties; a Redis that does not answer is reported once and tried
        again on the next round."""
        try:
            self._beat()
        except redis.RedisError as exc:
            if not self._failing:
                _log.warning(
                    "worker %s: Redis does not answer (%s); retrying", self._worker.name, exc
                )
            self._failing = True
            return
        if self._failing:
            _log.warning("worker %s: Redis answers again", self._worker.name)
        self._failing = False

    def _beat(self) -> None:
        connection, worker = self._connection, self._worker
        now = _server_time(connection)
        with connection.pipeline() as pipe:
            pipe.zadd(self._key, {worker.name: now})
            pipe.zremrangebyscore(self._key, "-inf", now - _SET_SECONDS)
            pipe.expire(self._key, _SET_SECONDS)
            pipe.execute()
        # Registered with RQ once RQ has registered it; again after Redis lost it (RQ's own
        # heartbeat then writes a hash without the worker's birth). A worker that registered
        # its death keeps its birth, so it is never brought back.
        if worker.birth_date is not None and not connection.hexists(worker.key, "birth"):
            with connection.pipeline() as pipe:
                pipe.hset(worker.key, mapping=worker.serialize())
                worker_registration.register(worker, pipe)
                pipe.expire(worker.key, worker.worker_ttl + 60)
                pipe.execute()
            _log.warning("worker %s: registered again with RQ", worker.name)
        # RQ's scheduler, one per queue across the workers (a lock in Redis decides which).
        if self._scheduler.acquired_locks:
            self._scheduler.heartbeat()
        else:
            self._release_a_dead_holders_lock(now)
            self._scheduler.acquire_locks()
        if self._scheduler.acquired_locks:
            self._scheduler.enqueue_scheduled_jobs()

    def _release_a_dead_holders_lock(self, now: float) -> None:
        """Free the scheduler lock of a worker that no longer beats (killed): RQ's lock
        outlives its holder by a minute, and retries due meanwhile would wait for it."""
        connection = self._connection
        key = RQScheduler.get_locking_key(self._queue_name)
        raw = connection.get(key)
        if raw is None:
            return
        holder = raw.decode() if isinstance(raw, bytes) else str(raw)
        last_beat = connection.zscore(self._key, holder)
        lapsed = last_beat is None or last_beat < now - LIVE_SECONDS
        # Compare-and-delete: a lock another worker took meanwhile stays.
        if lapsed and release_lock(connection, key, holder):
            _log.warning(
                "worker %s: freed the scheduler lock of worker %s, which stopped beating",
                self._worker.name,
                holder,
            )


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when ``parent`` (the thread that forked it) ends;
    exit now if it already has. Linux only; elsewhere nothing is done."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


# The longest a worker waits between its attempts to reach a Redis that went away (RQ doubles
# the wait from 1 s, up to a minute by default): it takes jobs again soon after Redis is back.
RECONNECT_SECONDS = 5.0


class InProcessWorker(SimpleWorker):
    """RQ's worker that runs each job in its own process (``run_worker(fork=False)``)."""

    max_connection_wait_time = RECONNECT_SECONDS


class ForkingWorker(Worker):
    """RQ's forking worker whose work horse dies with it (see :func:`die_with_parent`)."""

    max_connection_wait_time = RECONNECT_SECONDS
    _parent_pid = 0

    def fork_work_horse(self, job: Job, queue: Queue) -> None:
        self._parent_pid = os.getpid()
        super().fork_work_horse(job, queue)

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        die_with_parent(self._parent_pid)
        super().main_work_horse(job, queue)
