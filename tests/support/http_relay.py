# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A relay on loopback in front of a real HTTP server (the test NetBox) that makes it go away on purpose.

``with Relay(upstream_url) as relay:`` then point the client at ``relay.url``. Each request is relayed on a
connection of its own to the server (``Connection: close`` both ways), so a fault hits exactly the request it is
meant for; ``relay.seen`` lists ``(method, path)`` of every request the relay received, and ``relay.forwarded``
those it passed on to the server. Faults, each for the next ``count`` requests that ``match`` (``method path``,
a substring):

- ``refuse()`` / ``listen()``: a relay made with ``listening=False`` refuses connections (the port is bound,
  not listening, as a stopped server's) until ``listen()``;
- ``reset(count, match)``: the connection is reset once the request is read, before it reaches the server;
- ``answer(count, status, match, headers)``: the relay answers ``status`` (502, 503, 504; 429 with ``headers``
  ``{'Retry-After': '1'}``) itself, as a proxy does whose server is away or that limits the rate of requests;
- ``lose(count, match)``: the request reaches the server, which applies it; once its answer begins, the relay
  resets the client's connection: the answer is lost.

``Canned(answer)`` is a server of its own, with no NetBox behind it: it answers every request with the bytes
``answer`` (a whole HTTP response), resets each connection once the request is read (``answer='reset'``), or
accepts and never answers (``answer=None``: the connections stay open until the server is closed);
``connections`` counts the connections it accepted.
"""

import socket
import struct
import threading

from urllib.parse import urlsplit

_PAGES = {400: b'Bad Request', 429: b'Too Many Requests', 502: b'Bad Gateway', 503: b'Service Unavailable',
          504: b'Gateway Timeout'}


class Relay(object):

    def __init__(self, upstream, listening=True):
        parts = urlsplit(upstream)
        self.target = (parts.hostname, parts.port or 80)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(('127.0.0.1', 0))
        self.url = 'http://127.0.0.1:%d' % self.listener.getsockname()[1]
        self.seen, self.forwarded = [], []
        self._faults = []            # [kind, count left, match, status]
        self._lock = threading.Lock()
        self._listening = threading.Event()
        self._stop = False
        if listening:
            self.listen()

    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._stop = True
        self._listening.set()
        self.listener.close()
        return False

    def listen(self):
        """Accept connections from now on (a relay made with ``listening=False`` refuses them until then)."""
        self.listener.listen(64)
        self._listening.set()

    def reset(self, count=1, match=''):
        self._add('reset', count, match)

    def answer(self, count=1, status=503, match='', headers=None):
        self._add('answer', count, match, (status, headers or {}))

    def lose(self, count=1, match=''):
        self._add('lose', count, match)

    def _add(self, kind, count, match, status=None):
        with self._lock:
            self._faults.append([kind, count, match, status])

    def _fault(self, line):
        with self._lock:
            for fault in self._faults:
                if fault[1] > 0 and fault[2] in line:
                    fault[1] -= 1
                    return fault
        return None

    def _accept(self):
        self._listening.wait()
        while not self._stop:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        try:
            head, body = _read_request(client)
            if head is None:
                return
            line = head.split(b'\r\n', 1)[0].decode('latin-1')
            method, path = line.split(' ')[:2]
            with self._lock:
                self.seen.append((method, path.split('?')[0]))
            fault = self._fault('%s %s' % (method, path))
            if fault is not None and fault[0] == 'reset':
                return _reset(client)
            if fault is not None and fault[0] == 'answer':
                client.sendall(page(*fault[3]))
                return
            server = socket.create_connection(self.target)
            with self._lock:
                self.forwarded.append((method, path.split('?')[0]))
            try:
                server.sendall(_closing(head) + body)
                first = True
                while True:
                    data = server.recv(65536)
                    if first and fault is not None and fault[0] == 'lose':
                        return _reset(client)       # the server answered (it applied the request): lost
                    first = False
                    if not data:
                        return
                    client.sendall(data)
            finally:
                server.close()
        except OSError:
            return
        finally:
            client.close()


def page(status, headers=None):
    """A whole plain-text HTTP response of ``status`` with ``headers`` (a dict), ending its connection."""
    text = _PAGES.get(status, b'Unavailable')
    extra = b''.join(b'%s: %s\r\n' % (k.encode(), str(v).encode()) for k, v in sorted((headers or {}).items()))
    return (b'HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n%sConnection: close\r\n\r\n%s'
            % (status, text, len(text), extra, text))


class Canned(object):
    """A loopback server that answers every request the same way (see the module's docstring)."""

    def __init__(self, answer=None):
        self.answer = answer
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(64)
        self.url = 'http://127.0.0.1:%d' % self.listener.getsockname()[1]
        self.connections = 0
        self._held = []

    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.listener.close()
        for sock in self._held:
            sock.close()
        return False

    def _accept(self):
        while True:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            if self.answer is None:
                self._held.append(client)       # accepted, never answered
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        try:
            first = client.recv(65536)
            # a TLS handshake (its first byte 0x16) is answered at once, as a plain HTTP server answers what it
            # cannot parse; an HTTP request is read whole first
            if not first or (first[:1] != b'\x16' and _read_request(client, first)[0] is None):
                return
            if self.answer == 'reset':
                return _reset(client)
            client.sendall(self.answer)
        except OSError:
            return
        finally:
            client.close()


def _read_request(sock, data=b''):
    """One request's head and body (``Content-Length``), or (None, None) if the client closed first; ``data``: what
    was read of it already."""
    while b'\r\n\r\n' not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, None
        data += chunk
    head, body = data.split(b'\r\n\r\n', 1)
    length = 0
    for header in head.split(b'\r\n')[1:]:
        name, _colon, value = header.partition(b':')
        if name.strip().lower() == b'content-length':
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b'\r\n\r\n', body


def _closing(head):
    """The request's head with ``Connection: close``: the server ends the connection after its answer."""
    lines = [h for h in head.rstrip(b'\r\n').split(b'\r\n') if not h.lower().startswith(b'connection:')]
    return b'\r\n'.join(lines + [b'Connection: close']) + b'\r\n\r\n'


def _reset(sock):
    """Close ``sock`` with a reset (RST), as a server that died does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    sock.close()
