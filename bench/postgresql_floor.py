#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What this machine's PostgreSQL allows at best: the writes of a reservation with no decision at all.

The ceiling any PostgreSQL store design could reach here, beside the store itself in the same run. P processes
(default 8) each run N transactions (default 500) on the store's own schema (made by the store), on one pool
and on P pools, and each transaction is only what every durable reservation must write, sent in ONE round
trip (psycopg's pipeline): BEGIN, the pool's lock, the free span shortened by one address, the reservation
and its history entry, COMMIT. No reading, no Python deciding anything: the address is the process's own
counter. Then the same with the least a decision made in the client needs (docs/design.md#stores: the allocation rules
live above the store interface): the lock and one read answered first (the pool and its lowest free span),
then the writes with COMMIT: two round trips, the lock held across the first answer. Reported beside it: the
store's own reservations (``Service.reserve``) in the same run, and the CPU seconds the client processes and
the server spent per reservation.

    .venv/bin/python bench/postgresql_floor.py [--processes 8] [--count 500] [--tree /tmp/before]

``--tree`` measures another checkout's store (a "before" beside this one); ``--only store`` runs the store alone.
"""

import argparse
import glob
import json
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import parallel  # noqa: E402  pylint: disable=wrong-import-position
from parallel import SERVER, drop_schema, postgresql_spec  # noqa: E402  pylint: disable=wrong-import-position

WRITES = (
    ('SELECT pg_advisory_xact_lock(hashtext(%s))', lambda pool, n: (pool,)),
    # each process shortens a span of its own (its addresses do not meet another's)
    ('UPDATE free_span SET first = %s WHERE namespace = %s AND pool = %s AND first = %s',
     lambda pool, n: ('%08d' % (n + 1), 'default', pool, '%08d' % n)),
    ('INSERT INTO reservation (namespace, pool, owner, key, family, address, expires_at, data) '
     'VALUES (%s, %s, %s, %s, 4, %s, NULL, %s)',
     lambda pool, n: ('default', pool, 'o%d' % n, 'default', '%s:%08d' % (pool, n),
                      json.dumps({'address': '%s:%08d' % (pool, n), 'owner': 'o%d' % n}))),
    ('INSERT INTO history (time, namespace, pool, object, action, owner, key, address, old, new) '
     "VALUES (%s, 'default', %s, 'reservation', 'reserve', %s, 'default', %s, 'null', %s)",
     lambda pool, n: ('2026-11-23T00:00:00Z', pool, 'o%d' % n, '%s:%08d' % (pool, n), '{}')),
)


#: what a decision in the client reads under the lock, at the least: the pool and its lowest free span
READ = ('SELECT f.first FROM free_span f JOIN pool p ON p.namespace = f.namespace AND p.name = %s '
        'WHERE f.namespace = %s AND f.pool = %s AND f.first >= %s ORDER BY f.first LIMIT 1')


def _decided(spec, pool, index, count, barrier, queue):
    _floor(spec, pool, index, count, barrier, queue, decide=True)


def _reporting(target, *args):
    """``target(*args)`` in a worker; a failure is put on the queue and breaks the barrier, so that the bench stops
    and says why instead of waiting for the worker (the writes of schema 4 once failed in every worker)."""
    barrier, queue = args[-2:]
    try:
        target(*args)
    except BaseException as e:   # pylint: disable=broad-except
        barrier.abort()
        queue.put('%s: %s' % (type(e).__name__, e))


def server_cpu():
    """CPU seconds every PostgreSQL process of this machine has used (the server is local)."""
    total = 0
    for stat in glob.glob('/proc/[0-9]*/stat'):
        try:
            with open(stat) as f:
                text = f.read()
        except OSError:
            continue
        if text[text.index('(') + 1:text.rindex(')')].startswith(('postgres', 'postmaster')):
            fields = text[text.rindex(')') + 2:].split()
            total += sum(int(f) for f in fields[11:15])     # with the ended backends the postmaster reaped
    return total / os.sysconf('SC_CLK_TCK')


def _floor(spec, pool, index, count, barrier, queue, decide=False):
    import psycopg  # pylint: disable=import-outside-toplevel
    conn = psycopg.connect(spec)
    base = index * count * 2
    with conn.cursor() as cur:      # the free span this process shortens, as the store's spans are kept
        cur.execute('INSERT INTO free_span (namespace, pool, first, last) VALUES (%s, %s, %s, %s)',
                    ('default', pool, '%08d' % base, '%08d' % (base + count)))
    conn.commit()
    barrier.wait()
    cpu, start = time.process_time(), time.perf_counter()
    for i in range(count):
        with conn.pipeline():
            conn.execute('BEGIN')
            if decide:      # the lock, then what a decision reads, answered before anything is written
                conn.execute(WRITES[0][0], WRITES[0][1](pool, base + i))
                first = conn.execute(READ, (pool, 'default', pool, '%08d' % base)).fetchone()[0]
                assert first == '%08d' % (base + i), first
            for sql, params in WRITES[1:] if decide else WRITES:
                conn.execute(sql, params(pool, base + i))
            conn.execute('COMMIT')
    queue.put((start, time.perf_counter(), time.process_time() - cpu))
    conn.close()


def _store(spec, pool, index, count, barrier, queue):
    store = parallel.open_store(spec, timeout=300)
    svc = parallel.Service(store)
    barrier.wait()
    cpu, start = time.process_time(), time.perf_counter()
    for i in range(count):
        svc.reserve(pool, 'p%d-%d' % (index, i))
    queue.put((start, time.perf_counter(), time.process_time() - cpu))
    store.close()


def run(target, processes, count, pools):
    spec, schema = postgresql_spec()
    try:
        store = parallel.open_store(spec)        # the store's own schema, and its pools
        svc = parallel.Service(store)
        names = ['p%d' % i for i in range(pools)]
        for i, name in enumerate(names):
            svc.pool(name, subnets=[{'cidr': '10.%d.0.0/16' % i}])
        store.close()
        ctx = multiprocessing.get_context('fork')
        barrier, queue = ctx.Barrier(processes), ctx.Queue()
        workers = [ctx.Process(target=_reporting, args=(target, spec, names[w % pools], w, count, barrier, queue))
                   for w in range(processes)]
        before = server_cpu()
        for w in workers:
            w.start()
        results = [queue.get(timeout=1800) for dummy in workers]
        for w in workers:
            w.join()
        failed = [r for r in results if isinstance(r, str)]
        if failed:
            raise SystemExit('a worker of %s failed: %s' % (target.__name__, failed[0]))
        server = server_cpu() - before
        wall = max(r[1] for r in results) - min(r[0] for r in results)
        done = processes * count
        return done / wall, 1000 * sum(r[2] for r in results) / done, 1000 * server / done
    finally:
        drop_schema(schema)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--processes', type=int, default=8)
    parser.add_argument('--count', type=int, default=500)
    parser.add_argument('--tree', help='the checkout whose store is measured (default: this one)')
    parser.add_argument('--only', choices=('store',), help='run the store alone, not the bare SQL beside it')
    args = parser.parse_args()
    print('collection: %s' % parallel.use_tree(args.tree))
    print('server %s; %d processes x %d; %d cores; load average before: %.2f'
          % (SERVER, args.processes, args.count, os.cpu_count(), os.getloadavg()[0]))
    print('| what | pools | per second | client CPU ms each | server CPU ms each |')
    print('| --- | --- | --- | --- | --- |')
    for what, target in (('writes only, one round trip', _floor),
                         ('lock and read, then the writes: two round trips', _decided),
                         ('the store (Service.reserve)', _store)):
        if args.only and target is not _store:
            continue
        for pools in (1, args.processes):
            rate, client, server = run(target, args.processes, args.count, pools)
            print('| %s | %s | %.0f | %.2f | %.2f |' % (what, 'one' if pools == 1 else pools, rate, client, server))
            sys.stdout.flush()
    print('load average after: %.2f' % os.getloadavg()[0])
    return 0


if __name__ == '__main__':
    sys.exit(main())
