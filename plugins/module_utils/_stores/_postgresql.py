# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The PostgreSQL store: one database shared by many controllers (psycopg 3).

This is a private module: it may change at any time.

- The tables are those of the SQLite store, in the first schema of the
  connection's ``search_path`` (``options=-csearch_path%3Dipam`` in the DSN
  picks one). They are created by the first change (a store opened with
  ``create=False`` - reads, check mode - creates none: a database without
  them reads as empty, each transaction on temporary tables of its own); a
  ``meta`` table holds the schema version, an older schema is migrated by
  the first write that commits (reads migrate it inside their transaction
  and roll that back), a newer one refused with ``store_version``. Text columns use the "C" collation, so rows sort as in
  SQLite and as Python sorts them, whatever the database's locale.
- Writers do not exclude each other as a whole. ``lock_pool`` takes a
  transaction-level advisory lock on a 64-bit hash of (schema, namespace,
  pool), plus a shared one on the namespace; ``lock_namespace`` (pool-shape
  changes, overlap checks) takes the namespace lock exclusively. Two pools
  are allocated from in parallel; one pool serialises its own writers. The
  unique constraint on (namespace, address) is the last guard.
- Write transactions run at READ COMMITTED: each statement after the lock
  sees everything committed before the lock was had. Reads run at REPEATABLE
  READ READ ONLY, one consistent snapshot.
- A lock not had within ``timeout`` seconds gives ``store_busy``
  (``lock_timeout``, set per transaction so a pooler in transaction mode
  keeps it). A server that is down, refuses or rejects the login gives
  ``store_unavailable``; the password is never in a message.
- One connection per store object, opened once. A connection found dead at
  the start of a transaction (idle timeout, restart, fail-over) is reopened
  once; one that dies inside a transaction gives ``store_unavailable`` and
  the server rolls the transaction back. A process forked from the one that
  opened the store opens its own connection (a socket is never shared).
- TLS (``tls_mode``): an sslmode in the DSN or ``PGSSLMODE`` is used as
  given, and so is a connection service (``service=``, ``PGSERVICE``). Otherwise ``validate_certs: true`` (the default) means
  ``sslmode=verify-full`` for a server across a network (the certificate and
  the host name are checked, against ``sslrootcert`` or libpq's
  ``~/.postgresql/root.crt``), and libpq's own default for a server on this
  machine (a Unix socket, ``localhost``, a loopback address), whose traffic
  never leaves it. ``validate_certs: false`` means ``sslmode=require`` (TLS,
  certificate not verified). Every other TLS parameter (``sslrootcert``,
  ``sslcert``…) is taken from the DSN as libpq takes it.
- ``store_token``, when given, is the password (kept out of the DSN and
  no_log); a DSN that carries a password too is refused.
"""

import hashlib
import ipaddress
import math
import os
import struct

try:
    import psycopg
    from psycopg import errors as pg_errors
    from psycopg.conninfo import conninfo_to_dict
except ImportError:  # pragma: no cover - exercised by the missing-library test
    psycopg = None
    pg_errors = None

from ansible_collections.netpool.ipam.plugins.module_utils._errors import (
    InvalidArgument, StoreBusy, StoreUnavailable, missing_library)
from ansible_collections.netpool.ipam.plugins.module_utils._secrets import find, hide, redact
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql import INDEXES_2, SqlStore


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


SCHEMA = """
CREATE TABLE pool (
    namespace TEXT COLLATE "C" NOT NULL, name TEXT COLLATE "C" NOT NULL, parent TEXT COLLATE "C",
    data TEXT NOT NULL,
    PRIMARY KEY (namespace, name));
CREATE TABLE reservation (
    namespace TEXT COLLATE "C" NOT NULL, pool TEXT COLLATE "C" NOT NULL, owner TEXT COLLATE "C" NOT NULL,
    key TEXT COLLATE "C" NOT NULL, address TEXT COLLATE "C" NOT NULL, expires_at TEXT COLLATE "C",
    data TEXT NOT NULL,
    PRIMARY KEY (namespace, pool, owner, key),
    UNIQUE (namespace, address));
CREATE INDEX reservation_pool ON reservation (namespace, pool, address);
CREATE INDEX reservation_expiry ON reservation (namespace, pool, expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE free_span (
    namespace TEXT COLLATE "C" NOT NULL, pool TEXT COLLATE "C" NOT NULL, first TEXT COLLATE "C" NOT NULL,
    last TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (namespace, pool, first));
CREATE TABLE released (
    namespace TEXT COLLATE "C" NOT NULL, pool TEXT COLLATE "C" NOT NULL, address TEXT COLLATE "C" NOT NULL,
    until TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (namespace, pool, address));
CREATE TABLE history (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, time TEXT COLLATE "C" NOT NULL,
    namespace TEXT COLLATE "C" NOT NULL, pool TEXT COLLATE "C", object TEXT NOT NULL, action TEXT NOT NULL,
    owner TEXT COLLATE "C", key TEXT COLLATE "C", address TEXT COLLATE "C",
    old TEXT NOT NULL, new TEXT NOT NULL);
CREATE INDEX history_pool ON history (namespace, pool);
CREATE INDEX history_owner ON history (owner);
CREATE INDEX history_address ON history (address)
""" + ';\n' + ';\n'.join(INDEXES_2)

#: schema version -> statements that bring a store of that version to the next
MIGRATIONS = {1: list(INDEXES_2)}


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


def _lock_key(*parts):
    """A stable signed 64-bit advisory lock key for these strings."""
    digest = hashlib.sha256('\0'.join(parts).encode('utf-8')).digest()
    return struct.unpack('>q', digest[:8])[0]


class PostgresqlStore(SqlStore):
    kind = 'postgresql'
    integrity_errors = (psycopg.IntegrityError,) if psycopg else ()
    driver_errors = (psycopg.Error,) if psycopg else ()

    #: ``?`` query -> ``%s`` query
    _converted = {}

    def __init__(self, spec, timeout=30, validate_certs=True, token=None, create=True):
        self.spec = spec
        self.where = redact(spec)
        self.timeout = timeout
        #: what no message may show: the passwords of the URL (as written and decoded) and the token
        self._secrets = find({'store': spec, 'store_token': token})
        if psycopg is None:
            raise missing_library('psycopg', 'for the PostgreSQL store %s' % self.where, 'psycopg[binary]')
        try:
            params = conninfo_to_dict(spec)
        except psycopg.Error as e:
            raise InvalidArgument('store %s is not a valid PostgreSQL URL: %s' % (self.where, self._scrub(str(e))))
        self._secrets.extend(s for s in (params.get('password'),) if s and s not in self._secrets)
        if token is not None and params.get('password'):
            raise InvalidArgument('The PostgreSQL store %s carries a password and store_token is set too. Give the '
                                  'password once: in store_token (kept out of the URL), or in the URL.' % self.where)
        # No server-side prepared statements: an Ansible worker is a fresh process per task and host, so a
        # statement is rarely run twice on one connection, and poolers in transaction mode (pgbouncer before
        # 1.21) lose them between transactions.
        self._connect_args = {'autocommit': True, 'prepare_threshold': None}
        if token is not None:
            self._connect_args['password'] = token
        sslmode = tls_mode(params, validate_certs, os.environ)
        if sslmode is not None:
            self._connect_args['sslmode'] = sslmode
        if 'connect_timeout' not in params:
            self._connect_args['connect_timeout'] = max(2, int(math.ceil(timeout)))
        if 'application_name' not in params:
            self._connect_args['application_name'] = 'netpool.ipam'
        self._conn = None
        self._connect()
        self._migrate(SCHEMA, MIGRATIONS, 'CREATE TABLE meta (name TEXT COLLATE "C" PRIMARY KEY, value TEXT NOT NULL)',
                      create=create)

    # -- connection -----------------------------------------------------
    def _scrub(self, text):
        return hide(text, getattr(self, '_secrets', ()))

    def _connect(self):
        try:
            self._conn = psycopg.connect(self.spec, **self._connect_args)
        except psycopg.Error as e:
            self._conn = None
            text = self._scrub(str(e).strip())
            hint = ('Check that the server runs and accepts connections from this controller, and the user, '
                    'password and database in store.')
            if self._connect_args.get('sslmode') == 'verify-full' and ('SSL' in text or 'certificate' in text):
                hint = ("The store verifies a remote server's TLS certificate by default (validate_certs: true means "
                        'sslmode=verify-full): give the CA that signed it with sslrootcert=PATH in the URL (or '
                        'sslrootcert=system with libpq 16 or newer), set sslmode in the URL yourself, or set '
                        'validate_certs: false for TLS without verification.')
            raise StoreUnavailable('Cannot connect to the PostgreSQL store %s: %s. %s' % (self.where, text, hint))
        self._pid = os.getpid()
        try:
            self._schema = self._conn.execute('SELECT current_schema()').fetchone()[0]
        except psycopg.Error as e:
            raise self._translate(e)
        if self._schema is None:
            raise StoreUnavailable('The PostgreSQL store %s has no schema to keep its tables in: no schema of the '
                                   "connection's search_path exists. Create the schema, or set search_path in "
                                   'the URL (options=-csearch_path%%3DNAME).' % self.where)

    def _begin(self, write, commit):
        begin = ('BEGIN ISOLATION LEVEL READ COMMITTED' if write
                 else 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
        begin += "; SET LOCAL lock_timeout = '%dms'" % max(1, int(self.timeout * 1000))
        if self._conn is not None and self._pid != os.getpid():
            _let_go(self._conn)
            self._conn = None
        if self._conn is None or self._conn.closed:
            self._connect()
            fresh = True
        else:
            fresh = False
        try:
            self._conn.execute(begin)
            return
        except psycopg.Error as e:
            if fresh or not isinstance(e, psycopg.OperationalError) or not (self._conn.closed or self._conn.broken):
                raise self._translate(e)
        # the connection died while idle: nothing was done on it yet, so open another once
        self._connect()
        try:
            self._conn.execute(begin)
        except psycopg.Error as e:
            raise self._translate(e)

    def _execute(self, sql, params=()):
        converted = self._converted.get(sql)
        if converted is None:
            converted = self._converted[sql] = sql.replace('%', '%%').replace('?', '%s')
        return self._conn.execute(converted, tuple(params))

    def _rollback(self):
        if self._conn is None or self._conn.closed:
            return
        try:
            self._conn.execute('ROLLBACK')
        except psycopg.Error:
            pass  # a dead connection: the server rolled the transaction back

    def _translate(self, error):
        text = self._scrub(str(error).strip())
        if isinstance(error, (pg_errors.LockNotAvailable, pg_errors.QueryCanceled)):
            return StoreBusy('The PostgreSQL store %s: a lock was not had within %s seconds (another controller '
                             'holds it). Retry, or raise timeout.' % (self.where, self.timeout))
        if isinstance(error, (pg_errors.DeadlockDetected, pg_errors.SerializationFailure)):
            return StoreBusy('The PostgreSQL store %s: the transaction collided with another one and was rolled '
                             'back (%s). Retry.' % (self.where, text))
        if isinstance(error, pg_errors.InsufficientPrivilege):
            return StoreUnavailable('The PostgreSQL store %s refused: %s. Grant the user the rights on the '
                                    'database and schema, or point store at a database it owns.'
                                    % (self.where, text))
        if isinstance(error, psycopg.OperationalError):
            return StoreUnavailable('The PostgreSQL store %s became unavailable: %s. Nothing of the interrupted '
                                    'transaction was kept unless it had committed; rerun when the server is back.'
                                    % (self.where, text))
        return StoreUnavailable('The PostgreSQL store %s failed: %s' % (self.where, text))

    def lock_pool(self, namespace, name):
        """A shared lock on the namespace, then an exclusive one on the pool: other pools go on in parallel."""
        self._execute('SELECT pg_advisory_xact_lock_shared(?), pg_advisory_xact_lock(?)',
                      (_lock_key(self._schema, 'namespace', namespace),
                       _lock_key(self._schema, 'pool', namespace, name))).fetchall()

    def lock_namespace(self, namespace):
        """The namespace lock, exclusive: no pool of the namespace is written meanwhile."""
        self._execute('SELECT pg_advisory_xact_lock(?)', (_lock_key(self._schema, 'namespace', namespace),)).fetchall()

    def close(self):
        if self._conn is not None:
            if self._pid == os.getpid():
                self._conn.close()
            else:
                _let_go(self._conn)
        self._conn = None

    # -- schema ---------------------------------------------------------
    def _schema_version(self):
        if not self._one("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
                         "AND tablename = 'meta'"):
            return None
        row = self._one("SELECT value FROM meta WHERE name = 'schema_version'")
        return int(row[0]) if row else None

    def _wrote(self):
        """Whether the transaction of an absent store changed anything: its tables were made empty for it."""
        return self._one('SELECT EXISTS (SELECT 1 FROM pool) OR EXISTS (SELECT 1 FROM reservation) OR '
                         'EXISTS (SELECT 1 FROM free_span) OR EXISTS (SELECT 1 FROM released) OR '
                         'EXISTS (SELECT 1 FROM history)')[0]

    def _lock_schema(self):
        """Controllers opening a new store at once: one creates it, the others then see it."""
        self._execute('SELECT pg_advisory_xact_lock(?)', (_lock_key(self._schema, 'schema'),)).fetchall()

    def _describe(self):
        return 'PostgreSQL store %s (schema %s)' % (self.where, self._schema)
