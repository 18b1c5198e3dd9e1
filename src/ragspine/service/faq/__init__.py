"""The FAQ short-circuit at the HTTP edge (``faq_cache``), and the FAQ a deployment publishes
into PostgreSQL (``pg_faq``)."""
