# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the PostgreSQL store begins, ends and rolls back a transaction, and which of its failures a task retries.

This is a private module: it may change at any time. ``Transactions`` is a part of the store (``_postgresql``),
whose docstring says what a transaction costs; the statements it frames are ``_postgresql_statements``.
"""

import contextlib
import json
import re

try:
    import psycopg
    from psycopg import errors as pg_errors
except ImportError:  # pragma: no cover - exercised by the missing-library test
    psycopg = None
    pg_errors = None

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressInUse, StoreBusy, StoreUnavailable)
from ansible_collections.netpool.ipam.plugins.module_utils._stores._postgresql_connection import (
    PREPARED, lost_connection, retryable_sqlstate)
from ansible_collections.netpool.ipam.plugins.module_utils._stores._postgresql_statements import Statements

#: SQLSTATEs of a prepared statement the server does not hold (does not exist; a name taken, on a server
#: connection a pooler gave): the statements this connection prepared are gone
_LOST_PREPARED = ('26000', '42P05')


def _first_error(error):
    """The error that aborted the pipeline, where psycopg raised another in its place: leaving a pipeline fetches,
    in a ``finally``, the results after the failed statement's, and their PipelineAborted replaces the statement's
    own error (a reservation's UniqueViolation) when they had not arrived with it; and leaving pipeline mode after
    the server ended the session fails on the client ("cannot exit pipeline mode while busy", no SQLSTATE) in
    place of the server's reason (57P01). The first error is then the ``__context__``."""
    while isinstance(error.__context__, psycopg.Error) and (
            isinstance(error, pg_errors.PipelineAborted) or
            (isinstance(error, psycopg.OperationalError) and not getattr(error, 'sqlstate', None))):
        error = error.__context__
    return error


class Transactions(Statements):
    """A transaction of the store: one pipeline, BEGIN with its first statement (none for a write transaction that
    begins with its lock, where the server's default isolation is READ COMMITTED), its COMMIT awaited only if it
    wrote."""

    #: whether the transaction begun is a write transaction
    _write = True
    #: the last history entry the open transaction wrote: the evidence of its commit if the answer is lost
    _entry = None
    #: True while the COMMIT of a write transaction is under way
    _committing = False

    @contextlib.contextmanager
    def transaction(self, write=True, commit=True):
        """The transaction of ``SqlStore``, given up at the deadline of the task's retries (``_retry``): a server
        that does not answer (paused, a network dropping packets) would otherwise keep the task forever."""
        with _retry.watch(self._give_up):
            with super(Transactions, self).transaction(write, commit):
                yield self

    def _begin(self, write, commit):
        self._write = write
        self._locked = None
        self._expected, self._prefetching, self._prefetched, self._dirty, self._writes = None, None, None, False, []
        left = _retry.remaining()
        wait = self.timeout if left is None else min(self.timeout, left)
        self._lock_timeout = '%dms' % max(1, int(wait * 1000))
        # (a read of a store behind makes temporary tables, which a READ ONLY transaction may not)
        self._begin_sql = ('BEGIN ISOLATION LEVEL READ COMMITTED' if write
                           else 'BEGIN ISOLATION LEVEL REPEATABLE READ' + ('' if self._scratch else ' READ ONLY'),
                           "SET LOCAL lock_timeout = '%s'" % self._lock_timeout)
        self._entry, self._committing, self._hung = None, False, False
        self._own_connection()
        self._new_connection = self._conn is None or self._conn.closed
        if self._new_connection:
            self._connect()
        # A write transaction that commits and begins with its lock (a reservation's) sends neither BEGIN nor
        # COMMIT: the statements of a pipeline up to its Sync are one transaction to the server (the extended
        # protocol's implicit transaction), at the default isolation, READ COMMITTED (checked on connecting); the
        # Sync commits it, a ROLLBACK sent before the Sync rolls it back. Two statements fewer to pipeline and run.
        self._implicit = write and commit and self._implicit_ok and not self._scratch

    def _finish(self, keep):
        if keep:
            self._flush()
        self._writes = ()       # from here on, until the next transaction, a write is sent as it comes
        if self._begin_sql is not None:     # nothing was sent: there is no transaction to end
            self._begin_sql = None
            return
        self._replay = None
        self._committing = keep     # a connection lost from here on may have lost only COMMIT's answer
        # psycopg sends a DEALLOCATE ALL it may owe (``_prepare``) right after the statement it executes next: after
        # COMMIT, it would open an implicit transaction in which the next BEGIN ISOLATION LEVEL fails ("must be
        # called before any query"). Then the answer is awaited, which ends that segment.
        forgetting = self._forgetting
        if self._implicit:
            self._end_implicit(keep, forgetting)
        else:
            self._run('COMMIT' if keep else 'ROLLBACK')
            if self._dirty or self._pipeline is None or forgetting:
                self._leave_pipeline()          # the answer to COMMIT is awaited: the writes are kept, or raise here
            # else a transaction that wrote nothing (a read, a rerun that changed nothing) ends without waiting: its
            # COMMIT is sent now (psycopg sends what it queues; the server ends the transaction, and lets go of its
            # locks, as it arrives), its answer is read with the next transaction's first one. Nothing of a
            # transaction that wrote nothing can fail there.
        self._committing = False

    def _end_implicit(self, keep, forgetting):
        """End a transaction without BEGIN: its Sync commits what it wrote (awaited: kept, or raising here), ``keep``
        False sends a ROLLBACK first. One that wrote nothing is ended as an explicit one is, without waiting: a
        BEGIN makes the implicit transaction an explicit one (the server allows it, without a warning) and its
        COMMIT, sent now, ends it and lets go of its locks as it arrives (a COMMIT alone would end it too, with a
        warning in the server's log)."""
        if not keep:
            self._run('ROLLBACK')
        if keep and not self._dirty and self._pipeline is not None and not forgetting:
            self._run('BEGIN')
            self._run('COMMIT')
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
                    self._run('ROLLBACK')   # (aborted, the server rolls back at the Sync)
            except Exception:  # pylint: disable=broad-except
                self._drop_connection()
                return
            self._leave_pipeline(psycopg.Error('rolled back'))
            return
        self._leave_pipeline(psycopg.Error('rolled back'))
        if self._conn is None or self._conn.closed:
            return
        try:
            self._run('ROLLBACK')
        except psycopg.Error:
            pass  # a dead connection: the server rolled the transaction back

    # -- what a task retries (``_retry``) ---------------------------------
    def add_history(self, entry):
        super(Transactions, self).add_history(entry)
        self._entry = entry

    def commit_landed(self, evidence):
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

    def _translate(self, error):
        """The ``IpamError`` for ``error``, marked for ``_retry`` when the transaction may be run again
        (it was rolled back) or its commit resolved (the answer to COMMIT was lost)."""
        error = _first_error(error)
        translated = self._translate_error(error)
        sqlstate = getattr(error, 'sqlstate', None)
        # lost whether or not psycopg has marked the connection broken yet (it marks it once it reads the socket's
        # end, which a session ended while its pipeline was busy may never get to): the connection is dropped
        lost = lost_connection(error) or (isinstance(error, psycopg.OperationalError) and (
            self._conn is None or self._conn.closed or self._conn.broken))
        if lost:
            self._drop_connection()
        if self._hung:
            translated.msg = ('The PostgreSQL store %s did not answer within the timeout of %s seconds (a server '
                              'paused, overloaded, or a network dropping packets); the connection was closed. '
                              'Nothing of the interrupted transaction was kept unless it had committed.'
                              % (self.where, self.timeout))
            translated.args = (translated.msg,)
        if sqlstate in _LOST_PREPARED and self._connect_args.get('prepare_threshold') is not None:
            # A statement of the transaction failed: the server rolled it all back, even one whose COMMIT was sent.
            # Run once more, without prepared statements (``_lost_prepared``): nothing prepared, nothing to lose.
            self._lost_prepared()
            translated.msg = ('The PostgreSQL store %s lost the statements this connection had prepared on the '
                              'server (%s): another client ran DISCARD ALL or DEALLOCATE ALL on its session, or '
                              'a pooler gave it another server connection. Nothing of the transaction was kept; it '
                              'is run once more without prepared statements, as is everything this process does '
                              'on this store from now on. Behind a pooler that loses them (pgbouncer in '
                              'transaction mode before 1.21) add %s=false to the store URL.'
                              % (self.where, self._scrub(str(error).strip()), PREPARED))
            translated.args = (translated.msg,)
            return _retry.mark(translated, _retry.TRANSACTION)
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
            # the last guard (docs/design.md#stores), raised by COMMIT or a later statement of the pipeline
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
