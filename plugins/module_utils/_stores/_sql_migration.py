# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How a SQL store (SQLite, PostgreSQL) opens its schema: made, migrated, refused, absent or read behind.

This is a private module: it may change at any time. ``SchemaMigration`` is a part of ``_sql.SqlStore``: when
a store is opened, ``_migrate`` reads the version in its ``meta`` table, refuses a newer one, makes the tables
of a new store (or leaves it ``absent``) and migrates an older one, once, for a task that changes something
(a read leaves it ``behind``: read through the migration, not migrated). The DDL it runs is ``_sql_schema``'s,
given by the dialect.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreUnavailable


class SchemaMigration(object):
    """The schema part of ``_sql.SqlStore``: it runs statements by ``_execute`` in the store's ``transaction``."""

    #: ``(schema, migrations, meta)``: the DDL ``_migrate`` was given
    _ddl = None

    #: True during the transaction of ``_migrate`` that makes or migrates the schema (a read-only SQLite store
    #: keeps what it did in its copy in memory)
    _migrating = False

    def _schema_version(self):
        """The version in the ``meta`` table, None for a new store."""
        raise NotImplementedError  # pragma: no cover - every dialect defines it

    def _lock_schema(self):
        """Keep other processes from creating or migrating the schema meanwhile (a write transaction may already)."""

    def _migrate(self, schema, migrations, meta, create=True, migrate=True):
        """Open the schema: refuse a newer one with ``store_version`` (or one with no migration path),
        changing nothing. A store without tables gets them (``meta`` DDL, then ``schema``) when ``create``;
        otherwise it is ``absent``: it reads as empty, each transaction works on tables of its own that
        vanish at its end, and one that would commit a change raises ``StoreAbsent``. A store of an older
        version is migrated here when ``migrate`` (a task that changes something: ``_runner.with_service``
        opens it so only then): once, by ``migrations`` (version -> statements), in a write transaction of its
        own that commits before the task's first one begins. Otherwise (a read, check mode) it is ``behind``: it
        is read through the migration without being changed (``_read_behind``), and a transaction that would
        commit a change raises ``StoreAbsent``, so that a controller still on the older collection can go on
        using a shared store that one reader on the newer collection opened."""
        self._ddl = (schema, migrations, meta)
        with self.transaction(write=False):
            version = self._read_version()
        if version == _base.SCHEMA_VERSION:
            return
        _base.check_schema_version(version, migrations, self._describe())
        if version is None and not create:
            self.absent = self._scratch = True
            return
        if version is not None and not migrate:
            self.behind = version
            self._read_behind()
            return
        self._migrate_now()

    def _read_behind(self):
        """Read a store of the older version ``self.behind`` as one of today's, changing nothing of it."""
        raise NotImplementedError  # pragma: no cover - every dialect defines it

    def _migrate_now(self):
        """Make or migrate the schema, in a write transaction of its own under the schema's lock."""
        migrations = self._ddl[1]
        self._migrating = True
        try:
            with self.transaction():
                self._lock_schema()
                version = self._read_version()      # another process may have made or migrated it meanwhile
                _base.check_schema_version(version, migrations, self._describe())
                if version is None:
                    self._create_schema()
                    self.created = True     # (decided under the schema's lock: one process makes it)
                elif version < _base.SCHEMA_VERSION:
                    for step in range(version, _base.SCHEMA_VERSION):
                        for statement in migrations[step]:
                            self._execute(statement)
                    self._execute("UPDATE meta SET value = ? WHERE name = 'schema_version'",
                                  (str(_base.SCHEMA_VERSION),))
        finally:
            self._migrating = False

    def _create_schema(self, temporary=False):
        """Make the tables of SCHEMA_VERSION; ``temporary``: tables of this session only (in PostgreSQL they
        hide any of the same name, and the transaction's rollback drops them)."""
        schema, _migrations, meta = self._ddl
        for statement in [meta] + schema.split(';'):
            if statement.strip():
                if temporary:
                    statement = statement.replace('CREATE TABLE', 'CREATE TEMPORARY TABLE', 1)
                self._execute(statement)
        self._execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(_base.SCHEMA_VERSION),))

    def _read_version(self):
        """``_schema_version``, refusing a value that is not an integer (an edited ``meta`` table)."""
        try:
            return self._schema_version()
        except (ValueError, TypeError) as e:
            raise StoreUnavailable('The %s has no integer schema_version in its meta table (%s: %s). The table '
                                   'was edited or damaged: restore it from a backup; the store was not touched.'
                                   % (self._describe(), type(e).__name__, e))
