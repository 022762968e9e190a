# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The PostgreSQL server the tests use, and an isolated, throw-away state on it.

The server is ``NETPOOL_IPAM_TEST_POSTGRESQL_DSN`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``, trust auth). Each state is
a schema of its own in the database ``netpool_ipam_test`` (created when
missing), named by ``options=-csearch_path%3D...`` in the store URL, and
dropped afterwards: creating a schema takes milliseconds, a database a second.

No server skips the test with the reason, unless
``NETPOOL_IPAM_TEST_POSTGRESQL=required`` (CI): then it fails. psycopg is a
hard dependency (requirements.txt): without it the tests fail to import.
"""

import contextlib
import os
import socket
import uuid

import pytest

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

SERVER = os.environ.get('NETPOOL_IPAM_TEST_POSTGRESQL_DSN', 'postgresql://postgres@127.0.0.1:5432/postgres')
DATABASE = 'netpool_ipam_test'
REQUIRED = os.environ.get('NETPOOL_IPAM_TEST_POSTGRESQL') == 'required'

_state = {}


def _unavailable(reason):
    msg = ('PostgreSQL tests need a server: %s. Start one on 127.0.0.1:5432 (trust auth for postgres) or set '
           'NETPOOL_IPAM_TEST_POSTGRESQL_DSN; NETPOOL_IPAM_TEST_POSTGRESQL=required makes this a failure.' % reason)
    if REQUIRED:
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


def database_dsn(**extra):
    """The URL of the test database (created once per process), with ``extra`` libpq parameters."""
    params = conninfo_to_dict(SERVER)
    params['dbname'] = DATABASE
    params.update(extra)
    return make_conninfo(**params)


def require_server():
    """Skip (or, when required, fail) unless the server answers; make sure the test database exists."""
    if 'error' not in _state:
        _state['error'] = None
        try:
            with psycopg.connect(SERVER, autocommit=True, connect_timeout=3) as conn:
                if not conn.execute('SELECT 1 FROM pg_database WHERE datname = %s', (DATABASE,)).fetchone():
                    try:
                        conn.execute('CREATE DATABASE %s' % DATABASE)
                    except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
                        pass  # another test process made it meanwhile
        except psycopg.Error as e:
            _state['error'] = 'cannot reach %s (%s)' % (SERVER, str(e).strip().splitlines()[0])
    if _state['error']:
        _unavailable(_state['error'])


def admin():
    """A connection to the test database, outside any store (autocommit)."""
    require_server()
    return psycopg.connect(database_dsn(), autocommit=True)


def url(schema, **extra):
    """The store value naming the state in ``schema`` (``extra``: more libpq parameters)."""
    params = conninfo_to_dict(database_dsn(**extra))
    user = params.pop('user', '')
    password = params.pop('password', None)
    host = params.pop('host', '127.0.0.1')
    port = params.pop('port', '5432')
    dbname = params.pop('dbname')
    query = ['options=-csearch_path%%3D%s' % schema] + ['%s=%s' % kv for kv in sorted(params.items())]
    auth = user + (':' + password if password else '') + '@' if user else ''
    return 'postgresql://%s%s:%s/%s?%s' % (auth, host, port, dbname, '&'.join(query))


@contextlib.contextmanager
def fresh_schema(prefix='t'):
    """Yield ``(url, schema)`` of a new empty schema; drop it afterwards."""
    with admin() as conn:
        schema = 'netpool_%s_%s' % (prefix, uuid.uuid4().hex[:12])
        conn.execute('CREATE SCHEMA %s' % schema)
        try:
            yield url(schema), schema
        finally:
            conn.execute('DROP SCHEMA %s CASCADE' % schema)


def free_port():
    """A TCP port on 127.0.0.1 free now, for a server a test starts: one of the kernel's ephemeral ports (a bind to
    port 0), as the other servers the tests start take theirs, so that two test processes rarely pick the same."""
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _ephemeral_low():
    """The lowest port of the kernel's range of ephemeral ports (32768 where it cannot be read)."""
    try:
        with open('/proc/sys/net/ipv4/ip_local_port_range') as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def closed_port():
    """A TCP port on 127.0.0.1 that nothing listens on, the first free one counting down from just below the
    kernel's range of ephemeral ports. A port from that range (a bind to port 0) could be taken meanwhile by a
    server another test starts (they take theirs so), or be given by the kernel to a retried connection as its
    own source port, which then connects to itself and reads its own request as the answer: either makes the
    test's error something other than "nothing listens there"."""
    for port in range(_ephemeral_low() - 1, 1023, -1):
        s = socket.socket()
        try:
            s.bind(('127.0.0.1', port))
        except OSError:
            continue
        finally:
            s.close()
        return port
    raise RuntimeError('no free TCP port on 127.0.0.1 below the ephemeral range')
