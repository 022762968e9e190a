# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the PostgreSQL store sends its statements: through psycopg's pipeline, the writes held back and joined,
each statement prepared on the server or not, an answer read only where the caller needs one.

This is a private module: it may change at any time. ``Statements`` is a part of the store (``_postgresql``); the
transactions that frame these statements are ``_postgresql_transactions``.
"""

import re

try:
    import psycopg
except ImportError:  # pragma: no cover - exercised by the missing-library test
    psycopg = None

from ansible_collections.netpool.ipam.plugins.module_utils._stores import _postgresql_connection as connection

#: how a statement that takes an advisory lock begins
_LOCK = 'SELECT pg_advisory_xact_lock'

#: a statement the store buffers (``Statements._flush``), and the table it writes
_WRITE = re.compile(r'(?:INSERT INTO|UPDATE|DELETE FROM) (\w+) ')

#: how the statements after which psycopg keeps what it prepared begin: after any other (a ROLLBACK, DDL), once
#: it reads the answer, psycopg may forget its prepared statements and owe the server a DEALLOCATE ALL
#: (``Statements._prepare``)
_KEEPS = ('SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'SET')

#: ``Statements._forgetting``: a statement that may make psycopg forget was sent, its answer not read yet; read
_SENT, _READ = 1, 2


class Statements(connection.Connection):
    """Statements through the connection's pipeline. A statement whose answer is not read (a lock, a write) goes
    with the next one that is; the writes wait in ``_writes`` until the next read or the end of the transaction."""

    #: ``?`` query -> ``%s`` query
    _converted = {}
    #: the statements of a run of writes -> the one statement that runs them (``_flush``)
    _joined = {}

    #: whether the transaction has sent a statement that writes (its COMMIT is then waited for)
    _dirty = False
    #: ``(table, sql, params)`` of the writes not sent yet: they go before the next statement whose answer is
    #: read, or with COMMIT, those on different tables as one statement (``_flush``)
    _writes = ()
    #: ``BEGIN`` and ``SET LOCAL`` of the transaction begun, sent with its first statement (None: sent)
    _begin_sql = None
    #: the lock_timeout of the transaction begun (the time left of the task's timeout)
    _lock_timeout = None
    #: whether the transaction begun is, or may be, one without BEGIN: its statements run in the server's implicit
    #: transaction, which the pipeline's Sync commits (see ``_statement``)
    _implicit = False
    #: whether the transaction's connection was opened for it (a dead one is not opened again)
    _new_connection = False
    #: the statements sent since BEGIN while no answer was read yet (None once one was): sent again, on a
    #: new connection, if the connection is found dead at the first answer
    _replay = None
    #: None, ``_SENT`` or ``_READ``: where the connection stands after a statement that may make psycopg forget
    #: what it prepared (``_prepare``)
    _forgetting = None

    def _connect(self):
        super(Statements, self)._connect()
        self._forgetting = None

    def _prepare(self, params):
        """psycopg's ``prepare`` for a statement with these parameters: never for one without parameters (BEGIN,
        ``SET LOCAL`` with the transaction's own lock_timeout, a schema check: run once, or different each time);
        else None (psycopg's rule: prepared when the connection prepares, see ``PREPARED``) unless psycopg may
        owe the server a DEALLOCATE ALL.

        psycopg forgets what it prepared when it reads the answer of a ROLLBACK or of DDL, and deallocates it
        all on the server after the next statement it sends. In pipeline mode that answer may be read with a
        later statement's: a statement prepared next would be deallocated behind psycopg's back ("prepared
        statement ... does not exist" when it is run again). So from such a statement until the first one
        sent after an answer was read (psycopg's DEALLOCATE ALL, if it owed one, has gone with that one), the
        statements go unprepared. Which statements make psycopg forget is its own business (it changed within
        3.3): any statement but a query, a write, BEGIN, COMMIT and SET counts here."""
        if not params or self._forgetting:
            return False
        return None

    def _run(self, sql, params=(), prepare=False):
        """``Connection.execute`` on the store's connection; keeps ``_forgetting``."""
        cursor = self._conn.execute(sql, params, prepare=prepare)
        if self._pipeline is not None:      # (outside a pipeline psycopg deallocates at once, in the same call)
            if not sql.startswith(_KEEPS):
                self._forgetting = _SENT
            elif self._forgetting == _READ:
                self._forgetting = None
        return cursor

    def _answered(self):
        """An answer was read: every answer before it was read too."""
        if self._forgetting == _SENT:
            self._forgetting = _READ

    def _leave_pipeline(self, error=None):
        super(Statements, self)._leave_pipeline(error)
        self._answered()

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
        return connection.PIPELINE and isinstance(self._writes, list)

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

    def _send(self, statements):
        """Queue ``statements`` ((sql, params) pairs) in the pipeline (opened if need be); the last one's cursor."""
        try:
            self._open_pipeline()
            cursor = None
            for sql, params in statements:
                cursor = self._run(sql, params, self._prepare(params))
            return cursor
        except psycopg.OperationalError as e:
            return self._reopen(e, lambda cursor: cursor)

    def _reopen(self, error, read):
        """After ``error``: if no answer of the transaction was read yet and its connection, not opened for
        it nor hung up on by the watchdog, is found dead (idle timeout, restart, fail-over: nothing was done on it
        yet), open another once, send the transaction again and ``read`` the last statement's cursor; otherwise
        raise ``error``."""
        replay, self._replay = self._replay, None
        if replay is None or self._new_connection or self._hung or not (self._conn.closed or self._conn.broken):
            raise error     # (a connection the watchdog hung up on at the deadline is not found dead: it is given up)
        self._leave_pipeline(error)
        self._connect()
        self._new_connection = True
        if self._implicit and not self._implicit_ok:    # a server whose default changed meanwhile
            replay = [('BEGIN ISOLATION LEVEL READ COMMITTED', ())] + replay
            self._implicit = False
        self._open_pipeline()
        cursor = None
        for sql, params in replay:
            cursor = self._run(sql, params, self._prepare(params))
        return read(cursor)

    def _answer(self, sql, params, read):
        """``read(cursor)`` of the statement: the first answer of a transaction pays the round trip of BEGIN and of
        everything queued since (see ``_reopen`` for a connection found dead then)."""
        try:
            result = read(self._execute(sql, params))
        except psycopg.OperationalError as e:
            result = self._reopen(e, read)
        self._replay = None
        self._answered()
        return result

    def _rows(self, sql, params=()):
        return self._answer(sql, params, lambda cursor: cursor.fetchall())

    def _one(self, sql, params=()):
        return self._answer(sql, params, lambda cursor: cursor.fetchone())
