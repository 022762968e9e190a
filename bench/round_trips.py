#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Round trips and statements of a reservation on PostgreSQL, counted on the wire.

The store talks to the server through a relay on loopback (tests/support/wire.py) that counts a
round trip each time the server answers after the client spoke. Reported: a new reservation, an idempotent
rerun, 10 owners in one task and their rerun, and the time of 500 new reservations from one process.

    .venv/bin/python bench/round_trips.py                          # this checkout
    .venv/bin/python bench/round_trips.py --tree /tmp/netpool-main # another checkout's collection (before)
"""

import argparse
import importlib.util
import os
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.environ.get('NETPOOL_IPAM_BENCH_POSTGRESQL', 'postgresql://postgres@127.0.0.1:5432/postgres')


def _wire():
    path = os.path.join(HERE, '..', 'tests', 'support', 'wire.py')
    spec = importlib.util.spec_from_file_location('netpool_wire', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def postgresql_spec():
    """A schema of its own in the database of NETPOOL_IPAM_BENCH_POSTGRESQL: (store URL, schema)."""
    import psycopg  # pylint: disable=import-outside-toplevel
    schema = 'netpool_bench_%s' % uuid.uuid4().hex[:8]
    with psycopg.connect(SERVER, autocommit=True) as conn:
        conn.execute('CREATE SCHEMA %s' % schema)
    return SERVER + ('&' if '?' in SERVER else '?') + 'options=-csearch_path%3D' + schema, schema


def drop_schema(schema):
    import psycopg  # pylint: disable=import-outside-toplevel
    with psycopg.connect(SERVER, autocommit=True) as conn:
        conn.execute('DROP SCHEMA %s CASCADE' % schema)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--tree', default=os.path.join(HERE, '..'), help='the checkout whose collection is measured')
    parser.add_argument('--count', type=int, default=500)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.tree), 'collections'))
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # noqa: E402
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E402
    spec, schema = postgresql_spec()
    try:
        with _wire().RoundTrips(spec) as relay:
            store = open_store(relay.spec)
            svc = Service(store)
            svc.pool('web', subnets=[{'cidr': '10.0.0.0/16'}])
            svc.reserve('web', 'warm')
            many = getattr(svc, 'reserve_owners', None)
            cases = [('new reservation', lambda: svc.reserve('web', 'h1')),
                     ('idempotent rerun', lambda: svc.reserve('web', 'h1'))]
            if many is not None:
                cases += [('10 owners, one task', lambda: many('web', ['o%d' % i for i in range(10)])),
                          ('10 owners, rerun', lambda: many('web', ['o%d' % i for i in range(10)]))]
            print('collection: %s' % os.path.dirname(os.path.dirname(os.path.dirname(
                sys.modules['ansible_collections.netpool.ipam.plugins.module_utils._allocation._service'].__file__))))
            print('| what | round trips |')
            print('| --- | --- |')
            for what, call in cases:
                with relay.counting() as count:
                    call()
                print('| %s | %d |' % (what, count.round_trips))
            store.close()
        store = open_store(spec)     # timed without the relay
        svc = Service(store)
        start = time.perf_counter()
        for i in range(args.count):
            svc.reserve('web', 'n%d' % i)
        elapsed = time.perf_counter() - start
        print('%d new reservations from one process, direct: %.2f ms each, %.0f/s (load average %.2f)'
              % (args.count, 1000 * elapsed / args.count, args.count / elapsed, os.getloadavg()[0]))
        store.close()
    finally:
        drop_schema(schema)
    return 0


if __name__ == '__main__':
    sys.exit(main())
