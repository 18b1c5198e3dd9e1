"""The workspace store a worker ingests a job through: the newest upload of a document wins.

Two uploads of one document may run on two workers at once, and the older one may finish
last. Each upload has its place in the order uploads arrived (``job_files.upload_seq``), and
``document_uploads`` holds, per document, the newest upload written into it. Writing an
upload's document takes that document's upload lock (``JobLease.document``), checks that no
newer upload was written, writes, and records the upload — so an older upload never replaces
a newer one; it is left alone and its file reports ``superseded``. Reading and extracting the
files runs in parallel; only the writes of one document take turns.

Should a worker die between writing a document and recording its upload, the job runs again
(its lease is free), writes the same bytes and records them: a newer upload is never lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragspine.service.jobs.job_lease import JobLease
from ragspine.storage.chunks import Chunk
from ragspine.storage.documents import DocumentRecord, ReviewItem, TextBlockRow
from ragspine.storage.facts import Fact
from ragspine.storage.postgres.workspace_store import PostgresWorkspaceStore


class OrderedUploadStore(PostgresWorkspaceStore):
    """A :class:`PostgresWorkspaceStore` whose writes of the job's documents follow the upload
    order; ``uploads`` maps each document of the job to its upload's number."""

    def __init__(
        self, url: str, *, schema: str, lease: JobLease, job_id: str, uploads: Mapping[str, int]
    ) -> None:
        super().__init__(url, schema=schema)
        self._lease = lease
        self._job_id = job_id
        self._uploads = dict(uploads)
        # The documents a newer upload had been written into: left alone.
        self.superseded: set[str] = set()

    def replace_document(
        self,
        record: DocumentRecord,
        facts: Sequence[Fact],
        blocks: Sequence[TextBlockRow],
        review: Sequence[ReviewItem],
        chunks: Sequence[Chunk] = (),
        *,
        replaces: str | None = None,
        override_note: str = "",
    ) -> None:
        doc_id, note = record.doc_id, override_note
        seq = self._uploads.get(doc_id)
        if seq is None:
            super().replace_document(
                record, facts, blocks, review, chunks, replaces=replaces, override_note=note
            )
            return
        with self._lease.document(doc_id):
            if self._overtaken(doc_id, seq):
                return
            super().replace_document(
                record, facts, blocks, review, chunks, replaces=replaces, override_note=note
            )
            self._lease.written(doc_id, seq, self._job_id)

    def settle_unchanged(self, doc_id: str, content_hash: str) -> bool:
        """For an upload the pipeline did not write because the document holds its bytes
        already: record it as the document's newest upload (or as superseded); ``False`` when
        the document changed since the pipeline looked, so the upload must be written."""
        seq = self._uploads[doc_id]
        with self._lease.document(doc_id):
            if self._overtaken(doc_id, seq):
                return True
            stored = self.get_document(doc_id)
            if stored is None or stored.content_hash != content_hash:
                return False
            self._lease.written(doc_id, seq, self._job_id)
            return True

    def _overtaken(self, doc_id: str, seq: int) -> bool:
        if self._lease.newest([doc_id]).get(doc_id, 0) > seq:
            self.superseded.add(doc_id)
            return True
        return False
