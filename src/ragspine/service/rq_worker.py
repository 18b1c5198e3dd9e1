"""The dotted path RQ runs a queued ingestion job by, kept where it has always been.

RQ stores a job's function and failure callback as import paths in Redis
(``service.jobs.rq_jobs.JOB_FUNCTION``). The worker's code lives in
``ragspine.service.jobs.rq_worker``; naming it through this module keeps those paths the
same across versions, so a job queued before an upgrade runs on an upgraded worker, and one
queued by an upgraded API process runs on a worker not yet upgraded.
"""

from __future__ import annotations

from ragspine.service.jobs.rq_worker import job_failed, run_ingest_job

__all__ = ["job_failed", "run_ingest_job"]
