"""The HTTP service: a FastAPI app over one workspace, with API keys, a FAQ short-circuit at the
edge and ingestion jobs off the request thread (``http``, ``keys``, ``faq``, ``jobs``)."""
