# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the PostgreSQL store connects: TLS, the URL's own option, which failures a retry may cure, the
connection (``Connection``: opened once, in pipeline mode, closed without waiting) and its socket.

This is a private module: it may change at any time. The store (``_postgresql``) says how these are used
(its docstring: TLS, retries). psycopg is used through its public interface only (docs/developing.md).
"""

import contextlib
import ipaddress
import logging
import math
import os
import socket
import weakref

try:
    import psycopg
except ImportError:  # pragma: no cover - exercised by the missing-library test
    psycopg = None

from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._secrets import hide


#: Hosts whose traffic never leaves this machine.
_LOCAL_HOSTS = ('', 'localhost', 'localhost.localdomain')


def _is_local(host):
    """A Unix socket directory, ``localhost`` or a loopback address."""
    host = host.strip()
    if host.startswith('/') or host.startswith('@') or host.lower() in _LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip('[]')).is_loopback
    except ValueError:
        return False


def tls_mode(params, validate_certs, environ):
    """The ``sslmode`` to ask libpq for, or None for libpq's own default (see the module's docstring)."""
    if params.get('sslmode') or environ.get('PGSSLMODE') or params.get('service') or environ.get('PGSERVICE'):
        return None     # said by the user, or by a pg_service.conf entry that we do not read
    if not validate_certs:
        return 'require'
    # Both the names (what a certificate is checked against) and the addresses (where the traffic goes,
    # when hostaddr is given) must be this machine's; a parameter of the URL hides its environment variable.
    hosts = []
    for name, variable in (('host', 'PGHOST'), ('hostaddr', 'PGHOSTADDR')):
        value = params.get(name) or environ.get(variable)
        if value:
            hosts += value.split(',')
    if all(_is_local(host) for host in hosts):      # no host at all: the local Unix socket
        return None
    return 'verify-full'


def _let_go(conn):
    """Drop a connection inherited from the parent process without touching the parent's session.

    Closing it as it is would send the server a Terminate message on the
    socket both processes share, ending the parent's session. The child's copy
    of the socket is first pointed at /dev/null, so that only it is closed.
    """
    try:
        fd = conn.fileno()
        null = os.open(os.devnull, os.O_RDWR)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)
        conn.close()
    except Exception:  # pylint: disable=broad-except
        pass  # the parent's session is safe either way; nothing else matters here


#: SQLSTATEs after which the transaction was rolled back by the server and may be run again (``_retry``):
#: class 08 (connection exception), admin / crash shutdown, cannot connect now, serialization failure, deadlock
RETRY_SQLSTATES = ('57P01', '57P02', '57P03', '40001', '40P01')

#: what libpq says when a connection could not be made but a later attempt may be (the server restarting,
#: a standby not promoted yet, too many clients): anything else (a login or database refused, TLS) is final
RETRY_CONNECT = ('connection refused', 'timeout expired', 'connection timed out', 'the database system is',
                 'connection reset', 'server closed the connection', 'could not receive data', 'no route to host',
                 'network is unreachable', 'too many clients', 'remaining connection slots', 'session is read-only',
                 'is in hot standby', 'not yet accepting connections', 'read-only', 'could not send',
                 'terminating connection')


def lost_connection(error):
    """Whether the psycopg ``error`` leaves the connection in a state nobody knows (a session the server ended,
    a socket closed, a pipeline that cannot be left): an ``OperationalError`` the client raised itself (no
    SQLSTATE), or one of class 08 or a shutdown (57P01-57P03), whether or not psycopg has marked the connection
    broken yet."""
    if not isinstance(error, psycopg.OperationalError):
        return False
    sqlstate = getattr(error, 'sqlstate', None)
    return not sqlstate or sqlstate.startswith('08') or sqlstate in ('57P01', '57P02', '57P03')


def retryable_sqlstate(sqlstate):
    """Whether a server error with this SQLSTATE rolled the transaction back and may be retried."""
    return bool(sqlstate) and (sqlstate.startswith('08') or sqlstate in RETRY_SQLSTATES)


#: the URL option of this store (not libpq's: taken out of the URL before libpq reads it)
PREPARED = 'prepared_statements'
_TRUE, _FALSE = ('true', 'yes', 'on', '1'), ('false', 'no', 'off', '0')


def prepared_statements(spec, where):
    """``(the URL without the option, whether server-side prepared statements are used)`` for store URL ``spec``:
    ``?prepared_statements=false`` turns them off (default true)."""
    base, mark, query = spec.partition('?')
    query, fragment = query.split('#', 1) if '#' in query else (query, None)
    kept, prepared = [], True
    for item in query.split('&') if mark else ():
        name, _eq, value = item.partition('=')
        if name != PREPARED:
            kept.append(item)
        elif value.lower() in _TRUE + _FALSE:
            prepared = value.lower() in _TRUE
        else:
            raise InvalidArgument('store %s: %s=%s is neither true nor false. Use %s=false for a pooler that cannot '
                                  'keep server-side prepared statements (pgbouncer in transaction mode before 1.21), '
                                  'or leave it out.' % (where, PREPARED, value, PREPARED))
    dsn = base + ('?' + '&'.join(kept) if kept else '') + ('#' + fragment if fragment is not None else '')
    return dsn, prepared


def _hang_up(conn):
    """Shut the socket of ``conn`` (from another thread): a wait on a server that does not answer ends."""
    try:
        sock = socket.socket(fileno=os.dup(conn.fileno()))
    except (OSError, ValueError, psycopg.Error):
        return      # already closed
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.close()


class _CleanupErrors(logging.Filter):
    """Drops psycopg's "error ignored ..." warnings: psycopg logs them when ending a pipeline (or rolling back) fails
    after an error the store already has and reports (a session the server ended). With no logging configured,
    Python writes such a warning to stderr, which Ansible shows as "WorkerProcess ... errantly sent data directly to
    stderr", once per failed cleanup: noise about an error the task's result already explains."""

    def filter(self, record):
        return not str(record.msg).startswith('error ignored')


if psycopg is not None:
    logging.getLogger('psycopg').addFilter(_CleanupErrors())


#: psycopg's pipeline mode (psycopg 3.1 with libpq 14 or newer): several statements per round trip
PIPELINE = psycopg is not None and hasattr(psycopg, 'Pipeline') and psycopg.Pipeline.is_supported()

#: the store URLs (as given) under which a store of this process lost its prepared statements: a store opened
#: on one of them afterwards prepares none (``Connection._lost_prepared``)
UNPREPARED = set()


def _shut(held):
    """Close the connection of ``held`` without waiting for the server, then end its pipeline mode (at once: the
    connection is closed). Run by ``close()``, and by the garbage collector for a store dropped without it (the
    store's ``weakref.finalize``, which runs before the store's attributes are let go): a suspended
    ``Connection.pipeline()`` finalized on an open connection would wait for the server's answer to its Sync."""
    conn, mode = held.pop('conn', None), held.pop('mode', None)
    if conn is not None:
        if held.get('pid') == os.getpid():
            try:
                conn.close()
            except Exception:  # pylint: disable=broad-except
                pass  # closed either way
        else:
            _let_go(conn)
    if mode is not None:
        try:
            mode.close()
        except Exception:  # pylint: disable=broad-except
            pass  # the connection is closed: leaving pipeline mode fails, and there is nothing left to do


class Connection(object):
    """The store's one connection: opened once (again in a forked process, or once found dead), put in psycopg's
    pipeline mode by ``Connection.pipeline()`` held open across transactions (``_open_pipeline``), closed without
    waiting for the server. ``spec``, ``where``, ``timeout``, ``_secrets`` and ``_connect_args`` are the store's."""

    _conn = None
    #: the process that opened ``_conn``
    _pid = None
    #: ``{'conn', 'pid', 'mode'}``: what ``_shut`` closes (``mode``: the ExitStack holding ``Connection.pipeline()``)
    _held = None
    _closer = None
    #: the open psycopg Pipeline, or None
    _pipeline = None
    #: whether the connection's transactions are READ COMMITTED unless BEGIN says otherwise (and pipelined)
    _implicit_ok = False
    #: True once the watchdog hung up on a server that did not answer by the task's deadline
    _hung = False

    def _scrub(self, text):
        return hide(text, getattr(self, '_secrets', ()))

    def _connect(self):
        self._drop_connection()
        args = dict(self._connect_args)
        left = _retry.remaining()
        if left is not None and 'connect_timeout' in args:     # not past the deadline of the task's retries
            args['connect_timeout'] = max(2, int(math.ceil(min(self.timeout, left))))
        try:
            self._conn = psycopg.connect(prepared_statements(self.spec, self.where)[0], **args)
        except psycopg.Error as e:
            self._conn = None
            text = self._scrub(str(e).strip())
            again = any(said in text.lower() for said in RETRY_CONNECT)
            hint = ('Check that the server runs and accepts connections from this controller, and the user, '
                    'password and database in store.')
            if self._connect_args.get('sslmode') == 'verify-full' and ('SSL' in text or 'certificate' in text):
                hint = ("The store verifies a remote server's TLS certificate by default (validate_certs: true means "
                        'sslmode=verify-full): give the CA that signed it with sslrootcert=PATH in the URL (or '
                        'sslrootcert=system with libpq 16 or newer), set sslmode in the URL yourself, or set '
                        'validate_certs: false for TLS without verification.')
            error = StoreUnavailable('Cannot connect to the PostgreSQL store %s: %s. %s' % (self.where, text, hint))
            raise _retry.mark(error, _retry.CONNECT) if again else error
        self._pid = os.getpid()
        self._held = {'conn': self._conn, 'pid': self._pid, 'mode': None}
        self._closer = weakref.finalize(self, _shut, self._held)
        try:
            self._schema, isolation = self._conn.execute(
                "SELECT current_schema(), current_setting('default_transaction_isolation')", prepare=False).fetchone()
        except psycopg.Error as e:
            raise self._translate(e)
        # a write transaction that begins with its lock needs no BEGIN where the server's own default is what BEGIN
        # would ask for (``_begin``)
        self._implicit_ok = PIPELINE and isolation == 'read committed'
        if self._schema is None:
            raise StoreUnavailable('The PostgreSQL store %s has no schema to keep its tables in: no schema of the '
                                   "connection's search_path exists. Create the schema, or set search_path in "
                                   'the URL (options=-csearch_path%%3DNAME).' % self.where)

    def _drop_connection(self):
        """Close the connection (a forked process's copy: without touching the parent's session), not waiting."""
        if self._closer is not None:
            self._closer.detach()
            _shut(self._held)
        self._conn = self._pipeline = self._held = self._closer = None

    def _own_connection(self):
        """A process forked from the one that opened the connection lets go of it, and opens its own."""
        if self._conn is not None and self._pid != os.getpid():
            self._drop_connection()

    def _open_pipeline(self):
        """Put the connection in pipeline mode (``Connection.pipeline()``), held open until ``_leave_pipeline``, across
        transactions. Without pipeline support (libpq before 14) each statement is its own round trip."""
        if self._pipeline is None and PIPELINE:
            mode = contextlib.ExitStack()
            self._pipeline = mode.enter_context(self._conn.pipeline())
            self._held['mode'] = mode

    def _leave_pipeline(self, error=None):
        """Leave pipeline mode: sync what is queued and read every answer (raising the first error) or, after
        ``error``, drop it."""
        mode, self._pipeline = self._held and self._held.get('mode'), None
        if mode is None:
            return
        self._held['mode'] = None
        if error is None:
            mode.close()
            return
        if lost_connection(error) or self._conn.closed or self._conn.broken:
            self._drop_connection()     # nothing to sync on a connection the server ended: it is closed
            return
        try:
            mode.__exit__(type(error), error, error.__traceback__)
        except Exception:  # pylint: disable=broad-except
            pass  # the connection is broken or the pipeline aborted: the caller raises the first error

    def _lost_prepared(self):
        """The server no longer holds what psycopg prepared on this connection (a DISCARD ALL or DEALLOCATE ALL run
        by another client on this session, a pooler that gave it another server connection): from here on this
        store, and any store this process opens on the same URL, prepares nothing; the connection is closed
        (psycopg's names of the lost statements go with it) and the next transaction opens another."""
        UNPREPARED.add(self.spec)
        self._connect_args['prepare_threshold'] = None
        self._drop_connection()

    def _give_up(self):
        conn = self._conn
        if conn is not None and self._pid == os.getpid():
            self._hung = True
            _hang_up(conn)

    def close(self):
        self._drop_connection()
