#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the netpool.ipam.address lookup costs in an inventory (docs/design.md#the-lookup, #scale-and-cost).

`ansible-inventory --list` of 1,000 hosts whose ansible_host is composed by the
ansible.builtin.constructed inventory plugin:
  - plain:   the hosts file alone (ansible_host not set)
  - static:  constructed, ansible_host composed from a constant (the same inventory without the lookup)
  - builtin: constructed, ansible_host = lookup('ansible.builtin.env', 'NETPOOL_BENCH_UNSET',
             default=inventory_hostname): what Ansible itself spends on any lookup in a compose expression
  - lookup:  constructed, ansible_host = lookup('netpool.ipam.address', 'bench', owner=inventory_hostname,
             allocate=true): every host templates the lookup once
The first lookup run allocates 1,000 addresses (one commit each) and is reported apart; the timed lookup
runs find the reservations made. Target: median lookup / static <= 2.

    .venv/bin/python bench/inventory_lookup.py [--hosts 1000] [--rounds 5]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import environment, machine, timed, tool  # noqa: E402  pylint: disable=wrong-import-position

CONSTRUCTED = """plugin: ansible.builtin.constructed
strict: true
compose:
  ansible_host: %s
"""
LOOKUP = "lookup('netpool.ipam.address', 'bench', owner=inventory_hostname, allocate=true)"
BUILTIN = "lookup('ansible.builtin.env', 'NETPOOL_BENCH_UNSET', default=inventory_hostname)"
STATIC = "'192.0.2.1'"


def _value(value):
    """ansible-inventory may print a variable with its origin: {'__ansible_unsafe': ...} or similar."""
    while isinstance(value, dict) and len(value) == 1:
        value = next(iter(value.values()))
    return value


IN_PROCESS = """
import time
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import init_plugin_loader, lookup_loader
from ansible.template import Templar, trust_as_template
init_plugin_loader()
hosts = ['host%%04d' %% i for i in range(%(hosts)d)]
def per_host(call):
    call(hosts[0])
    start = time.perf_counter()
    for host in hosts:
        call(host)
    return (time.perf_counter() - start) * 1000 / len(hosts)
for name, expression in %(expressions)r:
    templar = Templar(loader=DataLoader())
    def evaluate(host):
        templar.available_variables = {'inventory_hostname': host}
        return templar.evaluate_expression(trust_as_template(expression))
    print('in-process, ms a host: %%-8s compile + evaluate the expression %%.3f' %% (name, per_host(evaluate)))
lookup = lookup_loader.get('netpool.ipam.address', loader=DataLoader())
print('in-process, ms a host: netpool.ipam.address run() alone %%.3f' %% per_host(
    lambda host: lookup.run(['bench'], variables={}, owner=host, allocate=True)))
"""


def in_process(work, env, hosts):
    """Per-host costs measured inside one Python process: no start-up, no inventory parsing."""
    code = IN_PROCESS % {'hosts': hosts, 'expressions': [('static', STATIC), ('builtin', BUILTIN), ('lookup', LOOKUP)]}
    proc = subprocess.run([sys.executable, '-c', code], cwd=work, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False)
    return proc.stdout.decode(errors='replace')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix='netpool-bench-')
    try:
        for name in ('plain', 'static', 'builtin', 'lookup'):
            os.makedirs(os.path.join(work, name))
            with open(os.path.join(work, name, '00-hosts.yml'), 'w') as f:
                f.write('all:\n  hosts:\n' + ''.join('    host%04d:\n' % i for i in range(args.hosts)))
        with open(os.path.join(work, 'static', '10-constructed.yml'), 'w') as f:
            f.write(CONSTRUCTED % ('"%s"' % STATIC))
        with open(os.path.join(work, 'builtin', '10-constructed.yml'), 'w') as f:
            f.write(CONSTRUCTED % ('"%s"' % BUILTIN))
        with open(os.path.join(work, 'lookup', '10-constructed.yml'), 'w') as f:
            f.write(CONSTRUCTED % ('"%s"' % LOOKUP))
        with open(os.path.join(work, 'pool.yml'), 'w') as f:
            f.write('- name: Pool\n  hosts: localhost\n  gather_facts: false\n  tasks:\n'
                    '    - netpool.ipam.pool: {name: bench, cidr: 10.0.0.0/16}\n')
        env = environment(NETPOOL_IPAM_STORE='bench.sqlite', ANSIBLE_INVENTORY_ENABLED='ansible.builtin.yaml,ansible.builtin.constructed')
        timed([tool('ansible-playbook'), '-i', 'localhost,', '-c', 'local', 'pool.yml'], work, env)

        def inventory(name):
            return [tool('ansible-inventory'), '-i', name, '--list', '--output', name + '.json']

        def check(name):
            """Each inventory gave what it says, on every host: a broken compose expression is silently skipped."""
            with open(os.path.join(work, name + '.json')) as f:
                hostvars = json.load(f).get('_meta', {}).get('hostvars', {})
            hosts = ['host%04d' % i for i in range(args.hosts)]
            given = [_value(hostvars.get(host, {}).get('ansible_host')) for host in hosts]
            expected = {'plain': [None] * args.hosts, 'static': [STATIC.strip("'")] * args.hosts, 'builtin': hosts}
            if name == 'lookup':
                if len(set(given)) != args.hosts or not all(str(a).startswith('10.0.') for a in given):
                    raise SystemExit('the lookup did not give %d distinct addresses' % args.hosts)
            elif given != expected[name]:
                raise SystemExit('inventory %s did not compose ansible_host as expected: %s...' % (name, given[:3]))

        first = timed(inventory('lookup'), work, env)
        check('lookup')

        times = dict((k, []) for k in ('plain', 'static', 'builtin', 'lookup'))
        for _round in range(args.rounds):
            for name in times:
                times[name].append(timed(inventory(name), work, env))
                check(name)
        median = dict((k, statistics.median(v)) for k, v in times.items())
        print('machine: %s' % machine())
        print('hosts %d, rounds %d' % (args.hosts, args.rounds))
        print('%-8s %.2f s (first run: allocates every address)' % ('lookup', first))
        for name, values in times.items():
            print('%-8s median %.2f s   (%s)' % (name, median[name], ', '.join('%.2f' % v for v in values)))
        ratio = median['lookup'] / median['static']
        print('lookup / plain %.2f; lookup / builtin lookup %.2f; first run / static %.2f'
              % (median['lookup'] / median['plain'], median['lookup'] / median['builtin'], first / median['static']))
        print(in_process(work, env, args.hosts), end='')
        print('RESULT lookup / static ratio %.2f (target <= 2): %s' % (ratio, 'PASS' if ratio <= 2 else 'FAIL'))
        return 0 if ratio <= 2 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
