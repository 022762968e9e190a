#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What one netpool.ipam.reservation task costs next to one ansible.builtin.set_fact task (SPEC §6).

The same inventory of 200 hosts (which Ansible could not connect to: nothing connects), forks 10:
  - empty:        a play with no task (ansible-playbook's own start-up and play set-up)
  - set_fact:     one ansible.builtin.set_fact task
  - reserve:      one netpool.ipam.reservation task on a fresh store (200 allocations, 200 commits)
  - reserve-rerun: the same task again (200 idempotent no-ops, the usual run)
Each round runs each playbook once; the median over the rounds is reported. Two ratios:
  whole run  = reserve / set_fact (each run's wall clock)
  task only  = (reserve - empty) / (set_fact - empty)
Target: the median whole-run ratio <= 1.5.

    .venv/bin/python bench/task_overhead.py [--hosts 200] [--forks 10] [--rounds 3]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import environment, machine, timed, tool, unreachable_hosts  # noqa: E402  pylint: disable=wrong-import-position

PLAYS = {
    'empty': '',
    'set_fact': """
    - name: One set_fact
      ansible.builtin.set_fact:
        address: 10.0.0.1
""",
    'reserve': """
    - name: One reservation
      netpool.ipam.reservation:
        store: bench.sqlite
        pool: bench
        owner: "{{ inventory_hostname }}"
""",
}


def playbook(tasks):
    if not tasks:
        return '- name: Bench\n  hosts: all\n  gather_facts: false\n  tasks: []\n'
    return '- name: Bench\n  hosts: all\n  gather_facts: false\n  tasks:\n' + tasks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=200)
    parser.add_argument('--forks', type=int, default=10)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix='netpool-bench-')
    try:
        with open(os.path.join(work, 'inventory.yml'), 'w') as f:
            f.write(unreachable_hosts(args.hosts))
        for name, tasks in PLAYS.items():
            with open(os.path.join(work, name + '.yml'), 'w') as f:
                f.write(playbook(tasks))
        with open(os.path.join(work, 'pool.yml'), 'w') as f:
            f.write('- name: Pool\n  hosts: all\n  gather_facts: false\n  tasks:\n'
                    '    - netpool.ipam.pool: {store: bench.sqlite, name: bench, cidr: 10.0.0.0/16}\n'
                    '      run_once: true\n')
        env = environment(ANSIBLE_FORKS=str(args.forks))
        playbook_cmd = [tool('ansible-playbook'), '-i', 'inventory.yml']

        times = dict((k, []) for k in ('empty', 'set_fact', 'reserve', 'reserve-rerun'))
        for _round in range(args.rounds):
            for path in os.listdir(work):
                if path.startswith('bench.sqlite'):
                    os.remove(os.path.join(work, path))
            timed(playbook_cmd + ['pool.yml'], work, env)
            times['empty'].append(timed(playbook_cmd + ['empty.yml'], work, env))
            times['set_fact'].append(timed(playbook_cmd + ['set_fact.yml'], work, env))
            times['reserve'].append(timed(playbook_cmd + ['reserve.yml'], work, env))
            times['reserve-rerun'].append(timed(playbook_cmd + ['reserve.yml'], work, env))

        median = dict((k, statistics.median(v)) for k, v in times.items())
        print('machine: %s' % machine())
        print('hosts %d, forks %d, rounds %d' % (args.hosts, args.forks, args.rounds))
        for name, values in times.items():
            print('%-14s median %.2f s   (%s)' % (name, median[name], ', '.join('%.2f' % v for v in values)))
        for name in ('reserve', 'reserve-rerun'):
            whole = median[name] / median['set_fact']
            task = (median[name] - median['empty']) / (median['set_fact'] - median['empty'])
            print('%-14s ratio to set_fact: whole run %.2f, task only %.2f' % (name, whole, task))
        ratio = median['reserve'] / median['set_fact']
        print('RESULT whole-run ratio %.2f (target <= 1.5): %s' % (ratio, 'PASS' if ratio <= 1.5 else 'FAIL'))
        return 0 if ratio <= 1.5 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
