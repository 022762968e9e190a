#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Does allocation cost grow with occupancy? (docs/design.md#scale-and-cost)

Through the service, on each store: time the first N dynamic reservations of
an empty pool, fill it until only N are left, time those last N, and report
the ratio last/first; time an unchanged pool task on the empty and on the full
pool (its figures are counted by the store). Also N random reservations in an
IPv6 /64.

    .venv/bin/python bench/alloc_scaling.py                # SQLite /16 and JSON /20, N=2000/500
    .venv/bin/python bench/alloc_scaling.py --store sqlite --cidr 10.0.0.0/16 --n 2000
"""

import argparse
import os
import platform
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'collections'))

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E402


def timed(svc, pool, owners):
    start = time.perf_counter()
    for owner in owners:
        svc.reserve(pool, owner)
    return time.perf_counter() - start


def rerun(svc, cidr):
    """Median seconds of an unchanged pool task (one read, then the pool's figures: size, used, free)."""
    times = []
    for _i in range(5):
        start = time.perf_counter()
        assert svc.pool('bench', subnets=[{'cidr': cidr}])['changed'] is False
        times.append(time.perf_counter() - start)
    return sorted(times)[2]


def scaling(store_file, cidr, n):
    svc = Service(open_store(store_file))
    svc.pool('bench', subnets=[{'cidr': cidr}])
    size = svc.info(pool='bench')['pools'][0]['size']
    rerun_empty = rerun(svc, cidr)
    first = timed(svc, 'bench', ['first-%d' % i for i in range(n)])
    fill_start = time.perf_counter()
    timed(svc, 'bench', ['fill-%d' % i for i in range(size - 2 * n)])
    fill = time.perf_counter() - fill_start
    last = timed(svc, 'bench', ['last-%d' % i for i in range(n)])
    pool = svc.info(pool='bench')['pools'][0]
    assert pool['free'] == 0 and pool['used'] == size, pool
    rerun_full = rerun(svc, cidr)
    svc.store.close()
    return {'size': size, 'first': first, 'last': last, 'fill': fill, 'held_before_last': size - n,
            'rerun_empty': rerun_empty, 'rerun_full': rerun_full}


def ipv6(store_file, n):
    svc = Service(open_store(store_file))
    svc.pool('v6', strategy='random', subnets=[{'cidr': '2001:db8:64::/64'}])
    elapsed = timed(svc, 'v6', ['v6-%d' % i for i in range(n)])
    held = svc.info(pool='v6')['reservations']
    assert len(set(r['address'] for r in held)) == n
    svc.store.close()
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--store', choices=['sqlite', 'json'], action='append')
    parser.add_argument('--cidr')
    parser.add_argument('--n', type=int)
    parser.add_argument('--v6', type=int, default=10000, help='random reservations in an IPv6 /64 (SQLite)')
    args = parser.parse_args()
    plans = {'sqlite': ('10.0.0.0/16', 2000), 'json': ('10.0.0.0/20', 500)}
    print('# %s, %d cores, Python %s' % (platform.platform(), os.cpu_count(), platform.python_version()))
    print('| store | pool | held before the last N | N | first N (ms/op) | last N (ms/op) | last/first | fill '
          '| pool rerun, empty / full (ms) |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for kind in args.store or ['sqlite', 'json']:
        cidr, n = plans[kind]
        cidr, n = args.cidr or cidr, args.n or n
        with tempfile.TemporaryDirectory() as tmp:
            r = scaling(os.path.join(tmp, 'bench.' + kind), cidr, n)
        print('| %s | %s (%d addresses) | %d | %d | %.2f | %.2f | %.2f | %.0f s | %.1f / %.1f |' % (
            kind, cidr, r['size'], r['held_before_last'], n, 1000 * r['first'] / n, 1000 * r['last'] / n,
            r['last'] / r['first'], r['fill'], 1000 * r['rerun_empty'], 1000 * r['rerun_full']))
        sys.stdout.flush()
    if args.v6:
        with tempfile.TemporaryDirectory() as tmp:
            elapsed = ipv6(os.path.join(tmp, 'bench.sqlite'), args.v6)
        print('\nIPv6 /64, strategy random, SQLite: %d reservations in %.1f s (%.2f ms/op), all distinct.'
              % (args.v6, elapsed, 1000 * elapsed / args.v6))


if __name__ == '__main__':
    main()
