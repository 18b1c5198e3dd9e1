"""API keys: the Caller and Authenticator the app relies on, with their store in the workspace's
``service.db`` (``store``) and in PostgreSQL (``pg_keys``)."""
