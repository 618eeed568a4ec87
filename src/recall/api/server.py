"""The local API's HTTP server: 127.0.0.1 only, on a thread of its own, every request checked.

Before a body is read the server refuses a ``Host`` that is not this computer (a web page
that re-points its own name at 127.0.0.1, DNS rebinding, sends its own name), an ``Origin``
the learner did not allow (browsers send one from every web page; tools do not) and a body
over ``MAX_BODY_BYTES`` or of unknown length. Requests are answered one at a time, each
connection with a time limit, so a slow or stuck caller cannot hold the collection, and
the window never waits for the server: it runs on its own thread.
"""

from __future__ import annotations

import json
import logging
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from recall.api.actions import Api
from recall.api.protocol import (
    API_VERSION,
    MAX_BODY_BYTES,
    ApiError,
    host_allowed,
    parse_request,
    reply,
)

HOST = "127.0.0.1"
CONNECTION_TIMEOUT_SECONDS = 10.0
"""How long one connection may take to send its request before it is dropped."""

DISCARD_BYTES = 8 * MAX_BODY_BYTES
"""How much of a refused, too long body is read and dropped before the refusal is sent."""

_log = logging.getLogger(__name__)


class ApiServer:
    """The local API served on ``127.0.0.1:port`` until stopped.

    Args:
        api: Answers the requests.
        port: The port to listen on; 0 picks a free one (tests).
        origins: Web origins allowed to call the API (``Origin`` headers), besides requests
            that send none.
    """

    def __init__(self, api: Api, port: int, origins: frozenset[str] = frozenset()) -> None:
        self.api = api
        self.origins = origins
        self.ready = threading.Event()
        self._wanted_port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port listened on (the one chosen when 0 was asked for)."""
        if self._server is None:
            return self._wanted_port
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Where clients send their requests."""
        return f"http://{HOST}:{self.port}"

    @property
    def running(self) -> bool:
        """Whether the server is listening."""
        return self._server is not None

    def start(self) -> None:
        """Listen and serve on a new thread; ``ready`` is set once it serves.

        Raises:
            ApiError: The port cannot be listened on (taken by another program).
        """
        if self._server is not None:
            return
        try:
            server = _Server((HOST, self._wanted_port), _Handler)
        except OSError as error:
            raise ApiError(
                f"the local API cannot listen on {HOST}:{self._wanted_port} "
                f"({error.strerror or error}); choose another port in Preferences"
            ) from None
        server.owner = self
        self._server = server
        self._thread = threading.Thread(target=self._serve, name="recall-api", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        assert self._server is not None
        self.ready.set()
        self._server.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        """Stop serving and close the port; the request being answered finishes first."""
        server, thread = self._server, self._thread
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join()
        self._server = self._thread = None
        self.ready.clear()


class _Server(HTTPServer):
    owner: ApiServer

    def server_bind(self) -> None:
        # HTTPServer looks up the host's name here, which can wait on DNS: not needed.
        super(HTTPServer, self).server_bind()
        self.server_name, self.server_port = HOST, int(self.server_address[1])


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = CONNECTION_TIMEOUT_SECONDS
    server_version = "Recall"
    sys_version = ""

    def do_GET(self) -> None:
        if self._refused_before_body():
            return
        self._send(HTTPStatus.OK, reply(API_VERSION, None, _POST_ONLY))

    def do_OPTIONS(self) -> None:
        """A browser's CORS preflight: answered only for an origin the learner allowed."""
        if self._refused_before_body():
            return
        self.send_response(HTTPStatus.NO_CONTENT)
        self._cors_headers()
        self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Content-Type")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        if self._refused_before_body():
            return
        length_text = self.headers.get("Content-Length")
        if length_text is None or not length_text.strip().isdigit():
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "the request needs a Content-Length")
            return
        length = int(length_text)
        if length > MAX_BODY_BYTES:
            self._discard(length)
            self._refuse(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"the request is {length:,} bytes; at most {MAX_BODY_BYTES:,}",
            )
            return
        body = self.rfile.read(length)
        try:
            request = parse_request(body)
        except ApiError as error:
            self._refuse(HTTPStatus.BAD_REQUEST, str(error))
            return
        try:
            answer = self.server.owner.api.answer(request)
        except Exception:
            # A bug, not the caller's fault: said so, and logged with its traceback.
            _log.exception("the local API failed on %r", request.action)
            self._refuse(HTTPStatus.INTERNAL_SERVER_ERROR, "Recall failed on this request")
            return
        self._send(HTTPStatus.OK, answer)

    def _discard(self, length: int) -> None:
        """Read and drop a refused body up to a bound, so the caller reads the refusal
        rather than a reset connection; past the bound the connection is simply closed."""
        left = min(length, DISCARD_BYTES)
        while left > 0:
            chunk = self.rfile.read(min(left, 65_536))
            if not chunk:
                return
            left -= len(chunk)

    def _refused_before_body(self) -> bool:
        """Refuse (and say why) a request from elsewhere than this computer or an allowed
        origin; whether it was refused."""
        if not host_allowed(self.headers.get("Host")):
            self._refuse(HTTPStatus.FORBIDDEN, "the Host header must be 127.0.0.1 or localhost")
            return True
        origin = self.headers.get("Origin")
        if origin is not None and origin.rstrip("/") not in self.server.owner.origins:
            self._refuse(
                HTTPStatus.FORBIDDEN,
                f"the origin {origin[:200]!r} is not allowed; add it in Preferences > Local API",
            )
            return True
        return False

    def _cors_headers(self) -> None:
        origin = self.headers.get("Origin")
        if origin is not None:
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Vary", "Origin")

    def _refuse(self, status: HTTPStatus, message: str) -> None:
        self.close_connection = True
        self._send(status, reply(API_VERSION, None, message), cors=False)

    def _send(self, status: HTTPStatus, answer: Any, cors: bool = True) -> None:
        data = json.dumps(answer, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        if cors:
            self._cors_headers()
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        _log.debug(format, *args)


_POST_ONLY = "send a POST request with a JSON object: {action, version, params, key}"
