"""A small OpenAI-compatible transcription server, started by the test that needs it.

It speaks what whisper.cpp's server, faster-whisper-server and vLLM speak:
`POST /v1/audio/transcriptions`, multipart form data with `file`, `model` and
`response_format`, answered `{"text": "…"}`. It recognises no speech: what it "hears" is
looked up in a fixture mapping from the uploaded audio's bytes (or its first bytes) to text,
with a default for any other audio (a browser's fake microphone). It records every upload,
so a test can check what the app sent, and can be told to fail, hang, or go away.
"""

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Upload:
    model: str
    response_format: str
    filename: str
    content_type: str
    audio: bytes
    authorization: str | None


@dataclass
class Behaviour:
    """What the server does; a test changes it between requests."""

    heard: dict[bytes, str] = field(default_factory=dict)  # audio (or its start) -> text
    default: str = ""
    model: str = "whisper-1"  # the model it hosts; another name gets 404, as vLLM answers
    status: int = 200  # anything else: that HTTP error
    delay_s: float = 0.0  # wait this long before answering (a slow or hung server)
    uploads: list[Upload] = field(default_factory=list)


def parse_form(content_type: str, body: bytes) -> dict[str, tuple[str | None, str | None, bytes]]:
    """multipart/form-data as {name: (filename, content type, value)}."""
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, tuple[str | None, str | None, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        assert isinstance(name, str) and isinstance(payload, bytes), part
        fields[name] = (part.get_filename(), part.get_content_type(), payload)
    return fields


def _handler(behaviour: Behaviour) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:  # quiet in the test's output
            pass

        def _answer(self, status: int, body: dict[str, object]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            if self.path != "/v1/audio/transcriptions":
                self._answer(404, {"error": {"message": f"no route {self.path}"}})
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            form = parse_form(self.headers.get("Content-Type", ""), body)
            filename, kind, audio = form["file"]
            upload = Upload(
                model=form["model"][2].decode(),
                response_format=form.get("response_format", (None, None, b""))[2].decode(),
                filename=filename or "",
                content_type=kind or "",
                audio=audio,
                authorization=self.headers.get("Authorization"),
            )
            behaviour.uploads.append(upload)
            if behaviour.delay_s:
                time.sleep(behaviour.delay_s)
            if behaviour.status != 200:
                self._answer(behaviour.status, {"error": {"message": "failing on purpose"}})
                return
            if upload.model != behaviour.model:
                self._answer(404, {"error": {"message": f"model {upload.model} not found"}})
                return
            text = next(
                (said for start, said in behaviour.heard.items() if audio.startswith(start)),
                behaviour.default,
            )
            self._answer(200, {"text": text})

    return Handler


@contextmanager
def transcription_server(behaviour: Behaviour) -> Iterator[str]:
    """Serve on a free port of 127.0.0.1; yield its base URL (…/v1 is appended by the app)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(behaviour))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
