#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the inventory plugin netpool.ipam.reservations costs (docs/design.md#the-inventory-plugin).

`ansible-inventory --list` of N owners, one reservation each (metadata role), side by side in one run:
  - yaml:      the same hosts, groups and variables (ansible_host, netpool_reservations) written as a static YAML inventory (ansible.builtin.yaml)
  - yaml-min:  the same hosts in the same group with ansible_host alone (the least a static inventory holds)
  - plugin:    netpool.ipam.reservations on the store (SQLite, and the other stores asked for)
  - keyed:     the plugin with keyed_groups over the metadata (role_web, role_db)
Rounds alternate the variants. Target: median plugin / yaml <= 2.

    .venv/bin/python bench/inventory.py [--hosts 10000] [--rounds 5] [--json] [--postgresql URL]
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import ROOT, environment, machine, timed, tool  # noqa: E402  pylint: disable=wrong-import-position

sys.path.insert(0, os.path.join(ROOT, 'collections'))
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E402

BATCH = 1000


def fill(store, hosts):
    """Pool bench (10.0.0.0/16) and one reservation per owner, in batches of BATCH owners."""
    opened = open_store(store, timeout=600)
    try:
        s = Service(opened)
        s.pool('bench', subnets=[{'cidr': '10.0.0.0/16', 'gateway': '10.0.0.1'}])
        names = ['host%05d' % i for i in range(hosts)]
        for role in ('web', 'db'):
            mine = [n for i, n in enumerate(names) if (i % 2 == 0) == (role == 'web')]
            for i in range(0, len(mine), BATCH):
                s.reserve_owners('bench', mine[i:i + BATCH], metadata={'role': role})
        return s.reservations('default')
    finally:
        opened.close()


def yaml_inventory(data, minimal):
    """The plugin's hosts as a static YAML inventory (JSON is YAML: written as JSON for speed)."""
    hosts = {}
    for r in data['reservations']:
        if minimal:
            hosts[r['owner']] = {'ansible_host': r['address']}
        else:
            hosts[r['owner']] = {'ansible_host': r['address'], 'netpool_reservations': [r]}
    return json.dumps({'all': {'children': {'bench': {'hosts': hosts}}}}, sort_keys=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=10000)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--json', action='store_true', help='also time the plugin on a JSON store')
    parser.add_argument('--postgresql', metavar='URL', help='also time the plugin on this PostgreSQL store '
                        '(an empty database or schema: the pool bench is created in it)')
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix='netpool-bench-inventory-')
    try:
        stores = {'plugin': os.path.join(work, 'bench.sqlite')}
        if args.json:
            stores['plugin-json'] = os.path.join(work, 'bench.json')
        if args.postgresql:
            stores['plugin-postgresql'] = args.postgresql
        data = None
        for store in stores.values():
            data = fill(store, args.hosts)
        assert len(data['reservations']) == args.hosts
        with open(os.path.join(work, 'yaml.yml'), 'w') as f:
            f.write(yaml_inventory(data, minimal=False))
        with open(os.path.join(work, 'yaml-min.yml'), 'w') as f:
            f.write(yaml_inventory(data, minimal=True))
        sources = {'yaml': 'yaml.yml', 'yaml-min': 'yaml-min.yml'}
        for name, store in stores.items():
            with open(os.path.join(work, name + '.netpool.yml'), 'w') as f:
                f.write('plugin: netpool.ipam.reservations\nstore: %s\n' % json.dumps(store))
            sources[name] = name + '.netpool.yml'
        with open(os.path.join(work, 'keyed.netpool.yml'), 'w') as f:
            f.write('plugin: netpool.ipam.reservations\nstore: %s\nkeyed_groups:\n'
                    '  - {key: "netpool_reservations | map(attribute=\'metadata.role\')", prefix: role}\n'
                    % json.dumps(stores['plugin']))
        sources['keyed'] = 'keyed.netpool.yml'
        env = environment(ANSIBLE_INVENTORY_UNPARSED_FAILED='true')

        def inventory(name):
            return [tool('ansible-inventory'), '-i', sources[name], '--list', '--output', name + '.json']

        def check(name):
            """Every variant lists every host with its address (a failed source would be an empty inventory)."""
            with open(os.path.join(work, name + '.json')) as f:
                listed = json.load(f)
            hostvars = listed['_meta']['hostvars']
            if len(hostvars) != args.hosts:
                raise SystemExit('%s listed %d hosts, not %d' % (name, len(hostvars), args.hosts))
            if name == 'keyed' and len(listed['role_web']['hosts']) != (args.hosts + 1) // 2:
                raise SystemExit('keyed: group role_web is not the hosts of role web')

        times = dict((name, []) for name in sources)
        for _round in range(args.rounds):
            for name in times:
                times[name].append(timed(inventory(name), work, env))
                check(name)
        median = dict((k, statistics.median(v)) for k, v in times.items())
        print('machine: %s' % machine())
        print('hosts %d (one reservation each), rounds %d, ansible-inventory --list --output FILE'
              % (args.hosts, args.rounds))
        for name, values in times.items():
            print('%-18s median %6.2f s  (%s)' % (name, median[name], ', '.join('%.2f' % v for v in values)))
        for name in times:
            if name.startswith(('plugin', 'keyed')):
                print('%-18s / yaml %.2f   / yaml-min %.2f'
                      % (name, median[name] / median['yaml'], median[name] / median['yaml-min']))
        ratio = median['plugin'] / median['yaml']
        print('RESULT plugin / yaml ratio %.2f (target <= 2): %s' % (ratio, 'PASS' if ratio <= 2 else 'FAIL'))
        return 0 if ratio <= 2 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
