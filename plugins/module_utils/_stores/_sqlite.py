# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The SQLite store: the default, one file on the controller.

This is a private module: it may change at any time.

- Every write runs in ``BEGIN IMMEDIATE``: one writer at a time across all
  processes (Ansible forks), readers never blocked (WAL).
- ``synchronous=FULL``: a reservation acknowledged to a playbook survives a
  power cut. NORMAL would lose the last commits on power loss, and a lost
  reservation is a duplicate address later; the cost is one fsync a write.
- A writer that waits longer than ``timeout`` seconds gives ``store_busy``.
- The file is created 0600 (SQLite gives the -wal/-shm files the same mode).
- A ``meta`` table holds the schema version; an older schema is migrated by
  the first write that commits (a read migrates it inside its transaction and
  rolls that back: reading writes nothing), a newer one refused with
  ``store_version``.
"""

import os
import sqlite3

from ansible_collections.netpool.ipam.plugins.module_utils._errors import StoreBusy, StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql import INDEXES, MIGRATIONS, SqlStore


SCHEMA = """
CREATE TABLE pool (
    namespace TEXT NOT NULL, name TEXT NOT NULL, parent TEXT, data TEXT NOT NULL,
    PRIMARY KEY (namespace, name));
CREATE TABLE reservation (
    namespace TEXT NOT NULL, pool TEXT NOT NULL, owner TEXT NOT NULL, key TEXT NOT NULL,
    address TEXT NOT NULL, expires_at TEXT, data TEXT NOT NULL,
    PRIMARY KEY (namespace, pool, owner, key),
    UNIQUE (namespace, address));
CREATE INDEX reservation_pool ON reservation (namespace, pool, address);
CREATE INDEX reservation_expiry ON reservation (namespace, pool, expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE free_span (
    namespace TEXT NOT NULL, pool TEXT NOT NULL, first TEXT NOT NULL, last TEXT NOT NULL,
    PRIMARY KEY (namespace, pool, first));
CREATE TABLE released (
    namespace TEXT NOT NULL, pool TEXT NOT NULL, address TEXT NOT NULL, until TEXT NOT NULL,
    PRIMARY KEY (namespace, pool, address));
CREATE TABLE history (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, namespace TEXT NOT NULL, pool TEXT,
    object TEXT NOT NULL, action TEXT NOT NULL, owner TEXT, key TEXT, address TEXT,
    old TEXT NOT NULL, new TEXT NOT NULL);
CREATE INDEX history_pool ON history (namespace, pool);
CREATE INDEX history_owner ON history (owner);
CREATE INDEX history_address ON history (address);
""" + ';\n' + ';\n'.join(INDEXES)


class SqliteStore(SqlStore):
    kind = 'sqlite'
    integrity_errors = (sqlite3.IntegrityError,)
    driver_errors = (sqlite3.Error,)

    def __init__(self, path, timeout=30, create=True):
        self.path = path
        self.timeout = timeout
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise StoreUnavailable('Cannot open the SQLite store %s: the directory %s does not exist. '
                                   'Create it or point store at another path.' % (path, directory))
        try:
            if not create:      # an empty store in memory: the file is not created
                self._conn = sqlite3.connect(':memory:', isolation_level=None)
            else:
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
                self._conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
                self._conn.execute('PRAGMA journal_mode=WAL')
                self._conn.execute('PRAGMA synchronous=FULL')
        except (OSError, sqlite3.Error) as e:
            raise StoreUnavailable('Cannot open the SQLite store %s: %s' % (path, e))
        try:
            self._migrate(SCHEMA, MIGRATIONS, 'CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)')
        except BaseException:
            self._conn.close()      # a refused store keeps no -wal/-shm files behind
            raise
        self.absent = not create

    def _execute(self, sql, params=()):
        return self._conn.execute(sql, params)

    def _schema_version(self):
        if not self._one("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'"):
            return None
        return int(self._one("SELECT value FROM meta WHERE name = 'schema_version'")[0])

    def _describe(self):
        return 'SQLite store %s' % self.path

    def _begin(self, write, commit):
        try:
            self._conn.execute('BEGIN IMMEDIATE' if write else 'BEGIN')
        except sqlite3.Error as e:
            raise self._translate(e)
        self._changes = self._conn.total_changes

    def _wrote(self):
        return self._conn.total_changes != self._changes

    def _rollback(self):
        """Roll back, unless SQLite already did (a full disk, an I/O error)."""
        if self._conn.in_transaction:
            self._conn.execute('ROLLBACK')

    def _translate(self, error):
        text = str(error)
        if 'locked' in text or 'busy' in text:
            return StoreBusy('The SQLite store %s stayed locked by another writer for more than %s seconds. '
                             'Retry, or raise timeout.' % (self.path, self.timeout))
        if 'disk is full' in text or 'disk I/O error' in text:
            return StoreUnavailable('Cannot write the SQLite store %s: %s (a full disk, a file size limit or a failing '
                                    'disk). Free some space and retry; the store was not changed.' % (self.path, text))
        return StoreUnavailable('The SQLite store %s failed: %s' % (self.path, text))

    def lock_pool(self, namespace, name):
        """BEGIN IMMEDIATE already excludes every other writer."""

    def lock_namespace(self, namespace):
        """BEGIN IMMEDIATE already excludes every other writer."""

    def close(self):
        self._conn.close()
