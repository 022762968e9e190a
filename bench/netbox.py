# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""An address for each of 50 hosts in a real NetBox: this collection next to netbox.netbox (issue 13).

On one NetBox (tests/utils/netbox.py: a fresh copy of the template database, served on 127.0.0.1, stopped
at the end), the same inventory of 50 hosts (ansible_connection: local), forks 10:

  - set_fact:  one ansible.builtin.set_fact task, the baseline;
  - netpool:   one netpool.ipam.reservation task (owner: the host) with the NetBox store, on a pool
               10.80.R.0/24 declared first with netpool.ipam.pool (not timed);
  - netbox:    one netbox.netbox.netbox_ip_address task with ``state: new`` and ``data.prefix``, the way its
               documentation gets the next free address of a prefix (description: the host), on a prefix
               10.81.R.0/24 created first with netbox.netbox.netbox_prefix (not timed).

Each of netpool and netbox runs twice, first run and rerun; every run is one ``ansible-playbook`` and its
wall clock is timed. After each run the script counts, through NetBox's API, the IP addresses inside the
approach's prefix. set_fact runs at the start and at the end of each round; its median is the baseline.
A round uses prefixes of its own (R is the round).

The tools come from a virtualenv of their own, .venv-bench (Python 3.12), which this script creates and
keeps in line with PINS and requirements.txt: the ``ansible`` bundle (which carries netbox.netbox and the
ansible-core it needs) and pynetbox, which netbox.netbox's modules import. ANSIBLE_COLLECTIONS_PATH puts
this checkout's collections/ first (netpool.ipam from here), then the bundle's (netbox.netbox).

    make bench-netbox                      # the same as:
    python3.12 bench/netbox.py [--hosts 50] [--forks 10] [--rounds 1] [--only netpool|netbox] [--json FILE]
"""

import argparse
import contextlib
import glob
import importlib.util
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, '.venv-bench')
BIN = os.path.join(VENV, 'bin')
PINS = ['ansible==14.5.0', 'pynetbox==7.9.0']
REQUIREMENTS = os.path.join(ROOT, 'requirements.txt')
STAMP = os.path.join(VENV, '.bench-netbox.stamp')
HARNESS = os.path.join(ROOT, 'tests', 'utils', 'netbox.py')
LINK = os.path.join(ROOT, 'collections', 'ansible_collections', 'netpool', 'ipam')

PLAY = '- name: Bench\n  hosts: all\n  gather_facts: false\n'

SETUP = {
    'netpool': PLAY + """\
  tasks:
    - name: The pool
      netpool.ipam.pool:
        store: "{{ store }}"
        store_token: "{{ token }}"
        name: "bench-{{ round }}"
        cidr: "{{ netpool_prefix }}"
      run_once: true
""",
    'netbox': PLAY + """\
  tasks:
    - name: The prefix
      netbox.netbox.netbox_prefix:
        netbox_url: "{{ url }}"
        netbox_token: "{{ token }}"
        data:
          prefix: "{{ netbox_prefix }}"
        state: present
      run_once: true
""",
}

PLAYS = {
    'set_fact': PLAY + """\
  tasks:
    - name: One set_fact
      ansible.builtin.set_fact:
        address: 10.0.0.1
""",
    'netpool': PLAY + """\
  tasks:
    - name: One reservation
      netpool.ipam.reservation:
        store: "{{ store }}"
        store_token: "{{ token }}"
        pool: "bench-{{ round }}"
        owner: "{{ inventory_hostname }}"
""",
    'netbox': PLAY + """\
  tasks:
    - name: The next free address of the prefix
      netbox.netbox.netbox_ip_address:
        netbox_url: "{{ url }}"
        netbox_token: "{{ token }}"
        data:
          prefix: "{{ netbox_prefix }}"
          description: "{{ inventory_hostname }}"
        state: new
""",
}

LABELS = {
    'set_fact': '`ansible.builtin.set_fact` (baseline)',
    'netpool': '`netpool.ipam.reservation`, NetBox store',
    'netbox': '`netbox.netbox.netbox_ip_address`, `state: new` + `prefix`',
}


def _venv():
    """Create .venv-bench, or bring it in line with PINS and requirements.txt; nothing else is installed."""
    with open(REQUIREMENTS) as f:
        wanted = '\n'.join(PINS) + '\n' + f.read()
    if os.path.exists(STAMP):
        with open(STAMP) as f:
            if f.read() == wanted:
                return
    if not os.access(os.path.join(BIN, 'python'), os.X_OK):
        if sys.version_info < (3, 12):
            raise SystemExit('bench/netbox.py creates .venv-bench with the Python that runs it: Python 3.12 '
                             'is needed (make bench-netbox finds it), this is %s' % platform.python_version())
        subprocess.run([sys.executable, '-m', 'venv', VENV], check=True)
    subprocess.run([os.path.join(BIN, 'python'), '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check',
                    '-r', REQUIREMENTS] + PINS, check=True)
    with open(STAMP, 'w') as f:
        f.write(wanted)


def _link():
    """collections/ansible_collections/netpool/ipam -> this checkout (what `make link` does)."""
    if os.path.islink(LINK) and os.readlink(LINK) == '../../..':
        return
    os.makedirs(os.path.dirname(LINK), exist_ok=True)
    if os.path.lexists(LINK):
        os.remove(LINK)
    os.symlink('../../..', LINK)


def _environment(forks):
    site = glob.glob(os.path.join(VENV, 'lib', 'python3.*', 'site-packages'))
    env = dict(os.environ)
    for name in list(env):
        if name.startswith('NETPOOL_IPAM_') or name in ('ANSIBLE_CONFIG', 'PYTHONPATH'):
            env.pop(name)
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'),
               ANSIBLE_COLLECTIONS_PATH=os.pathsep.join([os.path.join(ROOT, 'collections')] + site),
               ANSIBLE_FORKS=str(forks), ANSIBLE_NOCOLOR='1', ANSIBLE_HOST_KEY_CHECKING='false')
    env['PATH'] = BIN + os.pathsep + env.get('PATH', '')
    return env


def _inventory(count):
    lines = ['all:', '  vars:', '    ansible_connection: local',
             '    ansible_python_interpreter: %s' % os.path.join(BIN, 'python'), '  hosts:']
    for i in range(count):
        lines.append('    host%02d: {}' % i)
    return '\n'.join(lines) + '\n'


def _play(work, env, name, extra):
    """Run one playbook; (seconds, what its recap counts as changed). Fails loudly if the playbook failed."""
    cmd = [os.path.join(BIN, 'ansible-playbook'), '-i', 'inventory.yml', '-e', '@' + extra, name + '.yml']
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    elapsed = time.perf_counter() - start
    out = proc.stdout.decode(errors='replace')
    if proc.returncode:
        sys.stderr.write(out[-6000:])
        raise SystemExit('%s failed (rc %d)' % (' '.join(cmd), proc.returncode))
    return elapsed, sum(int(n) for n in re.findall(r'\bchanged=(\d+)', out))


def _addresses(server, prefix):
    """The IP addresses NetBox holds inside the prefix, in any VRF (each with its status)."""
    found, url = {}, '%s/api/ipam/ip-addresses/?parent=%s&limit=1000' % (server['url'], prefix)
    while url:
        request = urllib.request.Request(url, headers={'Authorization': 'Token ' + server['tokens']['read'],
                                                       'Accept': 'application/json'})
        with urllib.request.urlopen(request, timeout=60) as response:
            page = json.load(response)
        for item in page['results']:
            found[item['address']] = item['status']['value']
        url = page['next']
    return found


def _versions(env):
    def output(cmd):
        return subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              check=False).stdout.decode()
    core = output([os.path.join(BIN, 'ansible'), '--version']).splitlines()[0]
    listing = output([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'list', 'netbox.netbox'])
    collection = re.search(r'^netbox\.netbox\s+(\S+)', listing, re.M)
    pip = output([os.path.join(BIN, 'python'), '-m', 'pip', 'freeze', '--disable-pip-version-check'])
    pins = dict(line.split('==', 1) for line in pip.splitlines() if '==' in line)
    return {'ansible-core': core, 'ansible': pins.get('ansible'), 'pynetbox': pins.get('pynetbox'),
            'netbox.netbox': collection.group(1) if collection else None}


def _check_collections(env):
    """netpool.ipam must be this checkout, netbox.netbox the bundle's: say where each was found."""
    where = {}
    for name in ('netpool.ipam', 'netbox.netbox'):
        listing = subprocess.run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'list', name], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout.decode()
        found = re.findall(r'^# (\S+)', listing, re.M)
        if not found:
            raise SystemExit('%s is not found with ANSIBLE_COLLECTIONS_PATH=%s'
                             % (name, env['ANSIBLE_COLLECTIONS_PATH']))
        where[name] = found[0]
    if os.path.realpath(where['netpool.ipam']) != os.path.realpath(os.path.join(ROOT, 'collections',
                                                                                'ansible_collections')):
        raise SystemExit('netpool.ipam is taken from %s, not from this checkout' % where['netpool.ipam'])
    return where


def _round(work, env, server, index, approaches):
    extra = os.path.join(work, 'vars-%d.json' % index)
    prefixes = {'netpool': '10.80.%d.0/24' % index, 'netbox': '10.81.%d.0/24' % index}
    with open(extra, 'w') as f:
        json.dump({'store': 'netbox+' + server['url'], 'url': server['url'], 'token': server['tokens']['write'],
                   'round': index, 'netpool_prefix': prefixes['netpool'], 'netbox_prefix': prefixes['netbox']}, f)
    for name in approaches:
        _play(work, env, 'setup-' + name, extra)
    result = {'set_fact': [_play(work, env, 'set_fact', extra)[0]]}
    held = {}
    for run in ('first', 'rerun'):
        for name in approaches:
            seconds, changed = _play(work, env, name, extra)
            result.setdefault(name, {})[run] = seconds
            result[name]['changed_' + run] = changed
            held[name, run] = _addresses(server, prefixes[name])
            result[name]['held_after_' + run] = len(held[name, run])
    result['set_fact'].append(_play(work, env, 'set_fact', extra)[0])
    for name in approaches:
        result[name]['prefix'] = prefixes[name]
        result[name]['new_on_rerun'] = len(set(held[name, 'rerun']) - set(held[name, 'first']))
        result[name]['statuses_after_rerun'] = dict(
            (status, list(held[name, 'rerun'].values()).count(status)) for status in set(held[name, 'rerun'].values()))
    return result


def _table(rounds, hosts, approaches):
    baseline = statistics.median(t for r in rounds for t in r['set_fact'])
    rows = ['| approach | first run (s) | rerun (s) | first / set_fact | rerun / set_fact | changed on rerun '
            '| addresses held after first run | after rerun | new on rerun |',
            '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
            '| %s | %.2f | – | 1.00 | – | – | – | – | – |' % (LABELS['set_fact'], baseline)]
    summary = {'set_fact_median': baseline, 'set_fact': [t for r in rounds for t in r['set_fact']]}
    for name in approaches:
        first = statistics.median(r[name]['first'] for r in rounds)
        rerun = statistics.median(r[name]['rerun'] for r in rounds)
        figures = {
            'first': first, 'rerun': rerun, 'first_ratio': first / baseline, 'rerun_ratio': rerun / baseline,
            'changed_rerun': [r[name]['changed_rerun'] for r in rounds],
            'held_after_first': [r[name]['held_after_first'] for r in rounds],
            'held_after_rerun': [r[name]['held_after_rerun'] for r in rounds],
            'new_on_rerun': [r[name]['new_on_rerun'] for r in rounds]}
        summary[name] = figures
        rows.append('| %s | %.2f | %.2f | %.2f | %.2f | %s |' % (
            LABELS[name], first, rerun, figures['first_ratio'], figures['rerun_ratio'], ' | '.join(
                ', '.join(str(n) for n in figures[key])
                for key in ('changed_rerun', 'held_after_first', 'held_after_rerun', 'new_on_rerun'))))
    summary['hosts'] = hosts
    return '\n'.join(rows), summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=50)
    parser.add_argument('--forks', type=int, default=10)
    parser.add_argument('--rounds', type=int, default=1)
    parser.add_argument('--only', choices=('netpool', 'netbox'), help='one of the two approaches (and set_fact)')
    parser.add_argument('--json', help='also write the JSON figures to this file')
    args = parser.parse_args()

    approaches = (args.only,) if args.only else ('netpool', 'netbox')
    _venv()
    _link()
    env = _environment(args.forks)
    where = _check_collections(env)
    versions = _versions(env)
    spec = importlib.util.spec_from_file_location('netpool_netbox_harness', HARNESS)  # serve(): a NetBox of our own
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    rounds = []
    with tempfile.TemporaryDirectory(prefix='netpool-bench-netbox-') as work:
        with open(os.path.join(work, 'inventory.yml'), 'w') as f:
            f.write(_inventory(args.hosts))
        for name, text in list(PLAYS.items()) + [('setup-' + k, v) for k, v in SETUP.items()]:
            with open(os.path.join(work, name + '.yml'), 'w') as f:
                f.write(text)
        with harness.serve() as server:
            for index in range(args.rounds):
                rounds.append(_round(work, env, server, index, approaches))
                print('round %d: %s' % (index, json.dumps(rounds[-1], sort_keys=True)), file=sys.stderr)
    table, summary = _table(rounds, args.hosts, approaches)
    load = os.getloadavg()
    machine = '%s, %d CPUs, Python %s, %s, NetBox %s, load average %.2f %.2f %.2f' % (
        platform.platform(), os.cpu_count(), platform.python_version(), versions['ansible-core'],
        harness.VERSION, load[0], load[1], load[2])
    print('machine: %s' % machine)
    print('hosts %d, forks %d, rounds %d (times: median over rounds; counts: one per round)'
          % (args.hosts, args.forks, args.rounds))
    print('collections: %s' % ', '.join('%s from %s' % item for item in sorted(where.items())))
    print()
    print(table)
    print()
    report = {'machine': machine, 'versions': versions, 'hosts': args.hosts, 'forks': args.forks,
              'netbox': harness.VERSION, 'summary': summary, 'rounds': rounds}
    print(json.dumps(report, indent=2, sort_keys=True))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, indent=2, sort_keys=True)
    return 0


if __name__ == '__main__':
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
