# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Damaged rows of the SQL stores (SQLite, PostgreSQL): how a row is checked, named and reported.

This is a private module: it may change at any time. A row that cannot be read as netpool.ipam data (a table
edited by hand, a disk that lost a write) raises ``DamagedRow`` naming its table and key, what is wrong and
what to do (``DamagedRows._damaged``); ``damaged_rows`` lists every such row, for ``verify``. ``DamagedRows``
is a part of ``_sql.SqlStore``, which reads its rows.
"""

import json

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import DamagedRow
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool, Reservation


#: what reading a damaged row as netpool.ipam data raises
DAMAGE = (KeyError, ValueError, TypeError, AttributeError)

#: table -> the columns that name one of its rows (its primary key), and the columns read as data
ROWS = {
    'pool': (('namespace', 'name'), ('data',)),
    'reservation': (('namespace', 'pool', 'owner', 'key', 'family'), ('address', 'data')),
    'free_span': (('namespace', 'pool', 'first'), ('first', 'last')),
    'released': (('namespace', 'pool', 'address'), ('address', 'until')),
}


def read_row(table, values):
    """Parse one row's data columns as the store reads them; raises one of ``DAMAGE`` if it is damaged."""
    if table == 'pool':
        Pool.from_data(json.loads(values[0]))
    elif table == 'reservation':
        r = Reservation.from_data(json.loads(values[1]))
        if r.address_key != values[0]:
            raise ValueError('its address column %r is not the address of its data (%s)' % (values[0], r.address_str))
    elif table == 'free_span':
        first, last = iv.from_key(values[0]), iv.from_key(values[1])
        if first[0] != last[0] or first[1] > last[1]:
            raise ValueError('%r-%r is not a span of addresses' % tuple(values))
    else:
        iv.from_key(values[0])
        if not isinstance(values[1], str):
            raise TypeError('until is %r, not a time' % (values[1],))


def name_row(table, key):
    """A row as messages name it: ``table`` and its key columns."""
    return 'table %s, row %s' % (table, ', '.join('%s=%r' % pair for pair in zip(ROWS[table][0], key)))


def damage_text(error):
    """What is wrong with a damaged row, in one line."""
    if isinstance(error, KeyError):
        return 'its data lacks the key %s' % error
    return '%s: %s' % (type(error).__name__, error)


def damage_remedy(table):
    """What the user can do about a damaged row of ``table``."""
    if table == 'free_span':
        return ('Free spans are derived: run netpool.ipam.repair to rebuild them (verify: true lists '
                'every damaged row first).')
    return ('Run netpool.ipam.info with verify: true to list every damaged row; then restore the store from a backup, '
            'or correct or delete the row by hand (a deleted reservation is made again by its task, a deleted pool '
            'by its netpool.ipam.pool task).')


class DamagedRows(object):
    """The damaged-row part of ``_sql.SqlStore``: it reads rows by ``_rows`` and names the store by ``_describe``."""

    def _damaged(self, table, where, params, error):
        """``DamagedRow`` for the row of ``table`` matching ``where`` that could not be read: it names the table
        and the row (its key columns, read again here), says what is wrong and what to do."""
        keys = ROWS[table][0]
        try:
            found = self._rows('SELECT %s FROM %s WHERE %s' % (', '.join(keys), table, where), params)
        except Exception:       # the message names what it can: reading the row's key is only for the message
            found = []
        rows = '; '.join(name_row(table, row) for row in found[:3]) or 'table %s' % table
        return DamagedRow('The %s holds a damaged row (%s): %s. %s' % (
            self._describe(), rows, damage_text(error), damage_remedy(table)), table=table)

    def damaged_rows(self, namespace=None):
        found = []
        for table, (keys, columns) in sorted(ROWS.items()):
            sql = 'SELECT %s FROM %s' % (', '.join(keys + columns), table)
            params = ()
            if namespace is not None:
                sql, params = sql + ' WHERE namespace = ?', (namespace,)
            for row in self._rows(sql + ' ORDER BY %s' % ', '.join(keys), params):
                key, values = row[:len(keys)], row[len(keys):]
                try:
                    read_row(table, values)
                except DAMAGE as e:
                    found.append({'table': table, 'namespace': key[0], 'pool': key[1], 'row': name_row(table, key),
                                  'error': damage_text(e)})
        return found
