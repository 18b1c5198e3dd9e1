"""The conversation a request carries: the question and the user's earlier questions.

Over ``/v1/chat/completions`` the question is the last user message and the earlier user
messages are the conversation (assistant and system messages are never read: an answer's text
is not trusted as a fact, see ``agent.conversation``); ``/v1/ask`` and ``/v1/ask/stream`` take
them as ``history`` (the web page sends its session's questions). A client that sends none gets
a stand-alone answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragspine.agent.conversation import MAX_PREVIOUS_QUESTIONS
from ragspine.errors import UsageError
from ragspine.service.http.schemas import ChatMessage

__all__ = ["chat_turns", "usable_previous"]


def chat_turns(messages: Sequence[ChatMessage]) -> tuple[str, list[str]]:
    """The last user message's text, and the user messages before it, oldest first.

    Raises ``UsageError`` when no user message holds text to answer."""
    users = [m for m in messages if m.role == "user"]
    if not users or users[-1].content is None:
        raise UsageError("the messages hold no user message to answer")
    texts = [_text(m) for m in users]
    return texts[-1], [t for t in texts[:-1] if t]


def _text(message: ChatMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if part.get("type") == "text")
    return ""


def usable_previous(previous: Sequence[str], limit: int) -> list[str]:
    """The latest ``MAX_PREVIOUS_QUESTIONS`` earlier questions that could be asked themselves:
    not empty, at most ``limit`` characters, valid UTF-8 text; the others are left out (an
    earlier question is context, so a bad one is skipped, not refused)."""
    kept = [q for q in previous if q.strip() and len(q) <= limit and _encodable(q)]
    return kept[-MAX_PREVIOUS_QUESTIONS:]


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
