# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A relay on loopback that counts round trips between a client and a PostgreSQL server.

A round trip is counted each time the server sends something after the client sent something since the
server last spoke: pipelined statements sent together and answered together are one. Used by
test_postgresql_round_trips.py and bench/round_trips.py.
"""

import contextlib
import selectors
import socket
import threading

from urllib.parse import urlsplit, urlunsplit


class Count(object):
    round_trips = 0


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
        self.total = 0
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
        start = self.total
        yield count
        count.round_trips = self.total - start

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
        try:
            while True:
                for key, _events in selector.select():
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    if key.fileobj is client:
                        client_spoke = True
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
