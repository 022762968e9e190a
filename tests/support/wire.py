# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A relay on loopback that counts round trips between a client and a PostgreSQL server.

A round trip is counted each time the server sends something after the client sent something since the
server last spoke: pipelined statements sent together and answered together are one. A client's burst of
nothing but Sync and Flush messages (ending a transaction that wrote nothing, not waited for: its answer races
the end of a ``counting`` block) is not one; on a TLS connection, whose messages are not read, every burst is. Used by
test_postgresql_round_trips.py and bench/round_trips.py. On a connection without TLS the relay also reads the
protocol's messages: the statements the client runs (an Execute message, or a simple Query) and the rows the
server sends (DataRow messages).
"""

import contextlib
import selectors
import socket
import struct
import threading

from urllib.parse import urlsplit, urlunsplit


class Count(object):
    round_trips = 0
    #: statements run and rows answered (None: a connection of the block used TLS, its messages are not read)
    statements = rows = 0


#: the request codes of the untyped messages a client may send before its startup message (TLS, GSS encryption)
_REQUESTS = (80877103, 80877104)


class _Messages(object):
    """One direction of a connection split into the protocol's messages: ``seen(kind, client)`` for each typed one."""

    def __init__(self, seen, client):
        self.seen, self.client = seen, client
        self.buffer = b''
        self.untyped = client       # a client's first messages (startup, TLS request) have no type byte
        self.answers = 0            # a server answers a TLS or GSS request with one byte
        self.other = None           # the other direction's _Messages
        self.encrypted = False
        self.spoke = False          # a client's message other than Sync and Flush since it was last cleared

    def feed(self, data):
        if self.encrypted:
            return
        self.buffer += data
        while True:
            if self.answers and self.buffer:
                self.answers -= 1
                if self.buffer[:1] in (b'S', b'G'):     # TLS or GSS: nothing more can be read
                    self.encrypted = self.other.encrypted = True
                    return
                self.buffer = self.buffer[1:]
                continue
            if self.untyped:
                if len(self.buffer) < 8:
                    return
                length, code = struct.unpack('!ii', self.buffer[:8])
                if len(self.buffer) < length:
                    return
                self.buffer = self.buffer[length:]
                self.spoke = True
                if code in _REQUESTS:
                    self.other.answers += 1
                else:
                    self.untyped = False
                continue
            if len(self.buffer) < 5:
                return
            length = struct.unpack('!i', self.buffer[1:5])[0]
            if len(self.buffer) < 1 + length:
                return
            self.seen(self.buffer[:1], self.client)
            if self.buffer[:1] not in (b'S', b'H'):     # Sync, Flush
                self.spoke = True
            self.buffer = self.buffer[1 + length:]


class RoundTrips(object):
    """``with RoundTrips(spec) as relay:`` then open the store on ``relay.spec``; ``relay.counting()``."""

    def __init__(self, spec):
        """``spec``: a postgresql:// URL with one host; ``self.spec`` is the same URL through the relay."""
        url = urlsplit(spec)
        self.target = (url.hostname or '127.0.0.1', url.port or 5432)
        self.listener = socket.socket()
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(16)
        auth = url.netloc.rpartition('@')[0]
        netloc = '%s127.0.0.1:%d' % (auth + '@' if auth else '', self.listener.getsockname()[1])
        self.spec = urlunsplit((url.scheme, netloc, url.path, url.query, url.fragment))
        self.total = self.statements = self.rows = 0
        self.encrypted = False
        self._lock = threading.Lock()
        self._stop = False
        self._threads = []

    def __enter__(self):
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc):
        self._stop = True
        self.listener.close()
        return False

    @contextlib.contextmanager
    def counting(self):
        """The round trips made inside the block (``.round_trips`` once it is over)."""
        count = Count()
        start = (self.total, self.statements, self.rows)
        yield count
        count.round_trips = self.total - start[0]
        if not self.encrypted:
            count.statements, count.rows = self.statements - start[1], self.rows - start[2]
        else:
            count.statements = count.rows = None

    def _seen(self, kind, client):
        with self._lock:
            if client and kind in (b'E', b'Q'):     # Execute, Query
                self.statements += 1
            elif not client and kind == b'D':       # DataRow (a client's D is Describe)
                self.rows += 1

    def _accept(self):
        while not self._stop:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            for sock in (client, server):   # forward each message as it comes, as libpq sends it
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            thread = threading.Thread(target=self._relay, args=(client, server), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _relay(self, client, server):
        selector = selectors.DefaultSelector()
        selector.register(client, selectors.EVENT_READ, server)
        selector.register(server, selectors.EVENT_READ, client)
        client_spoke = False
        said, answered = _Messages(self._seen, True), _Messages(self._seen, False)
        said.other, answered.other = answered, said
        try:
            while True:
                for key, _events in selector.select():
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    (said if key.fileobj is client else answered).feed(data)
                    if said.encrypted:
                        self.encrypted = True
                    if key.fileobj is client:
                        client_spoke = client_spoke or said.spoke or said.encrypted
                        said.spoke = False
                    elif client_spoke:
                        client_spoke = False
                        with self._lock:
                            self.total += 1
                    key.data.sendall(data)
        except OSError:
            return
        finally:
            selector.close()
            client.close()
            server.close()
