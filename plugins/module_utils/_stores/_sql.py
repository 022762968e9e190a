# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the SQL stores (SQLite, PostgreSQL) share: tables and queries.

This is a private module: it may change at any time. Queries are written
once with ``?`` placeholders and always parameterised; a dialect converts
the placeholders and supplies the DDL, connection and transaction handling.
Addresses are kept as fixed-width sortable keys (``_intervals.key``), so
an index on the key column answers "first free span at or after X" and
"who holds X" without scanning. How a store opens its schema (made,
migrated, refused) is ``_sql_migration``; how a damaged row is found and
reported is ``_sql_damage``; the DDL is ``_sql_schema``.
"""

import contextlib
import json

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import AddressInUse
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool, Reservation
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import SpanStore
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql_damage import DAMAGE, DamagedRows, read_row
from ansible_collections.netpool.ipam.plugins.module_utils._stores._sql_migration import SchemaMigration


HISTORY_COLUMNS = ('time', 'namespace', 'pool', 'object', 'action', 'owner', 'key', 'address', 'old', 'new')


def _carved_from(pools, top):
    """The names of ``pools`` (name -> ``Pool``) that are ``top`` or lie below it in its tree (a pool's lock keeps
    other writers off those)."""
    found = set()
    for name in pools:
        seen, at = set(), name
        while at is not None and at not in seen:
            if at == top:
                found.add(name)
                break
            seen.add(at)
            at = pools[at].parent if at in pools else None
    return frozenset(found)


def _json(value):
    return json.dumps(value, sort_keys=True, separators=(',', ':'))


class SqlStore(SchemaMigration, DamagedRows, SpanStore):
    """The store interface, with free spans, over a DB-API connection ``self._conn``."""

    #: exception classes a unique-constraint violation raises
    integrity_errors = ()
    #: the driver's base exception class: what ``_translate`` turns into store errors
    driver_errors = ()

    def _execute(self, sql, params=()):
        raise NotImplementedError  # pragma: no cover - every dialect defines it

    def _begin(self, write, commit):
        """Start a transaction (connecting if need be); raise store errors."""
        raise NotImplementedError  # pragma: no cover - every dialect defines it

    def _rollback(self):
        """Roll back, unless the driver or the server already did."""
        raise NotImplementedError  # pragma: no cover - every dialect defines it

    def _translate(self, error):
        """The ``IpamError`` for a driver error."""
        raise NotImplementedError  # pragma: no cover - every dialect defines it

    def _wrote(self):
        """Whether the open transaction changed anything (asked only of an ``absent`` store)."""
        raise NotImplementedError  # pragma: no cover - only a dialect that can be absent defines it

    #: True for a store whose tables are made for each transaction and dropped at its end (an absent
    #: PostgreSQL store, see ``_migrate``), rather than once when the store is opened
    _scratch = False

    @contextlib.contextmanager
    def transaction(self, write=True, commit=True):
        # a transaction that makes tables, even to drop them at its end, is a write transaction to the server
        # (a store read behind is read at REPEATABLE READ: its tables are copied in one snapshot, ``_fill_behind``)
        self._begin(write or (self._scratch and not self.behind), commit)
        self._forget_pools()
        try:
            if self._scratch:
                self._create_schema(temporary=True)
                if self.behind:
                    self._fill_behind()
            yield self
        except self.driver_errors as e:
            self._rollback()
            raise self._translate(e)
        except BaseException:
            self._rollback()
            raise
        else:
            if (self.absent or self.behind) and not self._migrating:
                try:
                    self._refuse_absent(write, commit, self._wrote())
                except BaseException:
                    self._rollback()
                    raise
            try:
                self._finish(commit and not self._scratch)
            except self.driver_errors as e:
                self._rollback()
                raise self._translate(e)

    def _finish(self, keep):
        """End the transaction: commit it (``keep``) or roll it back."""
        self._execute('COMMIT' if keep else 'ROLLBACK')

    def _describe(self):
        """The store as messages name it (never with a password)."""
        raise NotImplementedError  # pragma: no cover - every dialect defines it

    def _rows(self, sql, params=()):
        return self._execute(sql, params).fetchall()

    def _one(self, sql, params=()):
        return self._execute(sql, params).fetchone()

    # -- pools ----------------------------------------------------------
    #: parsed pools by their stored text: parsing subnets is most of a read's cost (the lookup, reruns)
    _parsed = None

    def _pool(self, text):
        if self._parsed is None:
            self._parsed = {}
        pool = self._parsed.get(text)
        if pool is None:
            if len(self._parsed) > 1024:
                self._parsed.clear()
            try:
                pool = self._parsed[text] = Pool.from_data(json.loads(text))
            except DAMAGE as e:
                raise self._damaged('pool', 'data = ?', (text,), e)
        return pool

    #: the pools read in this transaction: namespace -> {name: Pool} (every pool of the namespace, read at
    #: once), and (namespace, name) -> Pool read with a reservation. A transaction reads a pool once: pools
    #: change only under the namespace lock, so what was read after the transaction's lock (or in a read
    #: snapshot) stays true until it ends; ``lock_pool``/``lock_namespace`` forget what was read before them,
    #: and a write of the transaction's own forgets its namespace.
    _namespace_pools = None
    _read_pools = None
    #: the pools of each namespace as last read, by any transaction (see ``_unlocked``)
    _last_pools = None
    #: what a store that pays for each round trip (PostgreSQL) reads with the pools once it holds a pool's
    #: lock (``_locked``: (namespace, pool), pool None for the namespace's): namespace -> (the earliest expires_at,
    #: the earliest until of a resting address, the names of the pools that lock keeps every other writer off:
    #: None for all of them), and (namespace, pool) -> the locked pool's lowest free span (or None: it has none).
    #: They answer "anything due?" and "the first free span" without asking again, for what the lock covers only,
    #: until a write of the transaction changes what they say.
    _locked = None
    _due = None
    _lowest = None

    def _forget_pools(self):
        self._namespace_pools, self._read_pools, self._due, self._lowest = {}, {}, {}, {}

    def _unlocked(self):
        """True while a write transaction of a store shared by many writers has taken no lock yet: the pools as the
        last transaction read them serve then. What a write transaction reads before its first lock may change
        before the lock is had, on any store shared by many writers: it only chooses what to lock, and what the
        transaction acts on is read again once locked (the store interface says so: ``_base``), whoever reads it."""
        return False

    def _pools_of(self, namespace):
        pools = self._namespace_pools.get(namespace)
        if pools is None and self._unlocked() and namespace in (self._last_pools or {}):
            return self._last_pools[namespace]
        if pools is None:
            locked = self._locked if self._locked and self._locked[0] == namespace else None
            if locked:      # the pools, what is due in the namespace and the locked pool's lowest free span
                rows = self._locked_pools(namespace, locked[1])
            else:
                rows = self._rows('SELECT data FROM pool WHERE namespace = ? ORDER BY name', (namespace,))
            pools = self._namespace_pools[namespace] = dict((p.name, p) for p in (self._pool(r[0]) for r in rows))
            if locked and rows:
                self._due[namespace] = (rows[0][1], rows[0][2],
                                        None if locked[1] is None else _carved_from(pools, locked[1]))
                self._lowest[locked] = self._span(rows[0][3].split(' ')) if rows[0][3] else None
            if self._last_pools is None:
                self._last_pools = {}
            self._last_pools[namespace] = pools
        return pools

    #: the statement of ``_locked_pools``: the pools of a namespace, the earliest lease and resting address of the
    #: namespace (the same on every row), and a pool's lowest free span (``first last``, or NULL); ``{columns}``: more
    #: columns a dialect reads in the same statement
    LOCKED_POOLS = ('SELECT data, (SELECT MIN(expires_at) FROM reservation WHERE namespace = ? AND expires_at IS NOT '
                    'NULL), (SELECT MIN(until) FROM released WHERE namespace = ?), (SELECT first || \' \' || last FROM '
                    'free_span WHERE namespace = ? AND pool = ? ORDER BY first LIMIT 1){columns} FROM pool p WHERE '
                    'namespace = ? ORDER BY name')

    def _locked_pools(self, namespace, pool):
        """The rows of ``LOCKED_POOLS`` for ``namespace``, once the transaction holds ``pool``'s lock (or, pool None,
        the namespace's)."""
        return self._rows(self.LOCKED_POOLS.format(columns=''), (namespace, namespace, namespace, pool, namespace))

    def _nothing_due(self, namespace, pool, index, time):
        """True if what was read with the pools under the transaction's lock says nothing of ``pool`` (None: of the
        whole namespace) is due at ``time`` (``index`` 0: a lease, 1: a resting address). Trusted only for pools
        that lock keeps every other writer off, whatever was asked before: the namespace's lock covers them all, a
        pool's lock that pool and the pools carved from it; no other writer can have added a lease or a resting
        address to them since it was read, and the transaction's own writes forget it."""
        due = self._due.get(namespace) if namespace is not None and time is not None else None
        if due is None or not (due[2] is None or pool in due[2]):
            return False
        return due[index] is None or due[index] > time

    def get_pool(self, namespace, name):
        if namespace not in self._namespace_pools and (namespace, name) in self._read_pools:
            return self._read_pools[(namespace, name)]
        return self._pools_of(namespace).get(name)

    def list_pools(self, namespace=None):
        if namespace is None:
            return [self._pool(r[0]) for r in self._rows('SELECT data FROM pool ORDER BY namespace, name')]
        return sorted(self._pools_of(namespace).values(), key=lambda p: p.name)

    def save_pool(self, pool):
        self._execute(
            'INSERT INTO pool (namespace, name, parent, data) VALUES (?, ?, ?, ?) '
            'ON CONFLICT (namespace, name) DO UPDATE SET parent = excluded.parent, data = excluded.data',
            (pool.namespace, pool.name, pool.parent, _json(pool.to_data())))
        self._changed_pools(pool.namespace)

    def _changed_pools(self, namespace):
        self._namespace_pools.pop(namespace, None)
        for key in [k for k in self._read_pools if k[0] == namespace]:
            del self._read_pools[key]

    def delete_pool(self, namespace, name, keep_resting=False):
        self._changed_pools(namespace)
        for table in ('pool', 'free_span') + (() if keep_resting else ('released',)):
            self._execute('DELETE FROM %s WHERE namespace = ? AND %s = ?' % (table, 'name' if table == 'pool' else 'pool'),
                          (namespace, name))

    # -- reservations ---------------------------------------------------
    def _reservation(self, row):
        try:
            return Reservation.from_data(json.loads(row[0])) if row else None
        except DAMAGE as e:
            raise self._damaged('reservation', 'data = ?', (row[0],), e)

    def get_reservation(self, namespace, pool, owner, key, version=None):
        # its pool comes with it, in the same statement (the caller shapes the result with the pool's subnet)
        row = self._one(
            'SELECT r.data, p.data FROM reservation r LEFT JOIN pool p ON p.namespace = r.namespace AND p.name = r.pool '
            'WHERE r.namespace = ? AND r.pool = ? AND r.owner = ? AND r.key = ?%s ORDER BY r.family LIMIT 1'
            % ('' if version is None else ' AND r.family = ?'),
            (namespace, pool, owner, key) + (() if version is None else (version,)))
        if row is not None and row[1] is not None:
            self._read_pools[(namespace, pool)] = self._pool(row[1])
        return self._reservation(row)

    #: owners asked at most in one statement (SQLite takes at most 999 parameters)
    OWNERS_AT_ONCE = 500

    @staticmethod
    def _reservations_query(namespace, pool, owners, key):
        """The statement of ``get_reservations`` for at most ``OWNERS_AT_ONCE`` owners: (sql, params)."""
        return ('SELECT r.data, p.data FROM reservation r LEFT JOIN pool p ON p.namespace = r.namespace AND '
                'p.name = r.pool WHERE r.namespace = ? AND r.pool = ? AND r.key = ? AND r.owner IN (%s)'
                % ', '.join('?' * len(owners)), [namespace, pool, key] + list(owners))

    def _found_reservations(self, namespace, pool, rows, found):
        for row in rows:
            r = self._reservation(row)
            held = found.setdefault(r.owner, [])
            held.append(r)
            held.sort(key=lambda r: r.version)
            if row[1] is not None:
                self._read_pools[(namespace, pool)] = self._pool(row[1])
        return found

    def get_reservations(self, namespace, pool, owners, key):
        found = {}
        owners = list(owners)
        for i in range(0, len(owners), self.OWNERS_AT_ONCE):
            self._found_reservations(namespace, pool, self._rows(*self._reservations_query(
                namespace, pool, owners[i:i + self.OWNERS_AT_ONCE], key)), found)
        return found

    def holder(self, namespace, version, address):
        return self._reservation(self._one(
            'SELECT data FROM reservation WHERE namespace = ? AND address = ?', (namespace, iv.key(version, address))))

    def _reservation_filter(self, namespace, pool, owner, key, version, first, last, expires_before):
        """``(WHERE clause, parameters)`` of the reservation filters given."""
        where, params = [], []
        for column, value in (('namespace', namespace), ('pool', pool), ('owner', owner), ('key', key)):
            if value is not None:
                where.append('%s = ?' % column)
                params.append(value)
        if version is not None:
            where.append('address BETWEEN ? AND ?')
            params += [iv.key(version, 0 if first is None else first),
                       iv.key(version, (1 << (32 if version == 4 else 128)) - 1 if last is None else last)]
        if expires_before is not None:
            where.append('expires_at IS NOT NULL AND expires_at <= ?')
            params.append(expires_before)
        return (' WHERE ' + ' AND '.join(where) if where else ''), params

    def find_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                          first=None, last=None, expires_before=None):
        if self._nothing_due(namespace, pool, 0, expires_before):
            return []
        where, params = self._reservation_filter(namespace, pool, owner, key, version, first, last, expires_before)
        sql = 'SELECT data FROM reservation' + where + ' ORDER BY namespace, pool, address'
        return [self._reservation(r) for r in self._rows(sql, params)]

    def count_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                           first=None, last=None, expires_before=None):
        if self._nothing_due(namespace, pool, 0, expires_before):
            return 0
        where, params = self._reservation_filter(namespace, pool, owner, key, version, first, last, expires_before)
        return self._one('SELECT COUNT(*) FROM reservation' + where, params)[0]

    def save_reservation(self, reservation):
        r = reservation
        if r.expires_at is not None:
            self._due.pop(r.namespace, None)
        try:
            self._execute(
                'INSERT INTO reservation (namespace, pool, owner, key, family, address, expires_at, data) '
                'VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, pool, owner, key, family) DO UPDATE SET '
                'address = excluded.address, expires_at = excluded.expires_at, data = excluded.data',
                (r.namespace, r.pool, r.owner, r.key, r.version, r.address_key, r.expires_at, _json(r.to_data())))
        except self.integrity_errors:
            raise AddressInUse('%s is already held in namespace %s' % (r.address_str, r.namespace))

    def delete_reservation(self, reservation):
        self._execute('DELETE FROM reservation WHERE namespace = ? AND pool = ? AND owner = ? AND key = ? '
                      'AND family = ?', reservation.ident)

    # -- free spans -----------------------------------------------------
    def _span(self, row):
        if row is None:
            return None
        try:
            (version, first), (other, last) = iv.from_key(row[0]), iv.from_key(row[1])
            if version != other or first > last:
                read_row('free_span', row)     # raises, saying what is wrong
        except DAMAGE as e:
            raise self._damaged('free_span', 'first = ? AND last = ?', tuple(row), e)
        return (version, first, last)

    def free_first(self, namespace, pool, version, lo, hi):
        if (namespace, pool) in self._lowest:
            span = self._lowest[(namespace, pool)]
            if span is None or (span[0] == version and lo <= span[1] <= hi):
                return span     # the lowest of all, so the lowest in [lo, hi]; or there is none at all
        return self._span(self._one(
            'SELECT first, last FROM free_span WHERE namespace = ? AND pool = ? AND first BETWEEN ? AND ? '
            'ORDER BY first LIMIT 1', (namespace, pool, iv.key(version, lo), iv.key(version, hi))))

    def free_at(self, namespace, pool, version, address):
        k = iv.key(version, address)
        row = self._one('SELECT first, last FROM free_span WHERE namespace = ? AND pool = ? AND first <= ? '
                        'ORDER BY first DESC LIMIT 1', (namespace, pool, k))
        return self._span(row) if row and row[1] >= k else None

    def free_spans(self, namespace, pool, version=None, lo=None, hi=None):
        sql, params = 'SELECT first, last FROM free_span WHERE namespace = ? AND pool = ?', [namespace, pool]
        if version is not None:
            sql += ' AND first BETWEEN ? AND ?'
            params += [iv.key(version, lo or 0), iv.key(version, (1 << 128) - 1 if hi is None else hi)]
        return [self._span(r) for r in self._rows(sql + ' ORDER BY first', params)]

    def add_free(self, namespace, pool, spans):
        self._lowest.pop((namespace, pool), None)
        for version, first, last in spans:
            self._execute('INSERT INTO free_span (namespace, pool, first, last) VALUES (?, ?, ?, ?)',
                          (namespace, pool, iv.key(version, first), iv.key(version, last)))

    def remove_free(self, namespace, pool, spans):
        self._lowest.pop((namespace, pool), None)
        for version, first, _last in spans:
            self._execute('DELETE FROM free_span WHERE namespace = ? AND pool = ? AND first = ?',
                          (namespace, pool, iv.key(version, first)))

    def replace_free(self, namespace, pool, old, new):
        if len(old) == 1 and len(new) == 1 and old[0][0] == new[0][0]:     # one span changed in place
            version, first = old[0][0], old[0][1]
            new_first, new_last = new[0][1], new[0][2]
            self._execute('UPDATE free_span SET first = ?, last = ? WHERE namespace = ? AND pool = ? AND first = ?',
                          (iv.key(version, new_first), iv.key(version, new_last), namespace, pool,
                           iv.key(version, first)))
            # the lowest span, shortened or grown into what lay next to it, is still the lowest: the next
            # allocation of the transaction (the next owner of a task) need not ask again
            if self._lowest.get((namespace, pool), False) == tuple(old[0]):
                self._lowest[(namespace, pool)] = tuple(new[0])
            else:
                self._lowest.pop((namespace, pool), None)
        else:
            super(SqlStore, self).replace_free(namespace, pool, old, new)

    def clear_free(self, namespace, pool):
        self._lowest.pop((namespace, pool), None)
        self._execute('DELETE FROM free_span WHERE namespace = ? AND pool = ?', (namespace, pool))

    # -- released addresses ---------------------------------------------
    def add_released(self, namespace, pool, version, address, until):
        self._due.pop(namespace, None)
        self._execute('INSERT INTO released (namespace, pool, address, until) VALUES (?, ?, ?, ?) '
                      'ON CONFLICT (namespace, pool, address) DO UPDATE SET until = excluded.until',
                      (namespace, pool, iv.key(version, address), until))

    def released(self, namespace, pool, due=None, address=None):
        if self._nothing_due(namespace, pool, 1, due):
            return []
        sql, params = 'SELECT address, until FROM released WHERE namespace = ? AND pool = ?', [namespace, pool]
        if due is not None:
            sql += ' AND until <= ?'
            params.append(due)
        if address is not None:
            sql += ' AND address = ?'
            params.append(iv.key(*address))
        rows = self._rows(sql + ' ORDER BY address', params)
        for row in rows:
            try:
                read_row('released', row)
            except DAMAGE as e:
                raise self._damaged('released', 'namespace = ? AND pool = ? AND address = ?',
                                    (namespace, pool, row[0]), e)
        return [iv.from_key(k) + (until,) for k, until in rows]

    def remove_released(self, namespace, pool, version, address):
        self._execute('DELETE FROM released WHERE namespace = ? AND pool = ? AND address = ?',
                      (namespace, pool, iv.key(version, address)))

    # -- history --------------------------------------------------------
    def add_history(self, entry):
        values = [entry.get(c) for c in HISTORY_COLUMNS]
        values[-2:] = [_json(entry.get('old')), _json(entry.get('new'))]
        self._execute('INSERT INTO history (%s) VALUES (%s)' % (', '.join(HISTORY_COLUMNS), ', '.join('?' * len(values))),
                      values)

    def find_history(self, namespace=None, pool=None, owner=None, address=None):
        where, params = [], []
        # an owner's or an address's entries are found by their own index: ``|| ''`` keeps the pool's index out,
        # which SQLite (without statistics) prefers for its two columns, reading the pool's whole history
        pinned = owner is not None or address is not None
        for column, value in (('namespace', namespace), ('pool', pool), ('owner', owner), ('address', address)):
            if value is not None:
                where.append(("%s || '' = ?" if pinned and column in ('namespace', 'pool') else '%s = ?') % column)
                params.append(value)
        sql = 'SELECT id, %s FROM history' % ', '.join(HISTORY_COLUMNS)
        if where:
            sql += ' WHERE ' + ' AND '.join(where)
        entries = []
        for row in self._rows(sql + ' ORDER BY id', params):
            entry = dict(zip(('id',) + HISTORY_COLUMNS, row))
            entry['old'] = json.loads(entry['old'])
            entry['new'] = json.loads(entry['new'])
            entries.append(entry)
        return entries

    def clear_history(self):
        self._execute('DELETE FROM history')

    def namespaces(self):
        return [r[0] for r in self._rows('SELECT namespace FROM pool UNION SELECT namespace FROM reservation '
                                         'ORDER BY 1')]
