"""A scripted OpenAI-Realtime-compatible websocket server, on 127.0.0.1 only.

It keeps the conversation the way the API does (an ordered list of items that
conversation.item.create / delete and responses change) and answers with the GA event
names the livekit 1.8.8 engine (livekit/agents/llm/_realtime/openai.py) handles.

Interleavings are made with gates, never with sleeps: a gate holds the outbound stream
at the first server event that matches its predicate (and everything queued behind it,
as network latency on one websocket would) until the scenario releases it. The server
has already applied the client event by then; only the client has not heard about it.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

Predicate = Callable[[dict], bool]

# 20 ms of silence at the engine's 24 kHz mono PCM16
SILENCE_20MS = base64.b64encode(b"\x00\x00" * 480).decode()


@dataclass
class Gate:
    predicate: Predicate
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    event: dict | None = None  # the held server event, once reached

    def release(self) -> None:
        self.released.set()


def message(text: str) -> dict:
    """A scripted assistant message output."""
    return {"kind": "message", "text": text}


def function_call(name: str, arguments: str = "{}") -> dict:
    """A scripted function_call output."""
    return {"kind": "function_call", "name": name, "arguments": arguments}


class FakeRealtimeServer:
    def __init__(self) -> None:
        self.conversation: list[dict] = []  # the server-side conversation, in order
        self.client_events: list[dict] = []  # every client event received (audio excluded)
        self.deleted: list[dict] = []  # items removed by conversation.item.delete
        self.sent: list[dict] = []  # every server event, in the order it was queued
        self.responses: list[list[dict]] = []  # scripted outputs, one list per response.create
        self.output_modality = "text"
        self.audio_buffer_bytes = 0  # input audio appended since the last commit or clear
        self.response_contexts: list[list[str]] = []  # conversation ids at each response.create
        self._ids = itertools.count(1)
        self._gates: list[Gate] = []
        self._outbox: asyncio.Queue[dict] = asyncio.Queue()
        self._runner: web.AppRunner | None = None
        self._ws: web.WebSocketResponse | None = None
        self.connected = asyncio.Event()
        self.port = 0

    # -- scenario controls -------------------------------------------------------------

    def hold(self, predicate: Predicate) -> Gate:
        """Hold the outbound stream at the first server event matching `predicate`."""
        gate = Gate(predicate)
        self._gates.append(gate)
        return gate

    def item(self, item_id: str) -> dict | None:
        return next((i for i in self.conversation if i["id"] == item_id), None)

    def summary(self) -> list[dict]:
        return [_describe(i) for i in self.conversation]

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/v1/realtime", self._handle_ws)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{self.port}/v1"

    def release_all(self) -> None:
        for gate in self._gates:
            gate.release()

    async def stop(self) -> None:
        self.release_all()  # never leave the sender parked on a gate
        if self._runner is not None:
            await self._runner.cleanup()

    # -- websocket ---------------------------------------------------------------------

    async def _handle_ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        sender = asyncio.create_task(self._send_loop(ws))
        self._emit({"type": "session.created", "session": {"id": "sess_fake"}})
        self.connected.set()
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._on_client_event(json.loads(msg.data))
                elif msg.type in (WSMsgType.CLOSE, WSMsgType.ERROR):
                    break
        finally:
            sender.cancel()
        return ws

    async def _send_loop(self, ws: web.WebSocketResponse) -> None:
        while True:
            ev = await self._outbox.get()
            for gate in self._gates:
                if not gate.reached.is_set() and gate.predicate(ev):
                    gate.event = ev
                    gate.reached.set()
                    await gate.released.wait()
            await ws.send_str(json.dumps(ev))

    def _emit(self, ev: dict) -> None:
        ev.setdefault("event_id", f"event_{next(self._ids)}")
        self.sent.append(ev)
        self._outbox.put_nowait(ev)

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):04d}"

    # -- client events -------------------------------------------------------------------

    def _on_client_event(self, ev: dict) -> None:
        kind = ev.get("type")
        if kind == "input_audio_buffer.append":
            self.audio_buffer_bytes += len(base64.b64decode(ev.get("audio") or ""))
            return
        self.client_events.append(ev)
        handler = {
            "session.update": self._session_update,
            "conversation.item.create": self._item_create,
            "conversation.item.delete": self._item_delete,
            "conversation.item.truncate": self._item_truncate,
            "response.create": self._response_create,
            "response.cancel": self._response_cancel,
            "input_audio_buffer.commit": self._audio_commit,
            "input_audio_buffer.clear": self._audio_clear,
        }.get(kind)
        if handler is not None:
            handler(ev)

    def _error(self, ev: dict, code: str, message: str) -> None:
        self._emit(
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "code": code,
                    "message": message,
                    "param": None,
                    "event_id": ev.get("event_id"),
                },
            }
        )

    def _session_update(self, ev: dict) -> None:
        session = ev.get("session") or {}
        if session.get("output_modalities"):
            self.output_modality = session["output_modalities"][0]
        self._emit({"type": "session.updated", "session": session})

    def _insert(self, item: dict, previous_item_id: str | None) -> str | None:
        """Insert like the API: after previous_item_id, at the head for "root", else at the end."""
        if previous_item_id == "root":
            self.conversation.insert(0, item)
            return None
        if previous_item_id is None:
            prev = self.conversation[-1]["id"] if self.conversation else None
            self.conversation.append(item)
            return prev
        idx = next(i for i, it in enumerate(self.conversation) if it["id"] == previous_item_id)
        self.conversation.insert(idx + 1, item)
        return previous_item_id

    def _item_create(self, ev: dict) -> None:
        item = dict(ev["item"])
        item.setdefault("id", self._new_id("item"))
        item.setdefault("object", "realtime.item")
        item["status"] = "completed"
        prev_id = ev.get("previous_item_id")
        if self.item(item["id"]) is not None:
            return self._error(ev, "item_create_duplicate_item_id", "duplicate item id")
        if prev_id not in (None, "root") and self.item(prev_id) is None:
            return self._error(ev, "item_create_invalid_previous_item_id", "no previous item")
        prev = self._insert(item, prev_id)
        self._emit({"type": "conversation.item.added", "previous_item_id": prev, "item": item})
        self._emit({"type": "conversation.item.done", "previous_item_id": prev, "item": item})

    def _audio_commit(self, ev: dict) -> None:
        """Client-side turn detection ends a user turn with a commit: the API turns the buffered
        audio into a user message item (input_audio_buffer.committed, then the item's
        conversation.item.added / done, as for any other item), or refuses an almost empty
        buffer. The audio is PCM16 mono at 24 kHz; 100 ms is the API's minimum."""
        if self.audio_buffer_bytes < 2 * 2400:
            return self._error(
                ev, "input_audio_buffer_commit_empty", "buffer too small: at least 100ms of audio is required"
            )
        self.audio_buffer_bytes = 0
        item = {
            "id": self._new_id("item"),
            "object": "realtime.item",
            "type": "message",
            "status": "completed",
            "role": "user",
            "content": [{"type": "input_audio", "transcript": None}],
        }
        prev = self._insert(item, None)
        self._emit({"type": "input_audio_buffer.committed", "previous_item_id": prev, "item_id": item["id"]})
        self._emit({"type": "conversation.item.added", "previous_item_id": prev, "item": dict(item)})
        self._emit({"type": "conversation.item.done", "previous_item_id": prev, "item": dict(item)})

    def _audio_clear(self, ev: dict) -> None:
        self.audio_buffer_bytes = 0
        self._emit({"type": "input_audio_buffer.cleared"})

    def _item_delete(self, ev: dict) -> None:
        item = self.item(ev["item_id"])
        if item is None:
            return self._error(ev, "item_delete_invalid_item_id", "item not found")
        self.conversation.remove(item)
        self.deleted.append(_describe(item))
        self._emit({"type": "conversation.item.deleted", "item_id": item["id"]})

    def _item_truncate(self, ev: dict) -> None:
        if self.item(ev["item_id"]) is None:
            return self._error(ev, "item_truncate_invalid_item_id", "item not found")
        self._emit(
            {
                "type": "conversation.item.truncated",
                "item_id": ev["item_id"],
                "content_index": ev.get("content_index", 0),
                "audio_end_ms": ev.get("audio_end_ms", 0),
            }
        )

    def _response_cancel(self, ev: dict) -> None:
        # responses are generated at once (the model is faster than the network), so by
        # the time a cancel arrives there is never an active one: the API answers this
        self._error(ev, "response_cancel_not_active", "Cancellation failed: no active response found")

    def _response_create(self, ev: dict) -> None:
        params = ev.get("response") or {}
        self.response_contexts.append([i["id"] for i in self.conversation])
        outputs = self.responses.pop(0) if self.responses else [message("ok")]
        resp_id = self._new_id("resp")
        base = {"id": resp_id, "object": "realtime.response", "metadata": params.get("metadata")}
        self._emit({"type": "response.created", "response": {**base, "status": "in_progress", "output": []}})
        done_items = [self._output_item(resp_id, idx, out) for idx, out in enumerate(outputs)]
        self._emit(
            {
                "type": "response.done",
                "response": {
                    **base,
                    "status": "completed",
                    "output": done_items,
                    "usage": {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0},
                },
            }
        )

    def _output_item(self, resp_id: str, idx: int, out: dict) -> dict:
        common = {"response_id": resp_id, "output_index": idx}
        if out["kind"] == "function_call":
            item = {
                "id": self._new_id("item"),
                "object": "realtime.item",
                "type": "function_call",
                "status": "in_progress",
                "call_id": self._new_id("call"),
                "name": out["name"],
                "arguments": "",
            }
            prev = self._insert(item, None)
            self._emit({"type": "response.output_item.added", **common, "item": dict(item)})
            self._emit({"type": "conversation.item.added", "previous_item_id": prev, "item": dict(item)})
            item.update(arguments=out["arguments"], status="completed")
            self._emit(
                {
                    "type": "response.function_call_arguments.done",
                    **common,
                    "item_id": item["id"],
                    "call_id": item["call_id"],
                    "arguments": out["arguments"],
                }
            )
            self._emit({"type": "response.output_item.done", **common, "item": dict(item)})
            self._emit({"type": "conversation.item.done", "item": dict(item)})
            return dict(item)

        audio = self.output_modality == "audio"
        text = out["text"]
        item = {
            "id": self._new_id("item"),
            "object": "realtime.item",
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        prev = self._insert(item, None)
        self._emit({"type": "response.output_item.added", **common, "item": dict(item)})
        self._emit({"type": "conversation.item.added", "previous_item_id": prev, "item": dict(item, content=[])})
        part = {"item_id": item["id"], "content_index": 0, **common}
        if audio:
            self._emit({"type": "response.content_part.added", **part, "part": {"type": "audio", "transcript": ""}})
            self._emit({"type": "response.output_audio_transcript.delta", **part, "delta": text})
            for _ in range(out.get("frames", 3)):
                self._emit({"type": "response.output_audio.delta", **part, "delta": SILENCE_20MS})
            self._emit({"type": "response.output_audio.done", **part})
            self._emit({"type": "response.output_audio_transcript.done", **part, "transcript": text})
            content = [{"type": "output_audio", "transcript": text}]
        else:
            self._emit({"type": "response.content_part.added", **part, "part": {"type": "text", "text": ""}})
            self._emit({"type": "response.output_text.delta", **part, "delta": text})
            self._emit({"type": "response.output_text.done", **part, "text": text})
            content = [{"type": "output_text", "text": text}]
        self._emit({"type": "response.content_part.done", **part, "part": content[0]})
        item.update(status="completed", content=content)
        self._emit({"type": "response.output_item.done", **common, "item": dict(item)})
        self._emit({"type": "conversation.item.done", "item": dict(item)})
        return dict(item)


def _describe(item: dict) -> dict[str, Any]:
    """id, type, role and text of a server item, for the scenario's JSON result."""
    text = " ".join(
        c.get("text") or c.get("transcript") or "" for c in item.get("content") or [] if isinstance(c, dict)
    )
    out = {
        "id": item["id"],
        "type": item.get("type"),
        "role": item.get("role"),
        "call_id": item.get("call_id"),
        "text": text or item.get("output"),
    }
    return {k: v for k, v in out.items() if v is not None}
