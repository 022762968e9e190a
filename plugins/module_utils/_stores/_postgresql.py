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
  ``meta`` table holds the schema version, an older schema is migrated
  once, by the first task that changes something, in a write transaction of
  its own under the schema's advisory lock. A read or check mode never
  migrates it (a controller still on the older collection goes on using it,
  and a read-only user can read it): each of its transactions works on
  temporary tables of today's version filled from the store's
  (``_read_behind``). A newer one is refused with ``store_version``. Text columns use the "C" collation, so rows sort as in
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
- Round trips (each is a network wait, paid once per reservation: a play of 1,000 hosts pays it 1,000 times):
  each transaction goes through psycopg's pipeline
  mode. BEGIN goes with the first statement, a lock or a write is sent
  without waiting for its answer (the server takes a lock before the
  transaction's next statement; a caller that must know it is held reads
  something), and the writes go with COMMIT; a read transaction's COMMIT is
  sent without waiting at all. Once a pool is locked, one statement reads
  the namespace's pools with the earliest lease and resting address of the
  namespace and the pool's lowest free span (``_sql.SqlStore._pools_of``),
  which answer "anything due?" and "the first free span" until a write of
  the transaction changes them; before its lock, a write transaction
  chooses the lock from the pools as the last transaction read them (the
  service reads them again once locked). A new reservation is 2 round trips
  (the lock with the pools and the owner's reservation; the writes with
  COMMIT), an idempotent rerun 1 (counted on the wire by
  tests/unit/.../test_postgresql_round_trips.py). An error of a
  statement sent without waiting is raised by a later one, or by COMMIT:
  the transaction rolls back as for any error, and a reservation whose
  address another writer took meanwhile is ``address_in_use``.
- Three statements a reservation (psycopg and the server do work per statement: fewer cost less CPU on both
  sides): the owner's
  reservation rides on its pool's row of the pools' statement
  (``_locked_pools``), and a write transaction that begins with its lock
  and commits sends no BEGIN and no COMMIT: up to the pipeline's Sync, its
  statements are one transaction to the server (the extended protocol's
  implicit transaction, at the server's default isolation, used only where
  that is READ COMMITTED); the Sync commits it, a ROLLBACK sent before the
  Sync rolls it back; one that wrote nothing (a rerun) sends BEGIN and
  COMMIT at its end, not waited for. psycopg's work and the server's are per
  statement: the lock, the pools, the writes, where there were six.
- Server-side prepared statements (a reservation sends the same statements every time: parsing and planning
  them once per connection is enough): psycopg prepares each statement
  the first time a connection runs it (``prepare_threshold=0``), in the same
  round trip; the server then neither parses nor plans it again on that
  connection. ``prepared_statements=false`` in the URL (``PREPARED``, taken
  out of the URL before libpq reads it) turns them off, for a pooler in
  transaction mode that loses them (pgbouncer before 1.21). Statements lost
  under a long-lived connection (``DISCARD ALL``, ``DEALLOCATE ALL``, a
  pooler) fail the transaction before its commit: it is retried once, this
  process then prepares nothing on that URL (``_lost_prepared``).
- The parts of the store, by job: ``_postgresql_connection`` (connecting,
  pipeline mode, closing), ``_postgresql_statements`` (what is sent, when,
  prepared or not), ``_postgresql_transactions`` (BEGIN, COMMIT, rollback,
  what is retried); here, the locks and what is read with them, and the
  schema. psycopg through its public interface only (docs/developing.md).
- A lock not had within ``timeout`` seconds gives ``store_busy``
  (``lock_timeout``, set per transaction so a pooler in transaction mode
  keeps it). A server that is down, refuses or rejects the login gives
  ``store_unavailable``; the password is never in a message.
- One connection per store object, opened once. A connection found dead at
  the start of a transaction (idle timeout, restart, fail-over) is reopened
  once; one that dies inside a transaction gives ``store_unavailable`` and
  the server rolls the transaction back.
- What a task retries (``_retry``): the errors are marked here, at the
  connection and transaction boundary. A failed connection that a later
  attempt may make (``RETRY_CONNECT``); a transaction rolled back by a lost
  connection or a SQLSTATE of ``RETRY_SQLSTATES``/class 08; a COMMIT whose
  answer was lost, with the transaction's last history entry as the evidence
  ``commit_landed`` looks for. Within a task's retries a transaction ends at the
  deadline: the process's watchdog thread (``_retry.watch``, one per
  process) shuts the socket of a server that does not
  answer, and ``connect_timeout``/``lock_timeout`` stay within what is left. A process forked from the one that
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
import math
import os
import struct

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
except ImportError:  # pragma: no cover - exercised by the missing-library test
    psycopg = None

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, missing_library
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._secrets import find, redact
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _postgresql_connection as connection
from ansible_collections.netpool.ipam.plugins.module_utils._stores._postgresql_connection import (
    prepared_statements, tls_mode)
from ansible_collections.netpool.ipam.plugins.module_utils._stores._postgresql_transactions import Transactions
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql import SqlStore
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql_schema import meta, migrations, read_behind, schema

#: schema version -> the statements that bring a store of that version to the next
MIGRATIONS = migrations('postgresql')


#: lock keys made so far: parts -> key (a process locks the same few pools again and again)
_LOCK_KEYS = {}


def _lock_key(*parts):
    """A stable signed 64-bit advisory lock key for these strings."""
    key = _LOCK_KEYS.get(parts)
    if key is None:
        if len(_LOCK_KEYS) > 4096:
            _LOCK_KEYS.clear()
        digest = hashlib.sha256('\0'.join(parts).encode('utf-8')).digest()
        key = _LOCK_KEYS[parts] = struct.unpack('>q', digest[:8])[0]
    return key


class PostgresqlStore(Transactions, SqlStore):
    kind = 'postgresql'
    integrity_errors = (psycopg.IntegrityError,) if psycopg else ()
    driver_errors = (psycopg.Error,) if psycopg else ()

    #: ``(namespace, pool, owners, key)`` of the reservations the open ``reservation_transaction`` reads, or None
    _expected = None
    #: the ``_expected`` reservations that the next read of the locked namespace's pools fetches with them, or None
    _prefetching = None
    #: ``((namespace, pool, owners, key), rows)`` of the reservations fetched with the pools, under the lock
    _prefetched = None

    def __init__(self, spec, timeout=30, validate_certs=True, token=None, create=True, migrate=True):
        self.spec = spec
        self.where = redact(spec)
        self.timeout = timeout
        #: what no message may show: the passwords of the URL (as written and decoded) and the token
        self._secrets = find({'store': spec, 'store_token': token})
        if psycopg is None:
            raise missing_library('psycopg', 'for the PostgreSQL store %s' % self.where, 'psycopg[binary]')
        dsn, prepared = prepared_statements(spec, self.where)
        prepared = prepared and spec not in connection.UNPREPARED     # (see ``_lost_prepared``)
        try:
            params = conninfo_to_dict(dsn)
        except psycopg.Error as e:
            raise InvalidArgument('store %s is not a valid PostgreSQL URL: %s' % (self.where, self._scrub(str(e))))
        self._secrets.extend(s for s in (params.get('password'),) if s and s not in self._secrets)
        if token is not None and params.get('password'):
            raise InvalidArgument('The PostgreSQL store %s carries a password and store_token is set too. Give the '
                                  'password once: in store_token (kept out of the URL), or in the URL.' % self.where)
        # Server-side prepared statements from a statement's first run (psycopg prepares a statement it has run
        # prepare_threshold times): a process that reserves many times (the lookup in an inventory, a role's
        # batch, many controllers' workers on one connection each) parses and plans each statement once. A
        # one-shot worker pays nothing for it (the Parse goes in the same round trip). prepared_statements=false
        # in the URL turns them off, for poolers in transaction mode that lose them (pgbouncer before 1.21), and so
        # does a process once it saw them lost on this store's URL (``_lost_prepared``).
        self._connect_args = {'autocommit': True, 'prepare_threshold': 0 if prepared else None}
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
        self._migrate(schema('postgresql'), MIGRATIONS, meta('postgresql'), create=create, migrate=migrate)

    # -- locks and what is read with them ----------------------------------
    def lock_pool(self, namespace, name):
        """A shared lock on the namespace, then an exclusive one on the pool: other pools go on in parallel.
        (Not waited for here: the next statement whose answer is read waits for it on the server.)"""
        self._execute('SELECT pg_advisory_xact_lock_shared(?), pg_advisory_xact_lock(?)',
                      (_lock_key(self._schema, 'namespace', namespace),
                       _lock_key(self._schema, 'pool', namespace, name)))
        self._locked_now(namespace, name)

    def _locked_now(self, namespace, name):
        self._forget_pools()    # what was read before the lock may have changed meanwhile
        self._locked = (namespace, name)
        expected = self._expected
        self._prefetched = None
        if expected is not None and expected[0] == namespace and 0 < len(expected[2]) <= self.OWNERS_AT_ONCE:
            # fetched with the pools when they are first read under the lock (``_locked_pools``); get_reservations
            # answers from it only the same question, and only until a write of the transaction
            self._prefetching = expected

    #: what ``_locked_pools`` reads besides the pools in a ``reservation_transaction``: on the row of its pool, the
    #: data of the reservations its owners hold under its key (an empty array: none; NULL on the other rows)
    #: (owners as ``IN (?, ...)``, not ``= ANY(?)`` of one array: the server would plan that again at each run)
    OWNERS_COLUMN = (', CASE WHEN p.name = ? THEN ARRAY(SELECT r.data FROM reservation r WHERE r.namespace = '
                     'p.namespace AND r.pool = p.name AND r.key = ? AND r.owner IN ({owners})) END')

    def _locked_pools(self, namespace, pool):
        """The pools read once locked, with the ``_expected`` reservations in the same statement:
        one statement, one answer for both."""
        expected, self._prefetching = self._prefetching, None
        if expected is None or expected[0] != namespace:
            return super(PostgresqlStore, self)._locked_pools(namespace, pool)
        _namespace, wanted, owners, key = expected
        columns = self.OWNERS_COLUMN.format(owners=', '.join('?' * len(owners)))
        rows = self._rows(self.LOCKED_POOLS.format(columns=columns),
                          (namespace, namespace, namespace, pool, wanted, key) + owners + (namespace,))
        found = next((row[4] for row in rows if row[4] is not None), None)
        if found is not None:       # (no row of the pool: it does not exist, get_reservations asks as ever)
            self._prefetched = (expected, [(data, None) for data in found])
        return rows

    def reservation_transaction(self, namespace, pool, owners, key, commit, as_rerun, change):
        """A write transaction costs nothing until it locks: the pool's lock goes in the round trip that reads the
        pools anyway, with the owners' reservations (``_locked_now``, ``_locked_pools``). A new reservation is two
        round trips (that one, then the writes with COMMIT); a rerun, answered by ``change`` there, one (it writes
        nothing, and its COMMIT is not waited for)."""
        with self.transaction(commit=commit):
            self._expected = (namespace, pool, tuple(owners), key)
            return change()

    def get_reservations(self, namespace, pool, owners, key):
        prefetched, self._prefetched = self._prefetched, None
        owners = tuple(owners)
        if prefetched is not None and prefetched[0] == (namespace, pool, owners, key):
            return self._found_reservations(namespace, pool, prefetched[1], {})
        return super(PostgresqlStore, self).get_reservations(namespace, pool, owners, key)

    def save_reservation(self, reservation):
        self._prefetching = self._prefetched = None     # what was fetched with the lock no longer holds
        super(PostgresqlStore, self).save_reservation(reservation)

    def delete_reservation(self, reservation):
        self._prefetching = self._prefetched = None
        super(PostgresqlStore, self).delete_reservation(reservation)

    def lock_namespace(self, namespace):
        """The namespace lock, exclusive: no pool of the namespace is written meanwhile."""
        self._execute('SELECT pg_advisory_xact_lock(?)', (_lock_key(self._schema, 'namespace', namespace),))
        self._locked_now(namespace, None)

    def _unlocked(self):
        return self._write and self._locked is None

    # -- schema ---------------------------------------------------------
    def _schema_version(self):
        if not self._one("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
                         "AND tablename = 'meta'"):
            return None
        row = self._one("SELECT value FROM meta WHERE name = 'schema_version'")
        return int(row[0]) if row else None

    def _read_behind(self):
        """A schema of an older version opened by a read or check mode: each transaction works on temporary tables
        of today's version filled from the store's (``_fill_behind``), dropped at its end; the store's tables are
        only read (a read-only user can read it: temporary tables need only the database's TEMP right)."""
        self._scratch = True

    def _fill_behind(self):
        for statement in read_behind(self.behind, '"%s"' % self._schema.replace('"', '""')):
            self._execute(statement)
        self._dirty = False     # (``_wrote``: what the task writes from here on)

    def _wrote(self):
        """Whether the transaction of an absent store (or one behind) changed anything: its tables were made
        empty for it (filled from the store's)."""
        if self.behind:
            return self._dirty
        return self._one('SELECT EXISTS (SELECT 1 FROM pool) OR EXISTS (SELECT 1 FROM reservation) OR '
                         'EXISTS (SELECT 1 FROM free_span) OR EXISTS (SELECT 1 FROM released) OR '
                         'EXISTS (SELECT 1 FROM history)')[0]

    def _lock_schema(self):
        """Controllers opening a new store (or one of an older version) at once: one creates (or migrates) it, the
        others then see it done."""
        self._execute('SELECT pg_advisory_xact_lock(?)', (_lock_key(self._schema, 'schema'),))

    def _describe(self):
        return 'PostgreSQL store %s (schema %s)' % (self.where, self._schema)
