#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parallel reservations: throughput and duplicates (docs/design.md#scale-and-cost).

P processes (default 8) each make N dynamic reservations (default 500)
through the service, all at once (a barrier starts them together), on one
pool and then on P different pools (one per process), for each store.
Reports reservations per second (all processes together, wall clock) and
the duplicate count: addresses handed to two owners, checked both in what
the processes were given and in what the store holds afterwards (must be 0),
and the CPU each reservation cost: the client processes', and (PostgreSQL
on this machine) the server's, read from /proc for each process's own
server backend, so that other work on the machine is not counted. Each
process makes one reservation first, not timed (its connection).

``--via lookup`` makes each reservation through the lookup plugin instead
(``lookup('netpool.ipam.address', pool, owner=..., allocate=true)``, called
in-process as a constructed inventory or a worker templating it does: the
plugin's option handling, the runner's retries within the task's timeout,
then the service). ``--tree`` measures another checkout's collection (a
"before" beside this one, in the same run).

    .venv/bin/python bench/parallel.py                          # SQLite and PostgreSQL
    .venv/bin/python bench/parallel.py --store postgresql --processes 8 --count 500
    .venv/bin/python bench/parallel.py --store postgresql --via lookup --tree /tmp/before
    NETPOOL_IPAM_BENCH_POSTGRESQL=postgresql://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/parallel.py

PostgreSQL runs in a schema of its own (created and dropped) in the database
of NETPOOL_IPAM_BENCH_POSTGRESQL; SQLite in a temporary directory.
"""

import argparse
import multiprocessing
import os
import platform
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.environ.get('NETPOOL_IPAM_BENCH_POSTGRESQL', 'postgresql://postgres@127.0.0.1:5432/postgres')

Service = open_store = None     # pylint: disable=invalid-name


def use_tree(tree=None, lookup=False):
    """Import the collection of checkout ``tree`` (default: this one); with ``lookup``, through Ansible's plugin
    loader (which the lookup plugin needs)."""
    global Service, open_store  # pylint: disable=global-statement
    collections = os.path.join(os.path.abspath(tree or os.path.join(HERE, '..')), 'collections')
    sys.path.insert(0, collections)
    if lookup:
        from ansible.plugins.loader import init_plugin_loader  # pylint: disable=import-outside-toplevel
        init_plugin_loader([collections])
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _service  # noqa: E402
    from ansible_collections.netpool.ipam.plugins.module_utils._stores import _registry  # noqa: E402
    Service, open_store = _service.Service, _registry.open_store
    return os.path.dirname(os.path.dirname(os.path.dirname(_service.__file__)))


def _service_reserve(spec):
    store = open_store(spec, timeout=300)
    svc = Service(store)
    return (lambda pool, owner: svc.reserve(pool, owner)['reservation']['address']), store.close, lambda: store


def _lookup_reserve(spec):
    from ansible.parsing.dataloader import DataLoader  # pylint: disable=import-outside-toplevel
    from ansible.plugins.loader import lookup_loader  # pylint: disable=import-outside-toplevel
    lookup = lookup_loader.get('netpool.ipam.address', loader=DataLoader())
    runner = sys.modules['ansible_collections.netpool.ipam.plugins.module_utils._task._runner']
    return (lambda pool, owner: lookup.run([pool], variables={}, owner=owner, allocate=True, store=spec)[0]), \
        runner.close_all, lambda: next(iter(runner._SERVICES.values())).store  # pylint: disable=protected-access


def _backend_cpu(store):
    """CPU seconds of the server process behind ``store``'s connection (a PostgreSQL store on this machine), or 0."""
    conn = getattr(store, '_conn', None)
    if conn is None or not hasattr(conn, 'info'):
        return 0.0
    try:
        with open('/proc/%d/stat' % conn.info.backend_pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


VIA = {'service': _service_reserve, 'lookup': _lookup_reserve}


def _worker(spec, pools, index, count, barrier, queue, via='service'):
    reserve, close, store = VIA[via](spec)
    pool = pools[index % len(pools)]
    warm = reserve(pool, 'warm-%d' % index)     # the connection made, and the store's first transaction
    barrier.wait()
    server, cpu, start = _backend_cpu(store()), time.process_time(), time.perf_counter()
    got, errors = [warm], []
    for i in range(count):
        try:
            got.append(reserve(pool, 'p%d-%d' % (index, i)))
        except Exception as e:  # pylint: disable=broad-except
            errors.append('%s: %s' % (type(e).__name__, e))
    elapsed, cpu, server = time.perf_counter() - start, time.process_time() - cpu, _backend_cpu(store()) - server
    close()
    queue.put((got, errors, start, start + elapsed, cpu, server))


def run(spec, processes, count, pool_count, via='service'):
    pools = ['p%d' % i for i in range(pool_count)]
    store = open_store(spec)
    svc = Service(store)
    for i, name in enumerate(pools):
        svc.pool(name, subnets=[{'cidr': '10.%d.0.0/16' % i}])
    ctx = multiprocessing.get_context('fork')
    barrier = ctx.Barrier(processes)
    queue = ctx.Queue()
    workers = [ctx.Process(target=_worker, args=(spec, pools, w, count, barrier, queue, via))
               for w in range(processes)]
    for w in workers:
        w.start()
    results = [queue.get(timeout=1800) for dummy in workers]
    for w in workers:
        w.join()
    given = [a for r in results for a in r[0]]
    errors = [e for r in results for e in r[1]]
    wall = max(r[3] for r in results) - min(r[2] for r in results)
    timed = len(given) - len(results)   # each process's first reservation (its warm-up) is not timed
    held = svc.info()['reservations']
    store.close()
    held_keys = [(r['namespace'], r['address']) for r in held]
    # the pools of this bench do not overlap: an address given twice is a duplicate, whatever the pool
    duplicates = len(given) - len(set(given))
    duplicates += len(held_keys) - len(set(held_keys))
    return {'reservations': timed, 'held': len(held), 'errors': errors, 'seconds': wall,
            'per_second': timed / wall if wall else 0.0, 'duplicates': duplicates,
            'client_ms': 1000 * sum(r[4] for r in results) / max(1, timed),
            'server_ms': 1000 * sum(r[5] for r in results) / max(1, timed)}


def postgresql_spec():
    import psycopg
    schema = 'netpool_bench_%s' % uuid.uuid4().hex[:8]
    with psycopg.connect(SERVER, autocommit=True) as conn:
        conn.execute('CREATE SCHEMA %s' % schema)
    sep = '&' if '?' in SERVER else '?'
    return SERVER + sep + 'options=-csearch_path%3D' + schema, schema


def drop_schema(schema):
    import psycopg
    with psycopg.connect(SERVER, autocommit=True) as conn:
        conn.execute('DROP SCHEMA %s CASCADE' % schema)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--store', choices=('sqlite', 'postgresql', 'json'), action='append',
                        help='store(s) to run (default sqlite and postgresql)')
    parser.add_argument('--processes', type=int, default=8)
    parser.add_argument('--count', type=int, default=500, help='reservations per process')
    parser.add_argument('--via', choices=sorted(VIA), default='service',
                        help='reserve through the service (default) or the lookup plugin')
    parser.add_argument('--tree', help='the checkout whose collection is measured (default: this one)')
    args = parser.parse_args()
    kinds = args.store or ['sqlite', 'postgresql']
    print('collection: %s, through the %s' % (use_tree(args.tree, args.via == 'lookup'), args.via))
    print('machine: %s, %d cores, Python %s, %s'
          % (platform.platform(), os.cpu_count(), platform.python_version(), platform.processor() or platform.machine()))
    print('%d processes x %d reservations; load average before: %.2f'
          % (args.processes, args.count, os.getloadavg()[0]))
    print('| store | pools | reservations | seconds | reservations/s | client CPU ms each | server CPU ms each '
          '| duplicates | errors |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    failed = False
    for kind in kinds:
        for pool_count in (1, args.processes):
            schema = None
            tmp = tempfile.mkdtemp(prefix='netpool-bench-')
            if kind == 'postgresql':
                spec, schema = postgresql_spec()
            else:
                spec = os.path.join(tmp, 'ipam.' + kind)
            try:
                r = run(spec, args.processes, args.count, pool_count, args.via)
            finally:
                if schema:
                    drop_schema(schema)
            print('| %s | %s | %d | %.2f | %.0f | %.2f | %s | %d | %d |' % (
                kind, 'one' if pool_count == 1 else '%d different' % pool_count, r['reservations'], r['seconds'],
                r['per_second'], r['client_ms'], '%.2f' % r['server_ms'] if kind == 'postgresql' else '-',
                r['duplicates'], len(r['errors'])))
            for e in sorted(set(r['errors']))[:5]:
                print('    error: %s' % e)
            failed = failed or r['duplicates'] or r['errors'] or r['held'] != args.processes * (args.count + 1)
            sys.stdout.flush()
    print('load average after: %.2f' % os.getloadavg()[0])
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
