"""Ingestion jobs: the JobQueue Protocol, the embedded queue and the scale-out one on RQ with
its PostgreSQL tables, leases and reconciler."""
