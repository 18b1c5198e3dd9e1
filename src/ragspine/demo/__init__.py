"""Ready-made ACME material for trying RAGSpine before ingesting any document."""
