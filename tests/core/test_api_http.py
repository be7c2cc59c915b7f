"""The local API's reading of requests off raw sockets: framing headers that could make a body pass
for a request are refused and the connection closed, slow clients are dropped at a deadline
without keeping others out, and a client that hangs up is one line in the log, not a traceback."""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import pytest

from skill_studio.api.http_io import MAX_HEAD_BYTES, MAX_LINE_BYTES
from skill_studio.api.server import ApiServer


def start(store, **options) -> ApiServer:
    server = ApiServer(store, 0, **options)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    server.thread = thread   # type: ignore[attr-defined]
    return server


def stop(server: ApiServer) -> None:
    server.shutdown()
    server.server_close()
    server.thread.join(5)   # type: ignore[attr-defined]


@pytest.fixture
def api(seeded_store):
    server = start(seeded_store)
    yield server
    stop(server)


def wait_until(condition, timeout: float = 10.0) -> None:
    """Wait until ``condition()`` holds (checked as often as a waiting thread wakes), or fail."""
    deadline = time.monotonic() + timeout
    woken = threading.Event()
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        woken.wait(0.01)


def exchange(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` on one connection, then read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def statuses(answer: bytes) -> list[bytes]:
    return re.findall(rb"HTTP/1\.1 (\d{3})", answer)


def head(port: int, *lines: str, body: bytes = b"", method: str = "POST /api/skills/export") -> bytes:
    text = f"{method} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n" + "".join(f"{line}\r\n" for line in lines) + "\r\n"
    return text.encode("latin-1") + body


# --- framing ------------------------------------------------------------------------------

HIDDEN = b"GET /api/skills/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
EXPORT = json.dumps({"name": "security-review"}).encode()

FRAMINGS = {
    "two different lengths": ["Content-Length: 2", f"Content-Length: {len(EXPORT)}"],
    "the same length twice": [f"Content-Length: {len(EXPORT)}", f"Content-Length: {len(EXPORT)}"],
    "two lengths in one header": [f"Content-Length: {len(EXPORT)}, {len(EXPORT)}"],
    "chunked": ["Transfer-Encoding: chunked"],
    "chunked and a length": ["Transfer-Encoding: chunked", f"Content-Length: {len(EXPORT)}"],
    "a length and identity": [f"Content-Length: {len(EXPORT)}", "Transfer-Encoding: identity"],
    "a negative length": ["Content-Length: -1"],
    "a signed length": [f"Content-Length: +{len(EXPORT)}"],
    "a length with an underscore": ["Content-Length: 2_0"],
    "a length in hex": ["Content-Length: 0x20"],
    "a length that is a word": ["Content-Length: many"],
    "an empty length": ["Content-Length:"],
    "a space before the colon": [f"Content-Length : {len(EXPORT)}"],
    "a line that is no header": ["Not a header", f"Content-Length: {len(EXPORT)}"],
    "a folded length": ["Content-Length: 1", f" {len(EXPORT)}"],
}


@pytest.mark.parametrize("lines", FRAMINGS.values(), ids=FRAMINGS.keys())
def test_unclear_framing_is_refused_and_the_connection_closed(api, lines):
    """Whatever follows the refused head (here a request of its own) is never answered."""
    answer = exchange(api.server_address[1], head(api.server_address[1], *lines, body=EXPORT + HIDDEN))
    assert statuses(answer) == [b"400"]
    assert b"Connection: close" in answer
    error = json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    assert "Content-Length" in error or "header" in error


def test_a_clear_length_still_keeps_the_connection_alive(api):
    port = api.server_address[1]
    answer = exchange(port, head(port, f"Content-Length: {len(EXPORT)}", "Connection: keep-alive", body=EXPORT)
                      + HIDDEN)
    assert statuses(answer) == [b"200", b"200"]


def test_every_refusal_closes_the_connection(api, seeded_store):
    """A refused request (no token, no endpoint, a wrong host) with a body: the body is never read
    as the next request, whatever the body's length says."""
    port = api.server_address[1]
    hidden = (f"DELETE /api/skills?name=security-review HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
              f"{api.token}\r\n\r\n").encode()
    for method, extra in [("POST /api/skills", []), ("POST /api/nothing", []), ("GET /api/skills/detail?name=nope", []),
                          ("POST /api/skills/export", ["X: y"])]:
        answer = exchange(port, head(port, "Content-Length: 0", *extra, method=method) + hidden)
        assert len(statuses(answer)) == 1 and not statuses(answer)[0].startswith(b"2"), method
    assert "security-review" in seeded_store


@pytest.mark.parametrize("request_bytes, status", [
    (b"GET /" + b"a" * MAX_LINE_BYTES + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", b"414"),
    (b"GET /api/skills HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * MAX_HEAD_BYTES * 2 + b"\r\n\r\n", b"431"),
    (b"GET /api/skills HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Many: aaaaaaaaaaaaaaaa\r\n" * 90 + b"\r\n", b"200"),
    (b"GET /api/skills HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Many: a\r\n" * 101 + b"\r\n", b"431"),
    (b"GET /api/skills HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (b"X-Big: " + b"a" * 8000 + b"\r\n") * 10 + b"\r\n",
     b"431"),
], ids=["a long request line", "a long header", "many short headers", "too many headers", "a head too big"])
def test_a_head_too_long_is_refused(api, request_bytes, status):
    assert len(request_bytes) < MAX_HEAD_BYTES * 3
    answer = exchange(api.server_address[1], request_bytes + HIDDEN)
    if status == b"200":   # within the limits: answered, and the next request too
        assert statuses(answer) == [b"200", b"200"]
    else:
        assert statuses(answer) == [status] and b"Connection: close" in answer
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["status"] == int(status)


# --- slow clients -------------------------------------------------------------------------

def test_clients_that_never_finish_their_headers_do_not_keep_others_out(seeded_store):
    server = start(seeded_store, head_timeout=1.0)
    port = server.server_address[1]
    slow = []
    try:
        for _ in range(server.max_connections + 2):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /api/skills HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
            slow.append(sock)
        wait_until(lambda: server.busy == server.max_connections)
        answer = exchange(port, b"GET /api/skills/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert statuses(answer) == [b"200"]
        # The slow ones were told why they were dropped.
        dropped = slow[0].recv(65536)
        assert statuses(dropped) == [b"408"] and b"did not arrive within 1 s" in dropped
    finally:
        for sock in slow:
            sock.close()
        stop(server)


def test_a_trickling_head_is_dropped_at_its_deadline_not_renewed_per_byte(seeded_store):
    server = start(seeded_store, head_timeout=0.5)
    port = server.server_address[1]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /api/skills HTTP/1.1\r\n")
            begun = time.monotonic()
            answer = b""
            # One header byte whenever the server has not answered: per-read timeouts would never expire.
            while not answer and time.monotonic() - begun < 10:
                try:
                    sock.sendall(b"X")
                except OSError:
                    break
                sock.settimeout(0.05)
                try:
                    answer = sock.recv(65536)
                except TimeoutError:
                    continue
        assert statuses(answer) == [b"408"]
    finally:
        stop(server)


def test_a_body_sent_too_slowly_gets_408_as_json(seeded_store):
    server = start(seeded_store, body_timeout=0.3)
    port = server.server_address[1]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(head(port, "Content-Length: 100", body=b'{"name": '))
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert statuses(answer) == [b"408"]
        error = json.loads(answer.partition(b"\r\n\r\n")[2])
        assert error["status"] == 408 and "did not arrive within 0.3 s" in error["error"]
    finally:
        stop(server)


def test_a_body_cut_short_is_named(api):
    port = api.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head(port, "Content-Length: 100", body=b'{"name": '))
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert statuses(answer) == [b"400"] and b"ended after 9 of the 100 bytes" in answer


# --- clients that hang up -----------------------------------------------------------------

@pytest.mark.parametrize("error", [BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset"),
                                   ConnectionAbortedError(103, "aborted"), TimeoutError("timed out")])
@pytest.mark.parametrize("quiet", [True, False])
def test_a_client_hanging_up_is_one_line_not_a_traceback(seeded_store, capsys, error, quiet):
    server = ApiServer(seeded_store, 0, quiet=quiet)
    try:
        try:
            raise error
        except OSError:
            server.handle_error(None, ("127.0.0.1", 50123))
    finally:
        server.server_close()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if quiet:
        assert err == ""
    else:
        assert err.count("\n") == 1 and err.startswith("127.0.0.1:50123 ")


def test_other_errors_are_still_reported_in_full(seeded_store, capsys):
    server = ApiServer(seeded_store, 0, quiet=True)
    try:
        try:
            raise KeyError("a bug")
        except KeyError:
            server.handle_error(None, ("127.0.0.1", 50123))
    finally:
        server.server_close()
    assert "Traceback" in capsys.readouterr().err


def test_clients_that_reset_mid_request_leave_no_traceback(seeded_store, capfd):
    server = start(seeded_store, quiet=True)
    port = server.server_address[1]
    try:
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(head(port, "Content-Length: 1000", body=b'{"name": '))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.close()   # a reset, not a clean end
        wait_until(lambda: server.busy == 0)
        # A request after them is served, so the server has handled all twenty.
        assert statuses(exchange(port, HIDDEN)) == [b"200"]
    finally:
        stop(server)
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("quiet", [True, False])
def test_serve_logs_clients_that_hang_up_without_tracebacks(tmp_path, quiet):
    import subprocess
    import sys

    from skill_studio.core.store import Store

    db = tmp_path / "store.db"
    Store(db).close()
    proc = subprocess.Popen([sys.executable, "-m", "skill_studio", "--store", str(db), "serve", "--port", "0",
                             *(["--quiet"] if quiet else [])], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        port = int(proc.stdout.readline().split(" on ")[1].split()[0].rsplit(":", 1)[1])
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(head(port, "Content-Length: 1000", body=b'{"name": '))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.close()
        assert statuses(exchange(port, HIDDEN)) == [b"200"]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "Traceback" not in err
    if quiet:
        assert err == ""
    else:   # each line a request answered or a client gone, in one line
        lines = err.splitlines()
        assert "GET /api/skills/stats" in err and 1 <= sum("closed the connection" in line for line in lines) <= 20
        assert all(re.match(r'127\.0\.0\.1( - - \[.*\] ".*" \d{3} |:\d+ closed the connection )', line)
                   for line in lines), err
