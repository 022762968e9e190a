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
- A store the user may read but not write (the file, or its directory, not
  writable: file permissions, ``chattr +i``, a read-only mount) is copied
  into memory when it is opened, read with ``immutable=1`` (no ``-wal``/``-shm``
  file is made, none is left behind), or through the write-ahead log
  (``mode=ro``) while a writer keeps a ``-wal`` file there. Reads, check mode
  and a rerun that changes nothing work on the copy; a change fails
  ``store_unavailable`` saying the store is read-only and what to do, and
  nothing is written.
- A file that is not an SQLite database fails ``store_unavailable`` naming it
  and saying how to restore it (docs/reliability.md).
- A ``meta`` table holds the schema version; an older schema is migrated
  once, by the first task that changes something (``_sql_migration``'s
  ``_migrate``), in a write transaction of its own, a read-only store's in its
  copy in memory. A read or check mode leaves it as it is: the store is copied
  into memory and migrated there (``_read_behind``), so a controller still on
  the older collection can go on using it. A newer one is refused with
  ``store_version``.
"""

import os
import sqlite3

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreBusy, StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import read_only as read_only_error
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql import SqlStore
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql_schema import meta, migrations, schema

#: schema version -> the statements that bring a store of that version to the next
MIGRATIONS = migrations('sqlite')


def read_only(path):
    """Why the SQLite file ``path`` (which exists) cannot be written, or None: the file, or its directory (where
    the ``-wal``/``-shm`` files are made, unless both are there and writable), not writable by this user. Checked
    with ``os.access``, which also sees an immutable file (``chattr +i``) and a read-only mount as root."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.access(path, os.W_OK):
        return 'the file is not writable by the user running Ansible'
    if not os.access(directory, os.W_OK) and not all(os.access(path + end, os.W_OK) for end in ('-wal', '-shm')):
        return 'its directory %s is not writable by the user running Ansible' % directory
    return None


class SqliteStore(SqlStore):
    kind = 'sqlite'
    integrity_errors = (sqlite3.IntegrityError,)
    driver_errors = (sqlite3.Error,)

    #: why the store is read-only (the file or its directory is not writable), None when it is not
    read_only = None

    def __init__(self, path, timeout=30, create=True, migrate=True):
        self.path = path
        self.timeout = timeout
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise StoreUnavailable('Cannot open the SQLite store %s: the directory %s does not exist. '
                                   'Create it or point store at another path.' % (path, directory))
        if create and os.path.exists(path):
            self.read_only = read_only(path)
        try:
            if not create:      # an empty store in memory: the file is not created
                self._conn = sqlite3.connect(':memory:', isolation_level=None)
            elif self.read_only:
                self._conn = self._copy(path, timeout)
            else:
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
                self._conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
                self._conn.execute('PRAGMA journal_mode=WAL')
                self._conn.execute('PRAGMA synchronous=FULL')
        except OSError as e:
            if not os.path.exists(path) and not os.access(directory, os.W_OK):
                raise StoreUnavailable('Cannot create the SQLite store %s: the directory %s is not writable by the '
                                       'user running Ansible (%s). Point store at a writable place, or fix the '
                                       'permissions of the directory.' % (path, directory, e.strerror or e))
            raise StoreUnavailable('Cannot open the SQLite store %s: %s' % (path, e))
        except sqlite3.Error as e:
            if getattr(self, '_conn', None) is not None:
                self._conn.close()
            raise self._translate(e)
        try:
            self._migrate(schema('sqlite'), MIGRATIONS, meta('sqlite'), migrate=migrate)
        except sqlite3.Error as e:
            self._conn.close()
            raise self._translate(e)
        except BaseException:
            self._conn.close()      # a refused store keeps no -wal/-shm files behind
            raise
        self.absent = not create
        self.created = self.created and create      # (the tables of an absent store are made in memory)

    @staticmethod
    def _copy(path, timeout):
        """A read-only store, copied into memory: work (check mode too) runs on the copy, and ``_finish`` refuses
        to keep a change. The file is read with ``immutable=1`` (nothing is made beside it), or through the
        write-ahead log (``mode=ro``) while a writer keeps one there."""
        # imported here: urllib.request imports ssl, about 0.07 s of CPU that a read-write store never needs
        from urllib.request import pathname2url

        mode = 'mode=ro' if os.path.exists(path + '-wal') and os.path.exists(path + '-shm') else 'immutable=1'
        source = sqlite3.connect('file:%s?%s' % (pathname2url(os.path.abspath(path)), mode), uri=True,
                                 timeout=timeout)
        try:
            copy = sqlite3.connect(':memory:', isolation_level=None)
            try:
                source.backup(copy)
            except BaseException:
                copy.close()
                raise
        finally:
            source.close()
        return copy

    def _read_behind(self):
        """A store of an older version opened by a read or check mode: copied into memory, as a read-only one is,
        and migrated there; the file is left as it is."""
        if not self.read_only:      # (copied through the connection it has: it was opened read-write)
            source, self._conn = self._conn, sqlite3.connect(':memory:', isolation_level=None)
            try:
                source.backup(self._conn)
            finally:
                source.close()
        self._migrate_now()

    def _finish(self, keep):
        if keep and self.read_only and not self._migrating and self._wrote():
            self._rollback()
            raise read_only_error('SQLite store %s' % self.path, self.read_only)
        super(SqliteStore, self)._finish(keep)

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
        if 'readonly database' in text:
            return read_only_error('SQLite store %s' % self.path, self.read_only or text)
        if 'file is not a database' in text or 'file is encrypted' in text:
            return StoreUnavailable(
                'The file %s is not an SQLite database (%s): it is damaged, or another file was given as store. '
                'Nothing was written to it. Restore it from a backup (docs/reliability.md), or, to start with an '
                'empty store, move it away (mv %s %s.damaged) and run again: a new store is created at %s.'
                % (self.path, text, self.path, self.path, self.path))
        if 'locked' in text or 'busy' in text:
            return StoreBusy('The SQLite store %s stayed locked by another writer for more than %s seconds. '
                             'Retry, or raise timeout.' % (self.path, self.timeout))
        if 'disk is full' in text or 'disk I/O error' in text:
            return StoreUnavailable('Cannot write the SQLite store %s: %s (a full disk, a file size limit or a failing '
                                    'disk). Free some space and retry; the store was not changed.' % (self.path, text))
        return StoreUnavailable('The SQLite store %s failed: %s' % (self.path, text))

    def reservation_transaction(self, namespace, pool, owners, key, commit, as_rerun, change):
        """BEGIN IMMEDIATE takes the write lock at once: a rerun is answered in a read transaction first."""
        return self._rerun_read_first(namespace, pool, owners, key, commit, as_rerun, change)

    def lock_pool(self, namespace, name):
        """BEGIN IMMEDIATE already excludes every other writer."""

    def lock_namespace(self, namespace):
        """BEGIN IMMEDIATE already excludes every other writer."""

    def close(self):
        self._conn.close()
