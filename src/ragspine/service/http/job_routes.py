"""Ingestion over HTTP: ``POST /v1/ingest/jobs`` stores the uploaded files and queues them as
one job; ``GET /v1/jobs/{id}`` reports on it to the key that sent it."""

from __future__ import annotations

import shutil
from typing import Annotated

from fastapi import Depends, FastAPI, File, Form, HTTPException, UploadFile

from ragspine.errors import UsageError
from ragspine.service.http.deps import (
    AUTH,
    KEYED,
    CallerDep,
    Service,
    authenticated,
    errors,
    multipart_body,
)
from ragspine.service.http.schemas import JobAccepted, JobFileOut, JobOut
from ragspine.service.http.uploads import new_batch_name, store_upload
from ragspine.service.jobs.queue import JobFile, JobStatus
from ragspine.service.keys.store import Caller

UPLOAD_PATH = "/v1/ingest/jobs"


def install_jobs(app: FastAPI, service: Service) -> None:
    settings = service.settings

    @app.post(
        UPLOAD_PATH,
        tags=["ingestion"],
        status_code=202,
        dependencies=[Depends(authenticated), Depends(multipart_body)],
        responses=errors(*KEYED, 413, 415, 422, 503),
    )
    async def submit_job(
        caller: CallerDep,
        files: Annotated[list[UploadFile], File(description="One or more documents.")],
        include_hidden: Annotated[
            bool,
            Form(
                description="Also read hidden sheets, rows, columns, slides and Word text, "
                "which are otherwise skipped and counted; a figure read from them never "
                "outranks a visible one (`ragspine ingest --include-hidden`)."
            ),
        ] = False,
    ) -> JobAccepted:
        """Store the uploaded files (in the workspace, or with the job in PostgreSQL) and queue
        them for ingestion; each is ingested as the document ``uploads/<key name>/<file
        name>``. Hidden content is skipped, and counted in each file's result ("3 hidden
        cells skipped"), unless ``include_hidden`` is true."""
        jobs = service.jobs
        if jobs is None:
            raise HTTPException(503, "ingestion jobs are not enabled on this service")
        if len(files) > settings.max_upload_files:
            raise UsageError(
                f"{len(files)} files in one request; the limit is {settings.max_upload_files}"
            )
        batch = new_batch_name()
        stored = await service.answerer.run(lambda: _store_uploads(service, caller, batch, files))
        try:
            job_id = await service.answerer.run(
                lambda: jobs.submit(
                    stored,
                    submitter=caller.name,
                    clearance=caller.clearance,
                    include_hidden=include_hidden,
                )
            )
        except BaseException:
            # Not queued (the queue unavailable, the store failing): nothing of it stays.
            shutil.rmtree(service.backend.uploads_folder / batch, ignore_errors=True)
            raise
        service.backend.submitted(service.backend.uploads_folder / batch)
        waiting = await service.answerer.run(jobs.readiness)
        return JobAccepted(job_id=job_id, note=_waiting_note(waiting))

    @app.get(
        "/v1/jobs/{job_id}",
        tags=["ingestion"],
        dependencies=AUTH,
        responses=errors(*KEYED, 404, 503),
    )
    def job_status(job_id: str, caller: CallerDep) -> JobOut:
        """A job's state (queued, running, done, failed), progress and per-file results; only
        the key that submitted the job can read it (404 for any other)."""
        if service.jobs is None:
            raise HTTPException(503, "ingestion jobs are not enabled on this service")
        status = service.jobs.status(job_id)
        if status is None or status.submitter != caller.name:
            raise HTTPException(404, "no such job")
        return _job_out(status)


def _waiting_note(readiness: str) -> str:
    """What an accepted upload is told when no worker would take it now."""
    if readiness == "ok":
        return ""
    return f"queued, {readiness}: the job runs once a worker is serving the queue"


def _store_uploads(
    service: Service, caller: Caller, batch: str, files: list[UploadFile]
) -> list[JobFile]:
    limits = service.settings.upload_limits()
    stored: list[JobFile] = []
    try:
        for upload in files:
            stored.append(
                store_upload(
                    service.backend.uploads_folder,
                    batch,
                    upload.filename or "",
                    upload.file,
                    sender=caller.name,
                    limits=limits,
                )
            )
    except BaseException:
        # One bad file refuses the request: nothing of it stays behind.
        shutil.rmtree(service.backend.uploads_folder / batch, ignore_errors=True)
        raise
    return stored


def _job_out(status: JobStatus) -> JobOut:
    return JobOut(
        job_id=status.job_id,
        state=status.state.value,
        progress=status.progress,
        files_total=status.files_total,
        files_done=status.files_done,
        results=[
            JobFileOut(
                name=r.name,
                outcome=r.outcome,
                facts=r.facts,
                chunks=r.chunks,
                review=r.review,
                warnings=list(r.warnings),
                error=r.error,
            )
            for r in status.results
        ],
        error=status.error,
        created_at=status.created_at,
        updated_at=status.updated_at,
    )
