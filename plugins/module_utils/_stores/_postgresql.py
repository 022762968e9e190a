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
  once, when the store is opened (by a read or check mode too), in a write
  transaction of its own under the schema's advisory lock: the tables are
  locked then, never again by a read. A newer one is refused with
  ``store_version``. Text columns use the "C" collation, so rows sort as in
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
- Round trips (issue 14): each transaction goes through psycopg's pipeline
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
- Three statements a reservation (issue 25, third session): the owner's
  reservation rides on its pool's row of the pools' statement
  (``_locked_pools``), and a write transaction that begins with its lock
  and commits sends no BEGIN and no COMMIT: up to the pipeline's Sync, its
  statements are one transaction to the server (the extended protocol's
  implicit transaction, at the server's default isolation, used only where
  that is READ COMMITTED); the Sync commits it, a ROLLBACK sent before the
  Sync rolls it back. psycopg's work and the server's are per statement:
  the lock, the pools, the writes, where there were six.
- Server-side prepared statements (issue 25): psycopg prepares each statement
  the first time a connection runs it (``prepare_threshold=0``), in the same
  round trip; the server then neither parses nor plans it again on that
  connection. ``prepared_statements=false`` in the URL (``PREPARED``, taken
  out of the URL before libpq reads it) turns them off, for a pooler in
  transaction mode that loses them (pgbouncer before 1.21).
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
  ``applied`` looks for. Within a task's retries a transaction ends at the
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

import contextlib
import hashlib
import json
import math
import os
import re
import struct

try:
    import psycopg
    from psycopg import errors as pg_errors
    from psycopg.conninfo import conninfo_to_dict
except ImportError:  # pragma: no cover - exercised by the missing-library test
    psycopg = None
    pg_errors = None

from ansible_collections.netpool.ipam.plugins.module_utils import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._errors import (
    AddressInUse, InvalidArgument, StoreBusy, StoreUnavailable, missing_library)
from ansible_collections.netpool.ipam.plugins.module_utils._secrets import find, hide, redact
from ansible_collections.netpool.ipam.plugins.module_utils._stores._postgresql_connection import (
    RETRY_CONNECT, _hang_up, _let_go, _prepare, deallocation_owed, prepared_statements, retryable_sqlstate, tls_mode)
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import PREFETCH
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql import SqlStore
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql_schema import meta, migrations, schema

#: schema version -> the statements that bring a store of that version to the next
MIGRATIONS = migrations('postgresql')


#: psycopg's pipeline mode (psycopg 3.1 with libpq 14 or newer): several statements per round trip
_PIPELINE = psycopg is not None and hasattr(psycopg, 'Pipeline') and psycopg.Pipeline.is_supported()

#: psycopg has no public "send a Sync, do not wait": its private steps of Pipeline.sync (3.3), where it has them
#: (``_end_implicit``)
_SYNC_STEPS = _PIPELINE and all(hasattr(psycopg.Pipeline, step) for step in ('_enqueue_sync', '_communicate_gen'))

#: how a statement that takes an advisory lock begins
_LOCK = 'SELECT pg_advisory_xact_lock'

#: a statement the store buffers (``PostgresqlStore._flush``), and the table it writes
_WRITE = re.compile(r'(?:INSERT INTO|UPDATE|DELETE FROM) (\w+) ')


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


def _first_error(error):
    """The error that aborted the pipeline, where psycopg raised "pipeline aborted" in its place: leaving a pipeline
    fetches, in a ``finally``, the results after the failed statement's, and their PipelineAborted replaces the
    statement's own error (a reservation's UniqueViolation) when they had not arrived with it. The statement's
    error is then the ``__context__``."""
    while isinstance(error, pg_errors.PipelineAborted) and isinstance(error.__context__, psycopg.Error):
        error = error.__context__
    return error


class PostgresqlStore(SqlStore):
    kind = 'postgresql'
    integrity_errors = (psycopg.IntegrityError,) if psycopg else ()
    driver_errors = (psycopg.Error,) if psycopg else ()

    #: ``?`` query -> ``%s`` query
    _converted = {}
    #: the statements of a run of writes -> the one statement that runs them (``_flush``)
    _joined = {}

    # A write transaction costs nothing until it locks (no LOCKS_AT_BEGIN): the pool's lock goes in the round
    # trip that reads the pool anyway, with the reservations fetched for it (``prefetch``), so a new
    # reservation is two round trips (that one, then the writes with COMMIT) and a rerun that changes nothing
    # one (it writes nothing, and its COMMIT is not waited for).
    capabilities = frozenset((PREFETCH,))

    #: ``(namespace, pool, owners, key)`` of the transaction's ``prefetch``, or None
    _expected = None
    #: the ``prefetch`` that the next read of the locked namespace's pools fetches with them, or None
    _prefetching = None
    #: ``((namespace, pool, owners, key), rows)`` of the reservations fetched with the pools, under the lock
    _prefetched = None
    #: whether the transaction has sent a statement that writes (its COMMIT is then waited for)
    _dirty = False
    #: ``(table, sql, params)`` of the writes not sent yet: they go before the next statement whose answer is
    #: read, or with COMMIT, those on different tables as one statement (``_flush``)
    _writes = ()

    def __init__(self, spec, timeout=30, validate_certs=True, token=None, create=True):
        self.spec = spec
        self.where = redact(spec)
        self.timeout = timeout
        #: what no message may show: the passwords of the URL (as written and decoded) and the token
        self._secrets = find({'store': spec, 'store_token': token})
        if psycopg is None:
            raise missing_library('psycopg', 'for the PostgreSQL store %s' % self.where, 'psycopg[binary]')
        dsn, prepared = prepared_statements(spec, self.where)
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
        # in the URL turns them off, for poolers in transaction mode that lose them (pgbouncer before 1.21).
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
        self._migrate(schema('postgresql'), MIGRATIONS, meta('postgresql'),
                      create=create)

    # -- connection -----------------------------------------------------
    def _scrub(self, text):
        return hide(text, getattr(self, '_secrets', ()))

    def _connect(self):
        self._pipeline = None      # a new connection is not in pipeline mode
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
        try:
            self._schema, isolation = self._conn.execute(
                "SELECT current_schema(), current_setting('default_transaction_isolation')", prepare=False).fetchone()
        except psycopg.Error as e:
            raise self._translate(e)
        # a write transaction that begins with its lock needs no BEGIN where the server's own default is what BEGIN
        # would ask for (``_begin``)
        self._implicit_ok = _PIPELINE and isolation == 'read committed'
        if self._schema is None:
            raise StoreUnavailable('The PostgreSQL store %s has no schema to keep its tables in: no schema of the '
                                   "connection's search_path exists. Create the schema, or set search_path in "
                                   'the URL (options=-csearch_path%%3DNAME).' % self.where)

    # -- transactions: one pipeline each ------------------------------
    # A transaction is sent through psycopg's pipeline mode: BEGIN goes with its first statement, a
    # statement whose result is not read (a lock, a write) goes with the next one that is read, and the
    # writes go with COMMIT. A round trip is paid only where the caller waits for an answer. A statement's
    # error may therefore be raised by a later one (or by COMMIT): ``transaction`` rolls back and
    # translates it wherever it comes from (a reservation's address taken meanwhile is address_in_use).

    #: ``BEGIN`` and ``SET LOCAL`` of the transaction begun, sent with its first statement (None: sent)
    _begin_sql = None
    #: the open psycopg Pipeline, or None
    _pipeline = None
    #: whether the transaction's connection was opened for it (a dead one is not opened again)
    _fresh = False
    #: whether the transaction begun is a write transaction
    _write = True
    #: the lock_timeout of the transaction begun (the time left of the task's timeout)
    _lock_timeout = None
    #: whether the connection's transactions are READ COMMITTED unless BEGIN says otherwise (and pipelined)
    _implicit_ok = False
    #: whether the transaction begun is, or may be, one without BEGIN: its statements run in the server's implicit
    #: transaction, which the pipeline's Sync commits (see ``_statement``)
    _implicit = False

    def _begin(self, write, commit):
        self._write = write
        self._locked = None
        self._expected, self._prefetching, self._prefetched, self._dirty, self._writes = None, None, None, False, []
        left = _retry.remaining()
        wait = self.timeout if left is None else min(self.timeout, left)
        self._lock_timeout = '%dms' % max(1, int(wait * 1000))
        self._begin_sql = ('BEGIN ISOLATION LEVEL READ COMMITTED' if write
                           else 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
                           "SET LOCAL lock_timeout = '%s'" % self._lock_timeout)
        self._entry, self._committing, self._hung = None, False, False
        if self._conn is not None and self._pid != os.getpid():
            _let_go(self._conn)
            self._conn = None
            self._pipeline = None
        self._fresh = self._conn is None or self._conn.closed
        if self._fresh:
            self._connect()
        # Issue 25: a write transaction that commits and begins with its lock (a reservation's) sends neither BEGIN
        # nor COMMIT: the statements of a pipeline up to its Sync are one transaction to the server (the extended
        # protocol's implicit transaction), at the default isolation, READ COMMITTED (checked on connecting); the
        # Sync commits it, a ROLLBACK sent before the Sync rolls it back. Two statements fewer to pipeline and run.
        self._implicit = write and commit and self._implicit_ok and not self._scratch

    #: the statements sent since BEGIN while no answer was read yet (None once one was): sent again, on a
    #: new connection, if the connection is found dead at the first answer
    _replay = None

    def _send(self, statements):
        """Queue ``statements`` ((sql, params) pairs) in the pipeline (opened if need be); the last one's cursor."""
        try:
            self._open_pipeline()
            cursor = None
            for sql, params in statements:
                cursor = self._conn.execute(sql, params, prepare=_prepare(self._conn, params))
            return cursor
        except psycopg.OperationalError as e:
            return self._reopen(e, lambda cursor: cursor)

    def _reopen(self, error, read):
        """After ``error``: if no answer of the transaction was read yet and its connection, not opened for
        it nor hung up on by the watchdog, is found dead (idle timeout, restart, fail-over: nothing was done on it yet), open another once,
        send the transaction again and ``read`` the last statement's cursor; otherwise raise ``error``."""
        replay, self._replay = self._replay, None
        if replay is None or self._fresh or self._hung or not (self._conn.closed or self._conn.broken):
            raise error     # (a connection the watchdog hung up on at the deadline is not found dead: it is given up)
        self._leave_pipeline(error)
        self._connect()
        self._fresh = True
        if self._implicit and not self._implicit_ok:    # a server whose default changed meanwhile
            replay = [('BEGIN ISOLATION LEVEL READ COMMITTED', ())] + replay
            self._implicit = False
        self._open_pipeline()
        cursor = None
        for sql, params in replay:
            cursor = self._conn.execute(sql, params, prepare=_prepare(self._conn, params))
        return read(cursor)

    def _answer(self, sql, params, read):
        """``read(cursor)`` of the statement: the first answer of a transaction pays the round trip of BEGIN and of
        everything queued since (see ``_reopen`` for a connection found dead then)."""
        try:
            result = read(self._execute(sql, params))
        except psycopg.OperationalError as e:
            result = self._reopen(e, read)
        self._replay = None
        return result

    def _rows(self, sql, params=()):
        return self._answer(sql, params, lambda cursor: cursor.fetchall())

    def _one(self, sql, params=()):
        return self._answer(sql, params, lambda cursor: cursor.fetchone())

    def _open_pipeline(self):
        """Put the connection in pipeline mode, as ``Connection.pipeline()`` does, but without its generator: a
        store dropped without ``close()`` must not wait for the server when the garbage collector finalizes it.
        Without pipeline support (libpq before 14) each statement is its own round trip."""
        if self._pipeline is None and _PIPELINE:
            pipeline = psycopg.Pipeline(self._conn)
            self._conn._pipeline = pipeline     # pylint: disable=protected-access
            pipeline.__enter__()
            self._pipeline = pipeline

    def _leave_pipeline(self, error=None):
        """Close the pipeline: sync what is queued (raising its error) or, after ``error``, drop it."""
        pipeline, self._pipeline = self._pipeline, None
        if pipeline is None:
            return
        try:
            if error is None:
                pipeline.__exit__(None, None, None)
            else:
                try:
                    pipeline.__exit__(type(error), error, None)
                except Exception:  # pylint: disable=broad-except
                    pass  # the connection is broken or the pipeline aborted: the caller raises the first error
        finally:
            if pipeline.level == 0 and getattr(self._conn, '_pipeline', None) is pipeline:
                self._conn._pipeline = None     # pylint: disable=protected-access

    # -- what a task retries (``_retry``) ---------------------------------
    #: the last history entry the open transaction wrote: the evidence of its commit if the answer is lost
    _entry = None
    #: True while the COMMIT of a write transaction is under way
    _committing = False
    #: True once the watchdog hung up on a server that did not answer by the task's deadline
    _hung = False

    @contextlib.contextmanager
    def transaction(self, write=True, commit=True):
        """The transaction of ``SqlStore``, given up at the deadline of the task's retries (``_retry``): a server
        that does not answer (paused, a network dropping packets) would otherwise keep the task forever."""
        with _retry.watch(self._give_up):
            with super(PostgresqlStore, self).transaction(write, commit):
                yield self

    def _give_up(self):
        conn = self._conn
        if conn is not None and self._pid == os.getpid():
            self._hung = True
            _hang_up(conn)

    def add_history(self, entry):
        super(PostgresqlStore, self).add_history(entry)
        self._entry = entry

    def applied(self, evidence):
        """Whether the history entry ``evidence`` (of a lost commit) is in the store: then the transaction
        that wrote it was committed (only it can have written that entry: the service writes an entry for a
        change under the lock of what it changes)."""
        with self.transaction(write=False):
            found = self.find_history(namespace=evidence['namespace'], pool=evidence['pool'],
                                      owner=evidence['owner'], address=evidence['address'])
        keys = ('time', 'object', 'action', 'key', 'old', 'new')
        # compared as stored: JSON turns tuples into lists
        wrote = json.dumps([evidence.get(k) for k in keys], sort_keys=True)
        return any(json.dumps([e.get(k) for k in keys], sort_keys=True) == wrote for e in found)

    def _execute(self, sql, params=()):
        if not sql.startswith('SELECT'):
            self._dirty = self._dirty or sql not in ('COMMIT', 'ROLLBACK')
            write = _WRITE.match(sql) if self._pipelined() else None
            if write:
                self._writes.append((write.group(1), sql, tuple(params)))
                return None
        self._flush()
        return self._statement(sql, params)

    def _pipelined(self):
        return _PIPELINE and isinstance(self._writes, list)

    def _flush(self):
        """Send the writes not sent yet, in order: a run of writes on different tables as ONE statement (a WITH
        of data-modifying statements: they do not see each other's rows, and none of them touches a table
        another one of the run touches)."""
        if not self._writes:
            return
        writes, self._writes = self._writes, []
        run = []
        for write in writes + [None]:
            if run and (write is None or any(table == write[0] for table, _s, _p in run)):
                statements = tuple(w[1] for w in run)
                sql = self._joined.get(statements)
                if sql is None:
                    sql = ''.join('WITH ' * (i == 0) + 'w%d AS (%s), ' % (i, one)
                                  for i, one in enumerate(statements[:-1]))
                    sql = self._joined[statements] = sql.rstrip(', ') + (' ' if len(run) > 1 else '') + statements[-1]
                self._statement(sql, sum((w[2] for w in run), ()))
                run = []
            if write is not None:
                run.append(write)

    def _statement(self, sql, params):
        if self._begin_sql is not None and sql.startswith(_LOCK):
            # the transaction begins with a lock: its lock_timeout is set by the same statement, before it waits; and
            # it needs no BEGIN where it may be implicit (``_begin``)
            self._begin_sql = () if self._implicit else self._begin_sql[:1]
            sql, params = "SELECT set_config('lock_timeout', ?, true), " + sql[len('SELECT '):], \
                (self._lock_timeout,) + tuple(params)
        elif self._begin_sql is not None:
            self._implicit = False
        converted = self._converted.get(sql)
        if converted is None:
            converted = self._converted[sql] = sql.replace('%', '%%').replace('?', '%s')
        statement = (converted, tuple(params))
        if self._begin_sql is not None:     # the transaction's first statement: BEGIN goes with it
            self._replay = [(begin, ()) for begin in self._begin_sql] + [statement]
            self._begin_sql = None
            return self._send(self._replay)
        if self._replay is not None:
            self._replay.append(statement)
        return self._send([statement])

    def _finish(self, keep):
        if keep:
            self._flush()
        self._writes = ()       # from here on, until the next transaction, a write is sent as it comes
        if self._begin_sql is not None:     # nothing was sent: there is no transaction to end
            self._begin_sql = None
            return
        self._replay = None
        self._committing = keep     # a connection lost from here on may have lost only COMMIT's answer
        if self._implicit:
            self._end_implicit(keep)
            self._committing = False
            return
        # psycopg sends a DEALLOCATE ALL it owes (see ``_prepare``) right after the statement it executes next:
        # after COMMIT, it would open an implicit transaction in which the next BEGIN ISOLATION LEVEL fails
        # ("must be called before any query"). Then the answer is awaited, which ends that segment.
        owed = deallocation_owed(self._conn)
        self._conn.execute('COMMIT' if keep else 'ROLLBACK', prepare=False)
        if self._dirty or self._pipeline is None or owed:
            self._leave_pipeline()          # the answer to COMMIT is awaited: the writes are kept, or raise here
        self._committing = False
        # else a transaction that wrote nothing (a read, a rerun that changed nothing) ends without waiting: its
        # COMMIT is sent now (psycopg sends what it queues; the server ends the transaction, and lets go of its
        # locks, as it arrives), its answer is read with the next transaction's first one. Nothing of a
        # transaction that wrote nothing can fail there.

    def _end_implicit(self, keep):
        """End a transaction without BEGIN: its Sync commits what it wrote (awaited: kept, or raising here); one that
        wrote nothing is ended by a Sync sent now and not waited for (as a COMMIT is, below); ``keep`` False sends a
        ROLLBACK first."""
        if not keep:
            self._conn.execute('ROLLBACK', prepare=False)
        pipeline = self._pipeline
        # a psycopg without the private steps (_SYNC_STEPS) ends the transaction by leaving the pipeline, which
        # waits for the answer (one round trip)
        if keep and not self._dirty and pipeline is not None and _SYNC_STEPS:
            with self._conn.lock:
                pipeline._enqueue_sync()    # pylint: disable=protected-access
                self._conn.wait(pipeline._communicate_gen())    # pylint: disable=protected-access
        else:
            self._leave_pipeline()

    def _rollback(self):
        self._replay = None
        self._writes = ()
        if self._begin_sql is not None:
            self._begin_sql = None
            return
        if self._implicit:
            # The Sync that leaving the pipeline sends would commit: a ROLLBACK goes first. Not sent, the connection
            # is closed without a Sync, which rolls the transaction back as surely.
            self._implicit = False
            try:
                if self._conn is not None and not self._conn.closed \
                        and self._conn.pgconn.pipeline_status != psycopg.pq.PipelineStatus.ABORTED:
                    self._conn.execute('ROLLBACK', prepare=False)   # (aborted, the server rolls back at the Sync)
            except Exception:  # pylint: disable=broad-except
                self._pipeline = None
                self._conn.close()
                return
            self._leave_pipeline(psycopg.Error('rolled back'))
            return
        self._leave_pipeline(psycopg.Error('rolled back'))
        if self._conn is None or self._conn.closed:
            return
        try:
            self._conn.execute('ROLLBACK', prepare=False)
        except psycopg.Error:
            pass  # a dead connection: the server rolled the transaction back

    def _translate(self, error):
        """The ``IpamError`` for ``error``, marked for ``_retry`` when the transaction may be run again
        (it was rolled back) or its commit resolved (the answer to COMMIT was lost)."""
        error = _first_error(error)
        translated = self._translate_error(error)
        sqlstate = getattr(error, 'sqlstate', None)
        lost = isinstance(error, psycopg.OperationalError) and (self._conn is None or self._conn.closed or
                                                                self._conn.broken)
        if self._hung:
            translated.msg = ('The PostgreSQL store %s did not answer within the timeout of %s seconds (a server '
                              'paused, overloaded, or a network dropping packets); the connection was closed. '
                              'Nothing of the interrupted transaction was kept unless it had committed.'
                              % (self.where, self.timeout))
            translated.args = (translated.msg,)
        if sqlstate in ('40001', '40P01'):
            return _retry.mark(translated, _retry.TRANSACTION)
        if retryable_sqlstate(sqlstate) or lost:
            if self._committing:
                return _retry.mark(translated, _retry.COMMIT, self._entry)
            return _retry.mark(translated, _retry.TRANSACTION)
        return translated

    def _translate_error(self, error):
        text = self._scrub(str(error).strip())
        if isinstance(error, pg_errors.UniqueViolation) and error.diag.table_name == 'reservation':
            # the last guard (SPEC 5), raised by COMMIT or a later statement of the pipeline
            match = re.search(r'\(namespace, address\)=\((.*), ([46]:[0-9a-f]+)\)', error.diag.message_detail or '')
            held = iv.to_str(*iv.from_key(match.group(2))) if match else 'An address'
            return AddressInUse('%s is already held in namespace %s (another writer took it at the same moment); '
                                'nothing was changed. Retry.' % (held, match.group(1) if match else '?'))
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
            # read with the pools, which the service reads next, under the lock (``_locked_pools``)
            self._prefetching = expected

    #: what ``_locked_pools`` reads besides the pools for a ``prefetch``: on the row of its pool, the data of the
    #: reservations its owners hold under its key (an empty array: none; NULL on the other rows)
    #: (owners as ``IN (?, ...)``, not ``= ANY(?)`` of one array: the server would plan that again at each run)
    PREFETCH_COLUMN = (', CASE WHEN p.name = ? THEN ARRAY(SELECT r.data FROM reservation r WHERE r.namespace = '
                       'p.namespace AND r.pool = p.name AND r.key = ? AND r.owner IN ({owners})) END')

    def _locked_pools(self, namespace, pool):
        """The pools read once locked, with the reservations of the transaction's ``prefetch`` in the same statement:
        one statement, one answer for both."""
        expected, self._prefetching = self._prefetching, None
        if expected is None or expected[0] != namespace:
            return super(PostgresqlStore, self)._locked_pools(namespace, pool)
        _namespace, wanted, owners, key = expected
        columns = self.PREFETCH_COLUMN.format(owners=', '.join('?' * len(owners)))
        rows = self._rows(self.LOCKED_POOLS.format(columns=columns),
                          (namespace, namespace, namespace, pool, wanted, key) + owners + (namespace,))
        found = next((row[4] for row in rows if row[4] is not None), None)
        if found is not None:       # (no row of the pool: it does not exist, get_reservations asks as ever)
            self._prefetched = (expected, [(data, None) for data in found])
        return rows

    def prefetch(self, namespace, pool, owners, key):
        self._expected = (namespace, pool, tuple(owners), key)

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

    def close(self):
        if self._conn is not None:
            if self._pid == os.getpid():
                if self._pipeline is not None:
                    self._leave_pipeline(psycopg.Error('closing'))
                self._conn.close()
            else:
                _let_go(self._conn)
        self._conn = None
        self._pipeline = None

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
        """Controllers opening a new store (or one of an older version) at once: one creates (or migrates) it, the
        others then see it done."""
        self._execute('SELECT pg_advisory_xact_lock(?)', (_lock_key(self._schema, 'schema'),))

    def _describe(self):
        return 'PostgreSQL store %s (schema %s)' % (self.where, self._schema)
