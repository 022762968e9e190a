#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What does the returning owner cost? (docs/design.md#release)

Through the service, on each store, in a pool with a reuse delay: time N new owners (one task each) in an empty
pool; then, in a pool where HELD addresses are held and RESTING released ones rest (their owners may come back),
time N new owners again and N returning owners (each gets back the address it released). A new owner asks the
store whether it left an address resting (its own history in the pool: one indexed question); a returning owner
asks that, whether its address still rests and what the address's history says. Neither should cost more with
more held or resting addresses.

    .venv/bin/python bench/returning_owner.py --store sqlite        # 10,000 held, 10,000 resting, N=300
    .venv/bin/python bench/returning_owner.py --store json --held 1500 --resting 1500 --n 100
    .venv/bin/python bench/returning_owner.py --store postgresql://postgres@127.0.0.1/bench
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

CIDR = '10.0.0.0/16'
#: owners per batch task while filling the pool (the fill is not timed)
BATCH = 500


def timed(svc, owners):
    """(wall, CPU) seconds per reservation of ``owners``, one task each, and the addresses they got. The CPU time
    (of this process) is steadier than the wall clock on a loaded machine; the wall clock counts the commits'
    fsync."""
    got = []
    start, cpu = time.perf_counter(), time.process_time()
    for owner in owners:
        got.append(svc.reserve('bench', owner)['reservation']['address'])
    return ((time.perf_counter() - start) / len(owners), (time.process_time() - cpu) / len(owners)), got


def fill(svc, prefix, count):
    """``count`` owners named ``prefix-i`` reserved, in batches: their addresses by owner."""
    addresses = {}
    for start in range(0, count, BATCH):
        owners = ['%s-%d' % (prefix, i) for i in range(start, min(count, start + BATCH))]
        for r in svc.reserve_owners('bench', owners)['reservations']:
            addresses[r['owner']] = r['address']
    return addresses


def run(spec, held, resting, n):
    svc = Service(open_store(spec))
    svc.pool('bench', reuse_delay='1d', subnets=[{'cidr': CIDR}])
    svc.pool('warm', subnets=[{'cidr': '10.1.0.0/24'}])
    for i in range(20):     # the first tasks of a process pay for its start: not the figure asked for
        svc.reserve('warm', 'warm-%d' % i)
    empty, _got = timed(svc, ['new-empty-%d' % i for i in range(n)])
    svc.release(pool='bench', owners=['new-empty-%d' % i for i in range(n)])
    fill(svc, 'held', held)
    left = fill(svc, 'rest', resting)
    owners = sorted(left)
    for start in range(0, len(owners), BATCH):
        svc.release(pool='bench', owners=owners[start:start + BATCH])
    new, _got = timed(svc, ['new-busy-%d' % i for i in range(n)])
    back = ['rest-%d' % i for i in range(n)]
    returning, got = timed(svc, back)
    assert got == [left[o] for o in back], 'a returning owner did not get its address back'
    history = svc.info(owner='rest-0', history=True)['history']
    assert history[-1]['action'] == 'return', history[-1]
    pool = svc.info(pool='bench')['pools'][0]
    svc.store.close()
    return {'empty': empty, 'new': new, 'returning': returning, 'used': pool['used']}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--store', action='append', help="'sqlite', 'json' or a store URL (PostgreSQL)")
    parser.add_argument('--held', type=int, default=10000)
    parser.add_argument('--resting', type=int, default=10000)
    parser.add_argument('--n', type=int, default=300)
    args = parser.parse_args()
    if args.n > args.resting:
        parser.error('--n must not exceed --resting: the returning owners are among the resting ones')
    print('# %s, %d cores, Python %s' % (platform.platform(), os.cpu_count(), platform.python_version()))
    print('| store | held | resting | N | new owner, empty pool (ms/op) | new owner, busy pool (ms/op) | busy ÷ empty '
          '| returning owner, busy pool (ms/op) |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- |')
    print('| | | | | wall / CPU | wall / CPU | wall / CPU | wall / CPU |')
    for kind in args.store or ['sqlite', 'json']:
        with tempfile.TemporaryDirectory() as tmp:
            spec = os.path.join(tmp, 'bench.' + kind) if kind in ('sqlite', 'json') else kind
            r = run(spec, args.held, args.resting, args.n)
        print('| %s | %d | %d | %d | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f |' % (
            kind if '://' not in kind else kind.split('://')[0], args.held, args.resting, args.n,
            1000 * r['empty'][0], 1000 * r['empty'][1], 1000 * r['new'][0], 1000 * r['new'][1],
            r['new'][0] / r['empty'][0], r['new'][1] / r['empty'][1],
            1000 * r['returning'][0], 1000 * r['returning'][1]))
        sys.stdout.flush()


if __name__ == '__main__':
    main()
