"""Chunk vectors in PostgreSQL: one float32 vector per chunk and embedding model.

pgvector is not available on these machines, so vectors are plain ``bytea`` (float32,
little-endian) and search happens in each replica's own index, built from these rows. A
RESTRICTED chunk's vector is a copy of its meaning (invariant 4), so it is written only when
the caller opts in, and a chunk raised to RESTRICTED loses its stored vector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import psycopg
from numpy.typing import ArrayLike, NDArray

from ragspine.profile.sensitivity import Sensitivity

Vector = NDArray[np.float32]
_FLOAT32 = np.dtype("<f4")
_RESTRICTED = f"'{Sensitivity.RESTRICTED.value}'"

__all__ = ["Vector", "drop_restricted_vectors", "read_vectors", "write_vectors"]


def _as_bytes(chunk_id: str, values: ArrayLike) -> tuple[int, bytes]:
    vector = np.asarray(values, dtype=_FLOAT32)
    if vector.ndim != 1 or vector.size == 0:
        raise ValueError(f"the vector of chunk {chunk_id!r} must be one non-empty row")
    if not np.isfinite(vector).all():
        raise ValueError(f"the vector of chunk {chunk_id!r} holds a NaN or an infinity")
    return int(vector.size), vector.tobytes()


def write_vectors(
    conn: psycopg.Connection[Any],
    model: str,
    vectors: Mapping[str, ArrayLike],
    *,
    persist_restricted: bool,
) -> int:
    """Insert or replace vectors of stored chunks; the number written.

    A chunk that is not stored is a foreign-key error (the whole batch is refused); a
    RESTRICTED chunk's vector is left out unless ``persist_restricted``.
    """
    if not model:
        raise ValueError("a vector needs the name of the model that made it")
    rows = [(chunk_id, model, *_as_bytes(chunk_id, v)) for chunk_id, v in vectors.items()]
    if not persist_restricted and rows:
        ids = [row[0] for row in rows]
        restricted = conn.execute(
            f"SELECT chunk_id FROM chunks WHERE chunk_id = ANY(%s) AND sensitivity = {_RESTRICTED}",
            (ids,),
        ).fetchall()
        skipped = {str(chunk_id) for (chunk_id,) in restricted}
        rows = [row for row in rows if row[0] not in skipped]
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO chunk_vectors (chunk_id, model, dimension, vector) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (chunk_id) DO UPDATE SET "
            "model = EXCLUDED.model, dimension = EXCLUDED.dimension, vector = EXCLUDED.vector",
            rows,
        )
    return len(rows)


def read_vectors(
    conn: psycopg.Connection[Any], model: str, chunk_ids: Sequence[str] | None
) -> dict[str, Vector]:
    """The stored vectors of ``model``, of ``chunk_ids`` (all when ``None``), by chunk id."""
    if chunk_ids is None:
        rows = conn.execute(
            "SELECT chunk_id, vector FROM chunk_vectors WHERE model = %s ORDER BY chunk_id",
            (model,),
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT chunk_id, vector FROM chunk_vectors WHERE model = %s AND chunk_id = ANY(%s) "
            "ORDER BY chunk_id",
            (model, list(chunk_ids)),
        ).fetchall()
    return {str(chunk_id): np.frombuffer(data, dtype=_FLOAT32) for chunk_id, data in rows}


def drop_restricted_vectors(conn: psycopg.Connection[Any], doc_id: str) -> None:
    """Delete the stored vectors of a document's chunks that are RESTRICTED now."""
    conn.execute(
        "DELETE FROM chunk_vectors v USING chunks c WHERE v.chunk_id = c.chunk_id "
        f"AND c.doc_id = %s AND c.sensitivity = {_RESTRICTED}",
        (doc_id,),
    )
