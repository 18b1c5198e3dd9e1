"""The HTTP edge: the FastAPI app (``app``), its routes by concern, the middleware of every
request (``edge``), the connection limits uvicorn runs with (``connection``) and the web page
(``web``)."""
