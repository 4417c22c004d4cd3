"""The OpenAI Batch API on the fake OpenAI server: ``/v1/files``, ``/v1/batches``.

A batch is a JSONL file uploaded with ``purpose=batch``; its lines (``custom_id``, ``method``,
``url``, ``body``) are answered as ``/v1/chat/completions`` would answer ``body``. The output
file holds the items that ran, the error file the items that failed on their own (a response
with an error status) and, after an expiry or cancellation, the ones that never ran
(``batch_expired`` / ``batch_cancelled``), as the real API does. A batch whose plan ends in
``failed`` failed validation: no output, ``errors`` set. The list (``GET /v1/batches``) pages
newest first with ``limit`` and ``after``, as ``{object: list, data, first_id, last_id,
has_more}``.
"""

from __future__ import annotations

import json
import re
import time
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from ._batch_core import BatchBook, FakeBatch
from ._core import Fault, random_id
from ._http import Reply, Request
from ._openai import FakeOpenAIServer, _error

_BATCH = re.compile(r"^/v1/batches/([^/]+)(/cancel)?$")
_FILE = re.compile(r"^/v1/files/([^/]+)/content$")


def _multipart(req: Request) -> dict[str, bytes]:
    """The form fields of a multipart/form-data body, by name."""
    head = f"Content-Type: {req.headers.get('content-type', '')}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + req.raw)
    fields: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = payload
    return fields


class FakeOpenAIBatchServer(FakeOpenAIServer):
    """``FakeOpenAIServer`` plus the Files and Batch endpoints; ``book`` plans and records."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.book = BatchBook()
        self.files: dict[str, bytes] = {}

    def _process(self, req: Request) -> Reply | Fault:
        path = req.path.rstrip("/")
        if not path.startswith(("/v1/files", "/v1/batches")):
            return super()._process(req)
        if (denied := self._check_auth(req)) is not None:
            return denied
        if (req.method, path) == ("POST", "/v1/files"):
            return self._upload(req)
        if (found := _FILE.match(path)) and req.method == "GET":
            data = self.files.get(found.group(1))
            if data is None:
                return _error(404, "No such File object", "invalid_request_error")
            return Reply(200, data, content_type="application/octet-stream")
        if (req.method, path) == ("POST", "/v1/batches"):
            return self._create(req.body or {})
        if (req.method, path) == ("GET", "/v1/batches"):
            return self._list(req)
        if found := _BATCH.match(path):
            batch = self.book.batches.get(found.group(1))
            if batch is None:
                return _error(404, "No such Batch object", "invalid_request_error")
            if found.group(2) and req.method == "POST":
                batch.cancel_requested = True
                return Reply.json(200, self._object(batch))
            if req.method == "GET":
                read = self.book.read(batch.id)
                assert read is not None
                return Reply.json(200, self._object(read))
        return _error(404, f"Invalid URL ({req.method} {req.path})", "invalid_request_error")

    def _list(self, req: Request) -> Reply:
        """``limit`` (1 to 100, 20 by default) and the ``after`` cursor; newest first."""
        limit = int(req.query.get("limit", "20"))
        if not 1 <= limit <= 100:
            return _error(400, "limit must be between 1 and 100", "invalid_request_error")
        batches, more = self.book.page(limit, after=req.query.get("after"))
        data = [self._object(b) for b in batches]
        first, last = (data[0]["id"], data[-1]["id"]) if data else (None, None)
        listed = {"object": "list", "data": data, "first_id": first, "last_id": last}
        return Reply.json(200, {**listed, "has_more": more})

    def _upload(self, req: Request) -> Reply:
        fields = _multipart(req)
        if fields.get("purpose") != b"batch" or "file" not in fields:
            return _error(400, "purpose must be 'batch' and a file given", "invalid_request_error")
        file_id = random_id("file-", 24)
        self.files[file_id] = fields["file"]
        payload = {
            "id": file_id,
            "object": "file",
            "bytes": len(fields["file"]),
            "created_at": int(time.time()),
            "filename": "batch.jsonl",
            "purpose": "batch",
            "status": "processed",
        }
        return Reply.json(200, payload)

    def _create(self, body: dict[str, Any]) -> Reply | Fault:
        data = self.files.get(str(body.get("input_file_id")))
        if data is None:
            return _error(400, "input_file_id: no such file", "invalid_request_error")
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return _error(
                400, "endpoint or completion_window not supported", "invalid_request_error"
            )
        requests: dict[str, dict[str, Any]] = {}
        for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
            item = json.loads(line)
            if item.get("url") != "/v1/chat/completions" or item.get("method") != "POST":
                return _error(400, f"line {number}: bad url or method", "invalid_request_error")
            if item["custom_id"] in requests:
                return _error(400, f"line {number}: duplicate custom_id", "invalid_request_error")
            requests[item["custom_id"]] = item["body"]
        batch = FakeBatch(
            id=random_id("batch_", 24),
            requests=requests,
            plan=self.book.next_plan(),
            created_at=time.time(),
            metadata=dict(body.get("metadata") or {}),
        )
        self.book.add(batch)
        if self.book.drop_this_reply():
            return Fault("reset")
        return Reply.json(200, self._object(batch, status="validating"))

    def _object(self, batch: FakeBatch, status: str | None = None) -> dict[str, Any]:
        ended = batch.ended
        state = status or (
            {"completed": "completed", "expired": "expired", "cancelled": "cancelled"}.get(
                batch.end, "failed"
            )
            if ended
            else "in_progress"
        )
        output_id = error_id = None
        counts = {"total": len(batch.requests), "completed": 0, "failed": 0}
        errors = None
        if ended and batch.end == "failed":
            errors = {"object": "list", "data": [{"code": "invalid_request", "message": "bad"}]}
        elif ended:
            output_id, error_id, counts = self._results(batch)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": errors,
            "input_file_id": "file-input",
            "completion_window": "24h",
            "status": state,
            "output_file_id": output_id,
            "error_file_id": error_id,
            "created_at": int(batch.created_at),
            "request_counts": counts,
            "metadata": batch.metadata,
        }

    def _results(self, batch: FakeBatch) -> tuple[str | None, str | None, dict[str, int]]:
        """Write (once) and name the output and error files of an ended batch."""
        output_id, error_id = f"file-out-{batch.id}", f"file-err-{batch.id}"
        if output_id not in self.files:
            out, err = [], []
            for custom_id, body in batch.requests.items():
                line: dict[str, Any] = {"id": random_id("batch_req_", 24), "custom_id": custom_id}
                message = batch.plan.item_error(custom_id)
                if not batch.ran(custom_id):
                    code = "batch_expired" if batch.end == "expired" else "batch_cancelled"
                    err.append({**line, "response": None, "error": {"code": code, "message": code}})
                elif message is not None:
                    failed = {"error": {"message": message, "type": "server_error"}}
                    response = {"status_code": 500, "request_id": "req_x", "body": failed}
                    err.append({**line, "response": response, "error": None})
                else:
                    reply = self._success_reply(
                        Request("POST", "/v1/chat/completions", {}, body, b""),
                        str(self._call_reply(body)),
                    )
                    response = {
                        "status_code": 200,
                        "request_id": "r",
                        "body": json.loads(reply.body),
                    }
                    out.append({**line, "response": response, "error": None})
            self.files[output_id] = "".join(json.dumps(x) + "\n" for x in out).encode()
            self.files[error_id] = "".join(json.dumps(x) + "\n" for x in err).encode()
        out_lines = self.files[output_id].count(b"\n")
        err_lines = self.files[error_id].count(b"\n")
        counts = {"total": len(batch.requests), "completed": out_lines, "failed": err_lines}
        return (output_id if out_lines else None), (error_id if err_lines else None), counts
