"""The FAQ short-circuit at the HTTP edge (``faq_cache``)."""
