# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Where a NetBox reservation's time goes: each request as the client sees it, the client's own CPU,
and the CPU of NetBox's gunicorn processes and of the PostgreSQL backends of its database.

    .venv/bin/python bench/netbox_profile.py [--owners 50]

On a NetBox of its own (tests/utils/netbox.py, stopped at the end), in one process: N new reservations, one
task (one store) each, as N per-host tasks make them; the same N again (reruns); then N new owners in one task
(``owners``) and that task again. No Ansible here: ``bench/netbox.py`` measures the plays; this splits a
reservation's cost between the requests, NetBox and the client. Wall times move with the machine's load; the
CPU figures and the counts much less.
"""

import argparse
import collections
import importlib.util
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, cpu_spent, netbox_cpu  # noqa: E402  pylint: disable=wrong-import-position


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--owners', type=int, default=50)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(ROOT, 'collections'))
    spec = importlib.util.spec_from_file_location('netpool_netbox_harness', os.path.join(ROOT, 'tests', 'utils',
                                                                                         'netbox.py'))
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    import requests
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

    timings = collections.defaultdict(list)
    real = requests.Session.request

    def timed(self, method, url, *a, **k):
        start = time.perf_counter()
        try:
            return real(self, method, url, *a, **k)
        finally:
            path = url.split('?')[0].split('/', 3)[-1]
            timings[(method, '/' + '/'.join('N' if p.isdigit() else p for p in path.split('/')))].append(
                time.perf_counter() - start)
    requests.Session.request = timed

    owners = ['h%03d' % i for i in range(args.owners)]
    with harness.serve() as server:
        url, token = 'netbox+' + server['url'], server['tokens']['write']

        def task(work):
            store = open_store(url, token=token)
            try:
                return work(Service(store))
            finally:
                store.close()
        task(lambda s: s.pool('one', subnets=[{'cidr': '10.90.0.0/24'}]))
        task(lambda s: s.pool('many', subnets=[{'cidr': '10.91.0.0/24'}]))
        task(lambda s: s.reserve('one', 'warm'))
        steps = (('a task per owner, new', lambda: [task(lambda s, o=o: s.reserve('one', o)) for o in owners]),
                 ('a task per owner, rerun', lambda: [task(lambda s, o=o: s.reserve('one', o)) for o in owners]),
                 ('owners in one task, new', lambda: task(lambda s: s.reserve_owners('many', owners))),
                 ('owners in one task, rerun', lambda: task(lambda s: s.reserve_owners('many', owners))))
        print('| %d owners | wall (s) | client CPU (s) | NetBox CPU (s) | PostgreSQL CPU (s) | requests: count, '
              'mean wall (ms) |' % args.owners)
        print('| --- | --- | --- | --- | --- | --- |')
        for label, work in steps:
            timings.clear()
            cpu, served, wall = time.process_time(), netbox_cpu(server), time.perf_counter()
            work()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            after = netbox_cpu(server)
            print('| %s | %.2f | %.2f | %.2f | %.2f | %s |' % (
                label, wall, cpu, cpu_spent(served, after, 'netbox'), cpu_spent(served, after, 'postgresql'), '; '.join(
                    '%s %s: %d, %.0f' % (method, path, len(ts), 1000 * statistics.mean(ts))
                    for (method, path), ts in sorted(timings.items()))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
