# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the PostgreSQL store connects: TLS, the URL's own option, which failures a retry may cure, and the
connection's socket.

This is a private module: it may change at any time. The store (``_postgresql``) says how these are used
(its docstring: TLS, retries); nothing here holds a connection of its own.
"""

import ipaddress
import os
import socket

try:
    import psycopg
except ImportError:  # pragma: no cover - exercised by the missing-library test
    psycopg = None

from ansible_collections.netpool.ipam.plugins.module_utils._errors import InvalidArgument


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


def _prepare(conn, params):
    """psycopg's ``prepare`` for a statement with these parameters on ``conn``: never for one without parameters
    (BEGIN, ``SET LOCAL`` with the transaction's own lock_timeout, a schema check: run once, or different each
    time); else None (psycopg's rule: prepared when the connection prepares, see ``PREPARED``) unless psycopg has
    a DEALLOCATE pending. psycopg forgets what it prepared when it reads the answer of a ROLLBACK, DROP or ALTER,
    and deallocates it all on the server after the next statement it sends: a read in pipeline mode may be
    where it reads that answer, and a statement prepared next would be deallocated behind psycopg's back
    ("prepared statement ... does not exist" when it is run again). That next statement goes unprepared."""
    if not params:
        return False
    return False if deallocation_owed(conn) else None


def deallocation_owed(conn):
    """Whether psycopg owes the server a DEALLOCATE, which it sends after the next statement it executes."""
    return bool(getattr(getattr(conn, '_prepared', None), '_to_flush', None))


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
