"""The MCP server: the guarded answers, facts and passages as Model Context Protocol tools.

Built on the official MCP Python SDK (the ``mcp`` extra), imported only by the modules below:
``tools`` builds the server over the service's :class:`~ragspine.service.answering.Answerer`
(so every tool passes the same gates as ``/v1``), ``stdio`` serves it to a local client at
the command line's clearance, and ``http`` mounts its streamable HTTP transport at ``/mcp``,
where the caller's API key decides the clearance. See docs/mcp.md.
"""
