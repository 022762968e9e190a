#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a store one schema version behind costs its reads, against one at today's version (SQLite and JSON).

A store of N reservations (one pool, one reservation per owner) is made at today's schema version, and a copy of
it is taken back to the version before (SQLite: its reservation table made again as that version had it; JSON:
its ``schema_version``, the document of version 3 being one of version 4). Each store then takes R reads, each one
a task's: open the store (not to create it, as a read does), ``info`` of one owner, close. The store behind starts
from a fresh copy each round; no read migrates it (SQLite: each read migrates a copy in memory; a JSON document is
migrated in memory by every read), and the script prints its version after the reads.

    .venv/bin/python bench/older_store.py [--stores sqlite json] [--reservations 6000] [--reads 50] [--rounds 3]
"""

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT  # noqa: E402  pylint: disable=wrong-import-position

sys.path.insert(0, os.path.join(ROOT, 'collections'))
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _sql_schema  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import SCHEMA_VERSION  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E402

BATCH = 1000

#: the reservation table of schema version 3, the one before today's (4): no family in its primary key
RESERVATION_3 = """CREATE TABLE reservation_3 (
    namespace TEXT NOT NULL, pool TEXT NOT NULL, owner TEXT NOT NULL, key TEXT NOT NULL,
    address TEXT NOT NULL, expires_at TEXT, data TEXT NOT NULL,
    PRIMARY KEY (namespace, pool, owner, key),
    UNIQUE (namespace, address))"""


def fill(path, count):
    """Pool bench (10.0.0.0/16) and one reservation per owner, in batches of BATCH owners."""
    store = open_store(path, timeout=600)
    try:
        service = Service(store)
        service.pool('bench', subnets=[{'cidr': '10.0.0.0/16'}])
        owners = ['host%05d' % i for i in range(count)]
        for i in range(0, len(owners), BATCH):
            service.reserve_owners('bench', owners[i:i + BATCH])
    finally:
        store.close()


def back_to_version_3(path):
    """Take a store of schema version 4 back to version 3: SQLite, the reservation table as version 3 had it;
    JSON, its ``schema_version`` only (the step from 3 to 4 changed no other part of the document)."""
    assert SCHEMA_VERSION == 4, 'this bench knows the step from version 3 to 4 only'
    if path.endswith('.json'):
        with open(path) as f:
            text = f.read()
        today = '\n  "schema_version": 4\n}'
        assert text.count(today) == 1 and text.endswith(today + '\n'), text[-200:]
        with open(path, 'w') as f:
            f.write(text.replace(today, '\n  "schema_version": 3\n}'))
        return
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute('BEGIN IMMEDIATE')
        conn.execute(RESERVATION_3)
        conn.execute('INSERT INTO reservation_3 SELECT namespace, pool, owner, key, address, expires_at, data '
                     'FROM reservation')
        conn.execute('DROP TABLE reservation')
        conn.execute('ALTER TABLE reservation_3 RENAME TO reservation')
        for statement in _sql_schema.migrations('sqlite')[3]:
            if statement.startswith('CREATE INDEX'):
                conn.execute(statement)
        conn.execute("UPDATE meta SET value = '3' WHERE name = 'schema_version'")
        conn.execute('COMMIT')
    finally:
        conn.close()


def version(path):
    if path.endswith('.json'):
        with open(path) as f:
            return json.load(f)['schema_version']
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0])
    finally:
        conn.close()


def reads(path, count):
    """Seconds of ``count`` reads, each a task's (open not to create, info of one owner, close); and of the first."""
    times = []
    for i in range(count):
        start = time.perf_counter()
        store = open_store(path, create=False)
        try:
            found = Service(store).info(owner='host%05d' % (i * 7 % 100))['reservations']
        finally:
            store.close()
        times.append(time.perf_counter() - start)
        assert len(found) == 1, found
    return sum(times), times[0]


def read_file(path):
    with open(path, 'rb') as f:
        return f.read()


def bench(work, kind, args):
    """Time the reads of a store of ``kind`` at today's version and one version behind; print the figures."""
    today = os.path.join(work, 'today.' + kind)
    older = os.path.join(work, 'older.' + kind)
    behind = os.path.join(work, 'behind.' + kind)
    fill(today, args.reservations)
    shutil.copyfile(today, older)
    back_to_version_3(older)
    figures = {'today': [], 'behind': [], 'behind, first read': []}
    after = unchanged = None
    for _round in range(args.rounds):
        figures['today'].append(reads(today, args.reads)[0])
        shutil.copyfile(older, behind)
        total, first = reads(behind, args.reads)
        figures['behind'].append(total)
        figures['behind, first read'].append(first)
        after = version(behind)
        unchanged = read_file(behind) == read_file(older) if kind == 'json' else None
    at_today, at_behind = statistics.median(figures['today']), statistics.median(figures['behind'])
    print('%s store of %d reservations, %d reads (each: open, info of one owner, close), median of %d rounds'
          % ({'sqlite': 'SQLite', 'json': 'JSON'}[kind], args.reservations, args.reads, args.rounds))
    print('  at today\'s schema version %d:     %7.3f s' % (SCHEMA_VERSION, at_today))
    print('  one version behind (3):          %7.3f s  = %.2fx  (its first read %.3f s; schema version after: %d%s)'
          % (at_behind, at_behind / at_today, statistics.median(figures['behind, first read']), after,
             '' if unchanged is None else '; file unchanged: %s' % ('yes' if unchanged else 'NO')))
    if unchanged is False:
        raise SystemExit('the reads rewrote the JSON document one version behind')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--stores', nargs='+', choices=('sqlite', 'json'), default=['sqlite', 'json'])
    parser.add_argument('--reservations', type=int, default=6000)
    parser.add_argument('--reads', type=int, default=50)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix='netpool-older-')
    try:
        for kind in args.stores:
            bench(work, kind, args)
    finally:
        shutil.rmtree(work)


if __name__ == '__main__':
    main()
