"""The typed JSON events of the real-time protocol (ARCHITECTURE §8)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class Source(TypedDict):
    title: str
    url: NotRequired[str]
    chunk_id: NotRequired[int]


class Awaiting(TypedDict):
    slot: str
    prompt: str
    choices: list[str]


class MessageCreated(TypedDict):
    type: Literal["message.created"]
    message: dict[str, Any]


class ReplyDelta(TypedDict):
    type: Literal["reply.delta"]
    turn_id: int
    delta: str


class ReplyDone(TypedDict):
    type: Literal["reply.done"]
    turn_id: int
    message_id: int | None
    text: str
    sources: list[Source]
    awaiting: Awaiting | None
    quick_replies: list[str]


class StatusChanged(TypedDict):
    type: Literal["status.changed"]
    conversation_id: int
    status: str


class Escalated(TypedDict):
    type: Literal["escalated"]
    conversation_id: int
    card_id: int
    reason: str
    summary: str


Event = MessageCreated | ReplyDelta | ReplyDone | StatusChanged | Escalated
