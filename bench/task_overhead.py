#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What one netpool.ipam.reservation task, and the reserve role, cost next to one ansible.builtin.set_fact task (docs/design.md#scale-and-cost).

The same inventory of N hosts (200, and 1,000 with --hosts 200 1000; hosts Ansible could not connect to:
nothing connects), forks 10:
  - empty:         a play with no task (ansible-playbook's own start-up and play set-up)
  - set_fact:      one ansible.builtin.set_fact task
  - argspec:       one ansible.builtin.validate_argument_spec task: what Ansible itself runs first on every host
                   for a role with meta/argument_specs.yml (the floor of any such role)
  - role-floor:    a role whose one task is that set_fact: what any role costs beyond its tasks (Ansible's own
                   end-of-role step, meta role_complete, on every host); the floor of a role with one task per host
  - spec-floor:    the same role with the reserve role's meta/argument_specs.yml (spec on main): Ansible's check
                   of the variables on every host, then the set_fact; the floor of a role with a spec and one task
                   per host, as roles/reserve is
  - reserve:       one netpool.ipam.reservation task per host on a fresh store (N allocations, N commits)
  - reserve-rerun: the same task again (N idempotent no-ops, the usual run)
  - role:          roles/reserve on a fresh store (one transaction for the play, in inventory order)
  - role-rerun:    the role again
  - role-unchecked, role-unchecked-rerun: the role by import_role with rolespec_validate: false (the role's own
                   request checks the variables; no Ansible check on every host)
  - role-read:     the role again, then one task run once that reads ipam_address of every host (hostvars)
  - role-free, role-free-rerun: the role in a play with strategy: free (each host reserves alone, in its own
                   transaction: no task runs once)
  - role-before, role-before-rerun (and role-free-before, role-free-before-rerun): the same plays with the
                   collection of another checkout (--before, e.g. main), in the same rounds, for a before-figure
                   measured in the same run
Each round runs each playbook once; the median over the rounds is reported (wall seconds, and CPU seconds: user +
sys of ansible-playbook and its workers, which the load of a shared machine hardly moves), with two ratios:
  whole run  = X / set_fact (each run's wall clock)
  task only  = (X - empty) / (set_fact - empty)
Targets: reserve's whole-run ratio <= 1.5; the role's <= 1.5. The role's addresses are checked
to follow the inventory order, from what the store holds after each first run (an untimed play).

    .venv/bin/python bench/task_overhead.py [--hosts 200 [1000]] [--forks 10] [--rounds 3] [--store sqlite|postgresql]
    .venv/bin/python bench/task_overhead.py --tree /tmp/netpool-main ...    # the same plays on another checkout
    .venv/bin/python bench/task_overhead.py --hosts 200 1000 --rounds 1 --before /tmp/netpool-main --skip reserve
    .venv/bin/python bench/task_overhead.py --hosts 200 1000 --rounds 1 --skip reserve role-unchecked floors read --free
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402  pylint: disable=wrong-import-position
from _common import environment, machine, tool, unreachable_hosts  # noqa: E402  pylint: disable=wrong-import-position

CPU = {}  # play name -> CPU seconds (user + sys of the ansible-playbook process tree) of each run


def timed(cmd, cwd, env, name=None):
    """Wall seconds the command took; its CPU seconds (user + sys of the process and every child it waited
    for: the forked workers) are kept in ``CPU[name]``. The CPU figure hardly moves with the machine's load."""
    import subprocess
    import time
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.stderr.write(output.decode(errors='replace')[-4000:])
        raise SystemExit('%s failed (rc %d)' % (' '.join(cmd), proc.returncode))
    if name:
        CPU.setdefault(name, []).append(usage.ru_utime + usage.ru_stime)
    return elapsed


PLAYS = {
    'empty': '',
    'set_fact': """
    - name: One set_fact
      ansible.builtin.set_fact:
        address: 10.0.0.1
""",
    'argspec': """
    - name: What Ansible runs first on every host for a role with meta/argument_specs.yml, alone
      ansible.builtin.validate_argument_spec:
        argument_spec:
          ipam_pool: {type: str}
          ipam_key: {type: str}
          ipam_state: {type: str, choices: [present, absent], default: present}
        provided_arguments:
          ipam_pool: bench
""",
    'role-floor': 'ROLE-FLOOR',
    'spec-floor': 'SPEC-FLOOR',
    'reserve': """
    - name: One reservation
      netpool.ipam.reservation:
        pool: bench
        owner: "{{ inventory_hostname }}"
""",
    'role': None,
}

ROLE = """- name: Bench
  hosts: all
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: bench
"""

UNCHECKED = """- name: Bench
  hosts: all
  gather_facts: false
  tasks:
    - name: The role, without Ansible's check of its variables on every host
      ansible.builtin.import_role:
        name: netpool.ipam.reserve
        rolespec_validate: false
      vars:
        ipam_pool: bench
"""

FREE = ROLE.replace('  gather_facts: false\n', '  gather_facts: false\n  strategy: free\n')

# the role, then a task that reads the address fact of every host (hostvars), as a template writing a file of
# every host's address would
READ = ROLE + """  post_tasks:
    - name: Read the address of every host
      ansible.builtin.copy:
        content: "{{ ansible_play_hosts_all | map('extract', hostvars, 'ipam_address') | to_json }}"
        dest: role-read.json
        mode: '0600'
      delegate_to: localhost
      run_once: true
"""

# not timed: what the store holds after a run of the role, owner -> address
ORDER = """- name: Order
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Read the pool
      netpool.ipam.info:
        pool: bench
      register: order_info
    - name: Write down who holds what
      ansible.builtin.copy:
        content: "{{ order_info.reservations | items2dict(key_name='owner', value_name='address') | to_json }}"
        dest: role-addresses.json
        mode: '0600'
"""


FLOOR_ROLE = """- name: One set_fact
  ansible.builtin.set_fact:
    address: 10.0.0.1
"""


def playbook(tasks):
    if tasks is None:
        return ROLE
    if tasks in ('ROLE-FLOOR', 'SPEC-FLOOR'):
        return '- name: Bench\n  hosts: all\n  gather_facts: false\n  roles:\n    - role: %s\n' % (
            'floor' if tasks == 'ROLE-FLOOR' else 'specfloor\n      vars:\n        ipam_pool: bench')
    if not tasks:
        return '- name: Bench\n  hosts: all\n  gather_facts: false\n  tasks: []\n'
    return '- name: Bench\n  hosts: all\n  gather_facts: false\n  tasks:\n' + tasks


def in_order(path):
    """True if the addresses the store holds rise with the inventory order (host0000, host0001...)."""
    import json
    with open(path) as f:
        held = json.load(f)
    addresses = [held[host] for host in sorted(held)]
    numbers = [tuple(int(part) for part in a.split('.')) for a in addresses]
    return len(set(numbers)) == len(numbers) and numbers == sorted(numbers)


def fresh_store(kind, work):
    """A new empty store: a SQLite file in ``work``, or a PostgreSQL schema of its own (and how to drop it)."""
    for path in os.listdir(work):
        if path.startswith('bench.sqlite'):
            os.remove(os.path.join(work, path))
    if kind == 'sqlite':
        return 'bench.sqlite', lambda: None
    from parallel import drop_schema, postgresql_spec
    spec, schema = postgresql_spec()
    return spec, lambda: drop_schema(schema)


def before_environment(tree, **extra):
    """The environment of a play run with the collection of checkout ``tree``."""
    env = environment(**extra)
    env.update(ANSIBLE_CONFIG=os.path.join(tree, 'ansible.cfg'),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(tree, 'collections'))
    return env


def bench(hosts, forks, rounds, kind, before=None, skip=(), free=False):
    work = tempfile.mkdtemp(prefix='netpool-bench-')
    try:
        with open(os.path.join(work, 'inventory.yml'), 'w') as f:
            f.write(unreachable_hosts(hosts))
        for role in ('floor', 'specfloor'):
            os.makedirs(os.path.join(work, 'roles', role, 'tasks'))
            with open(os.path.join(work, 'roles', role, 'tasks', 'main.yml'), 'w') as f:
                f.write(FLOOR_ROLE)
        os.makedirs(os.path.join(work, 'roles', 'specfloor', 'meta'))
        shutil.copy(os.path.join(_common.ROOT, 'roles', 'reserve', 'meta', 'argument_specs.yml'),
                    os.path.join(work, 'roles', 'specfloor', 'meta', 'argument_specs.yml'))
        for name, text in (('role-read', READ), ('order', ORDER), ('role-unchecked', UNCHECKED), ('role-free', FREE)):
            with open(os.path.join(work, name + '.yml'), 'w') as f:
                f.write(text)
        for name, tasks in PLAYS.items():
            with open(os.path.join(work, name + '.yml'), 'w') as f:
                f.write(playbook(tasks))
        with open(os.path.join(work, 'pool.yml'), 'w') as f:
            f.write('- name: Pool\n  hosts: all\n  gather_facts: false\n  tasks:\n'
                    '    - netpool.ipam.pool: {name: bench, cidr: 10.0.0.0/16}\n'
                    '      run_once: true\n')
        playbook_cmd = [tool('ansible-playbook'), '-i', 'inventory.yml']
        pairs = [('reserve', 'reserve-rerun'), ('role', 'role-rerun'), ('role-unchecked', 'role-unchecked-rerun')]
        if free:
            pairs.append(('role-free', 'role-free-rerun'))
        if before:
            pairs.append(('role-before', 'role-before-rerun'))
            if free:
                pairs.append(('role-free-before', 'role-free-before-rerun'))
        pairs = [pair for pair in pairs if pair[0] not in skip]
        floors = () if 'floors' in skip else ('argspec', 'role-floor', 'spec-floor')
        reads = () if 'read' in skip else ('role', 'role-before')
        names = ('empty', 'set_fact') + floors + sum(pairs, ()) + tuple(
            first + '-read' for first, _again in pairs if first in reads)
        times = dict((k, []) for k in names)
        ordered = True
        for _round in range(rounds):
            for number, (first, again) in enumerate(pairs):
                spec, drop = fresh_store(kind, work)
                try:
                    env = environment(ANSIBLE_FORKS=str(forks), NETPOOL_IPAM_STORE=spec)
                    # the pair's plays run with its collection, and so does the declaration of its pool (a
                    # before-checkout of an older schema refuses a store that a newer one created)
                    own = before_environment(before, ANSIBLE_FORKS=str(forks), NETPOOL_IPAM_STORE=spec) \
                        if first.endswith('-before') else env
                    timed(playbook_cmd + ['pool.yml'], work, own)
                    if number == 0:
                        times['empty'].append(timed(playbook_cmd + ['empty.yml'], work, env, 'empty'))
                        times['set_fact'].append(timed(playbook_cmd + ['set_fact.yml'], work, env, 'set_fact'))
                        for floor in floors:
                            times[floor].append(timed(playbook_cmd + [floor + '.yml'], work, env, floor))
                    play = {'role-before': 'role.yml', 'role-free-before': 'role-free.yml'}.get(first, first + '.yml')
                    times[first].append(timed(playbook_cmd + [play], work, own, first))
                    times[again].append(timed(playbook_cmd + [play], work, own, again))
                    if first in reads:
                        times[first + '-read'].append(timed(playbook_cmd + ['role-read.yml'], work, own,
                                                            first + '-read'))
                    if first in ('role', 'role-before'):
                        timed(playbook_cmd + ['order.yml'], work, own)
                        ordered = ordered and in_order(os.path.join(work, 'role-addresses.json'))
                finally:
                    drop()
        median = dict((k, statistics.median(v)) for k, v in times.items())
        cpu = dict((k, statistics.median(CPU.pop(k))) for k in names)
        print('hosts %d, forks %d, rounds %d, store %s' % (hosts, forks, rounds, kind))
        for name in names:
            print('%-17s median %.2f s   (%s)   CPU %.2f s (x set_fact %.2f)' % (
                name, median[name], ', '.join('%.2f' % v for v in times[name]), cpu[name], cpu[name] / cpu['set_fact']))
        ratios = {}
        for name in names[2:]:
            ratios[name] = median[name] / median['set_fact']
            task = (median[name] - median['empty']) / (median['set_fact'] - median['empty'])
            print('%-14s ratio to set_fact: whole run %.2f, task only %.2f' % (name, ratios[name], task))
        print('role addresses in inventory order: %s' % ('yes' if ordered else 'NO'))
        print('CPU RESULT %d hosts: %s (CPU ratio to set_fact)' % (hosts, ', '.join(
            '%s %.2f' % (name, cpu[name] / cpu['set_fact']) for name in names[2:])))
        print('RESULT %d hosts: %s' % (hosts, ', '.join(
            '%s %.2f' % (name, ratios[name]) for name in names[2 + len(floors):] if not name.endswith('rerun'))
            + ' (whole-run ratio to set_fact; targets: reserve <= 1.5, role <= 1.5)'))
        sys.stdout.flush()
        return ordered
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, nargs='+', default=[200])
    parser.add_argument('--forks', type=int, default=10)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--store', choices=('sqlite', 'postgresql'), default='sqlite')
    parser.add_argument('--before', help='also run the role with the collection of this checkout (e.g. main, '
                        'with its collections/ansible_collections/netpool/ipam link) in the same rounds')
    parser.add_argument('--free', action='store_true', help='also run the role in a play with strategy: free')
    parser.add_argument('--skip', nargs='*', default=[], choices=('reserve', 'role', 'role-unchecked', 'floors', 'read'),
                        help='leave out these plays (and their reruns)')
    parser.add_argument('--tree', help='run the plays against the collection of this checkout (with its '
                        'collections/ansible_collections/netpool/ipam link), e.g. main in a temporary directory, '
                        'for a before-figure in the same run')
    args = parser.parse_args()
    if args.tree:
        _common.ROOT = os.path.abspath(args.tree)
        print('collection: %s' % _common.ROOT)
    print('machine: %s; load average before: %.2f' % (machine(), os.getloadavg()[0]))
    before = os.path.abspath(args.before) if args.before else None
    ordered = [bench(hosts, args.forks, args.rounds, args.store, before, args.skip, args.free) for hosts in args.hosts]    # every size runs
    print('load average after: %.2f' % os.getloadavg()[0])
    return 0 if all(ordered) else 1


if __name__ == '__main__':
    sys.exit(main())
