#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What does adopting a spreadsheet cost? ``netpool.ipam.adopt`` against ``netpool.ipam.reservation`` with ``owners``.

On a fresh store with one /16 pool: one ``adopt`` task of a CSV file of N rows (address, owner, rack), then the
same task again (a rerun: all unchanged); on another fresh store, one ``reservation`` task of N static owners
(``owners`` with an address each, the same addresses and metadata), then again. Each task runs as its action
plugin runs it (``run_task``: options checked, the store opened, the service called), in this process, with a timeout of
300 s (a loaded shared machine); the store transactions each task opens are counted (``Store.transaction``:
the first task of a store also opens the one that reads its schema), and must not grow with N.

    .venv/bin/python bench/adopt.py --store sqlite                          # N=10,000
    .venv/bin/python bench/adopt.py --store postgresql://postgres@127.0.0.1/bench --rows 10000
"""

import argparse
import os
import platform
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'collections'))

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E402
from ansible_collections.netpool.ipam.plugins.plugin_utils._task._inprocess import run_task  # noqa: E402

CIDR = '10.0.0.0/16'


def rows(n):
    """``(address, owner, rack)`` of N hosts, from 10.0.1.0 on (the network address and the gateway left out)."""
    return [('10.0.%d.%d' % (1 + i // 256, i % 256), 'host%05d' % i, 'r%d' % (i % 40)) for i in range(n)]


def counted(run):
    """``(result, wall, CPU seconds, store transactions)`` of ``run()``."""
    opened, saved = [], {}
    for cls in _all_subclasses(_base.Store):
        if 'transaction' in cls.__dict__:
            saved[cls] = cls.__dict__['transaction']
            cls.transaction = _counting(saved[cls], opened)
    try:
        start, cpu = time.perf_counter(), time.process_time()
        result = run()
        return result, time.perf_counter() - start, time.process_time() - cpu, len(opened)
    finally:
        for cls, original in saved.items():
            cls.transaction = original


def _counting(original, opened):
    def transaction(store, *args, **kwargs):
        opened.append(store)
        return original(store, *args, **kwargs)
    return transaction


def _all_subclasses(cls):
    found = []
    for sub in cls.__subclasses__():
        found += [sub] + _all_subclasses(sub)
    return found


def fresh(spec, directory, name):
    """A store of its own for one measure: a new file, or a new schema of the PostgreSQL database given."""
    if spec in ('sqlite', 'json'):
        return os.path.join(directory, '%s.%s' % (name, spec))
    import psycopg     # pylint: disable=import-outside-toplevel
    schema = 'bench_adopt_%s' % uuid.uuid4().hex[:8]
    with psycopg.connect(spec, autocommit=True) as conn:
        conn.execute('CREATE SCHEMA %s' % schema)
    return '%s%soptions=-csearch_path%%3D%s' % (spec, '&' if '?' in spec else '?', schema)


def measure(store, task):
    service = Service(open_store(store))
    service.pool('bench', subnets=[{'cidr': CIDR, 'gateway': '10.0.0.1'}])
    service.store.close()
    first = counted(task)
    again = counted(task)
    for result in (first[0], again[0]):
        assert not result.get('failed'), result.get('msg')
    return first, again


def run(spec, n):
    directory = tempfile.mkdtemp(prefix='netpool-bench-adopt-')
    data = rows(n)
    csv = os.path.join(directory, 'hosts.csv')
    with open(csv, 'w') as f:
        f.write('address,owner,rack\n' + ''.join('%s,%s,%s\n' % row for row in data))
    adopt_store = fresh(spec, directory, 'adopt')
    owners_store = fresh(spec, directory, 'owners')
    adopt = measure(adopt_store, lambda: run_task('adopt', {'store': adopt_store, 'csv': csv, 'timeout': 300}))
    assert len(adopt[0][0]['adopted']) == n and len(adopt[1][0]['unchanged']) == n
    owners = [{'owner': owner, 'address': address, 'metadata': {'rack': rack}} for address, owner, rack in data]
    statics = measure(owners_store, lambda: run_task('reservation', {'store': owners_store, 'pool': 'bench',
                                                                     'owners': owners, 'timeout': 300}))
    assert len(statics[0][0]['reservations']) == n and not statics[1][0]['changed']
    print('%s; store %s; %d rows' % (platform.platform(), spec.split('?')[0], n))
    print('%-44s %9s %9s %13s' % ('task', 'wall s', 'CPU s', 'transactions'))
    for name, (first, again) in (('adopt, csv of %d rows' % n, adopt),
                                 ('reservation, owners: %d statics' % n, statics)):
        print('%-44s %9.2f %9.2f %13d' % (name, first[1], first[2], first[3]))
        print('%-44s %9.2f %9.2f %13d' % ('  the same task again (a rerun)', again[1], again[2], again[3]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--store', default='sqlite', help='sqlite, json, or a postgresql:// URL')
    parser.add_argument('--rows', type=int, default=10000)
    args = parser.parse_args()
    run(args.store, args.rows)


if __name__ == '__main__':
    main()
