# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How long does playbooks/pool_map.yml take beside a large pool?

One SQLite store: pool ``small`` (10.2.0.0/24, 30 holders) beside pool ``big`` (10.1.0.0/16, N holders), then
``ansible-playbook playbooks/pool_map.yml`` drawing ``small`` alone (``-e map_pools=small``), then ``big``
alone, each timed once (the whole command: wall clock, and the CPU time of the command and its workers,
which a loaded machine does not inflate), with the page's size. ``--root`` runs another
checkout's playbook (the figures before a change).

    .venv/bin/python bench/pool_map.py                      # N = 5000
    .venv/bin/python bench/pool_map.py --n 1000 --root /work/main
"""

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'collections'))

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E402

from _common import ROOT, environment, machine, timed, tool  # noqa: E402  pylint: disable=wrong-import-position


def seed(path, n):
    svc = Service(open_store(path))
    svc.pool('big', subnets=[{'cidr': '10.1.0.0/16'}])
    svc.pool('small', subnets=[{'cidr': '10.2.0.0/24'}])
    for first in range(0, n, 500):
        svc.reserve_owners('big', ['b%05d' % i for i in range(first, min(n, first + 500))])
    svc.reserve_owners('small', ['s%02d' % i for i in range(30)])
    svc.store.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--n', type=int, default=5000)
    parser.add_argument('--root', default=ROOT, help='the checkout whose playbooks/pool_map.yml runs')
    args = parser.parse_args()
    print('%s, load %.1f' % (machine(), os.getloadavg()[0]))
    with tempfile.TemporaryDirectory() as directory:
        seed(os.path.join(directory, 'ipam.sqlite'), args.n)
        for pool in ('small', 'big'):
            dest = os.path.join(directory, '%s.html' % pool)
            cmd = [tool('ansible-playbook'), os.path.join(args.root, 'playbooks', 'pool_map.yml'),
                   '-e', 'map_pools=%s' % pool, '-e', 'map_dest=%s' % dest]
            before = os.times()
            seconds = timed(cmd, directory, environment())
            after = os.times()
            cpu = after.children_user + after.children_system - before.children_user - before.children_system
            print('map_pools=%-6s beside a /16 of %d holders: %6.1f s (CPU %.1f s), page %d kB'
                  % (pool, args.n, seconds, cpu, os.path.getsize(dest) // 1024))


if __name__ == '__main__':
    main()
