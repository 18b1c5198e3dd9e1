"""Evaluation: judged query sets and the scorers that turn a run into gated numbers."""
