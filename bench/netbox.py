# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""An address for each of 50 hosts in a real NetBox: this collection next to netbox.netbox.

On one NetBox (tests/utils/netbox.py: a fresh copy of the template database, served on 127.0.0.1, stopped
at the end), the same inventory of 50 hosts (ansible_connection: local), forks 10:

  - set_fact:  one ansible.builtin.set_fact task, the baseline;
  - netpool:   one netpool.ipam.reservation task per host (owner: the host) with the NetBox store, on a pool
               10.80.R.0/24 declared first with netpool.ipam.pool (not timed);
  - owners:    one netpool.ipam.reservation task run once with ``owners: "{{ ansible_play_hosts_all }}"`` (the
               whole play in one task), on a pool 10.82.R.0/24 declared the same way;
  - netbox:    one netbox.netbox.netbox_ip_address task with ``state: new`` and ``data.prefix``, the way its
               documentation gets the next free address of a prefix (description: the host), on a prefix
               10.81.R.0/24 created first with netbox.netbox.netbox_prefix (not timed).

With ``--before CHECKOUT`` (another tree of this repository, e.g. ``git worktree add /tmp/before <commit>``),
netpool and owners also run from that checkout (``netpool@before``, ``owners@before``, pools 10.83.R.0/24 and
10.84.R.0/24), in the same rounds on the same NetBox: before and now measured side by side.

Each approach runs twice, first run and rerun (all first runs, then all reruns); every run is one
``ansible-playbook``, timed whole: its wall clock, the CPU time of ansible-playbook and its workers (user +
system), and the CPU time NetBox's gunicorn processes and the PostgreSQL backends of its database spent
meanwhile. On a shared machine the CPU figures move less with the load than the wall clock. After each run the script
counts, through NetBox's API, the IP addresses inside the approach's prefix. set_fact runs at the start and
at the end of each round; its median is the baseline. A round uses prefixes of its own (R is the round).

The tools come from a virtualenv of their own, .venv-bench (Python 3.12), which this script creates and
keeps in line with PINS and requirements.txt: the ``ansible`` bundle (which carries netbox.netbox and the
ansible-core it needs) and pynetbox, which netbox.netbox's modules import. ANSIBLE_COLLECTIONS_PATH puts
this checkout's collections/ first (netpool.ipam from here), then the bundle's (netbox.netbox).

    make bench-netbox                      # the same as:
    python3.12 bench/netbox.py [--hosts 50] [--forks 10] [--rounds 1] [--only netpool|owners|netbox]
                               [--before CHECKOUT] [--json FILE]
"""

import argparse
import contextlib
import glob
import importlib.util
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import cpu_spent, netbox_cpu  # noqa: E402  pylint: disable=wrong-import-position

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, '.venv-bench')
BIN = os.path.join(VENV, 'bin')
PINS = ['ansible==14.5.0', 'pynetbox==7.9.0']
REQUIREMENTS = os.path.join(ROOT, 'requirements.txt')
STAMP = os.path.join(VENV, '.bench-netbox.stamp')
HARNESS = os.path.join(ROOT, 'tests', 'utils', 'netbox.py')

PLAY = '- name: Bench\n  hosts: all\n  gather_facts: false\n'

SETUP = {
    'netpool': PLAY + """\
  tasks:
    - name: The pool
      netpool.ipam.pool:
        store: "{{ store }}"
        store_token: "{{ token }}"
        name: "bench-{{ approach }}-{{ round }}"
        cidr: "{{ prefix }}"
      run_once: true
""",
    'netbox': PLAY + """\
  tasks:
    - name: The prefix
      netbox.netbox.netbox_prefix:
        netbox_url: "{{ url }}"
        netbox_token: "{{ token }}"
        data:
          prefix: "{{ prefix }}"
        state: present
      run_once: true
""",
}

SETUP['owners'] = SETUP['netpool']

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
        pool: "bench-{{ approach }}-{{ round }}"
        owner: "{{ inventory_hostname }}"
""",
    'owners': PLAY + """\
  tasks:
    - name: Every host's reservation, in one task
      netpool.ipam.reservation:
        store: "{{ store }}"
        store_token: "{{ token }}"
        pool: "bench-{{ approach }}-{{ round }}"
        owners: "{{ ansible_play_hosts_all }}"
      run_once: true
""",
    'netbox': PLAY + """\
  tasks:
    - name: The next free address of the prefix
      netbox.netbox.netbox_ip_address:
        netbox_url: "{{ url }}"
        netbox_token: "{{ token }}"
        data:
          prefix: "{{ prefix }}"
          description: "{{ inventory_hostname }}"
        state: new
""",
}

LABELS = {
    'set_fact': '`ansible.builtin.set_fact` (baseline)',
    'netpool': '`netpool.ipam.reservation` per host, NetBox store',
    'owners': '`netpool.ipam.reservation` with `owners`, run once, NetBox store',
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


def _link(root=ROOT):
    """collections/ansible_collections/netpool/ipam -> the checkout ``root`` (what `make link` does)."""
    link = os.path.join(root, 'collections', 'ansible_collections', 'netpool', 'ipam')
    if os.path.islink(link) and os.readlink(link) == '../../..':
        return
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink('../../..', link)


def _environment(forks, root=ROOT):
    """The environment of the plays: netpool.ipam from the checkout ``root``, netbox.netbox from the bundle."""
    site = glob.glob(os.path.join(VENV, 'lib', 'python3.*', 'site-packages'))
    env = dict(os.environ)
    for name in list(env):
        if name.startswith('NETPOOL_IPAM_') or name in ('ANSIBLE_CONFIG', 'PYTHONPATH'):
            env.pop(name)
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'),
               ANSIBLE_COLLECTIONS_PATH=os.pathsep.join([os.path.join(root, 'collections')] + site),
               ANSIBLE_FORKS=str(forks), ANSIBLE_NOCOLOR='1', ANSIBLE_HOST_KEY_CHECKING='false')
    env['PATH'] = BIN + os.pathsep + env.get('PATH', '')
    return env


def _inventory(count):
    lines = ['all:', '  vars:', '    ansible_connection: local',
             '    ansible_python_interpreter: %s' % os.path.join(BIN, 'python'), '  hosts:']
    for i in range(count):
        lines.append('    host%02d: {}' % i)
    return '\n'.join(lines) + '\n'


def _play(work, env, name, extra, server=None):
    """Run one playbook: {'seconds', 'cpu' (ansible-playbook and its workers), 'netbox_cpu', 'postgresql_cpu',
    'changed' (its recap's count)}. Fails loudly if the playbook failed."""
    cmd = [os.path.join(BIN, 'ansible-playbook'), '-i', 'inventory.yml', '-e', '@' + extra, name + '.yml']
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    served = netbox_cpu(server) if server else {}
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = netbox_cpu(server) if server else {}
    out = proc.stdout.decode(errors='replace')
    if proc.returncode:
        sys.stderr.write(out[-6000:])
        raise SystemExit('%s failed (rc %d)' % (' '.join(cmd), proc.returncode))
    return {'seconds': elapsed, 'cpu': after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            'netbox_cpu': cpu_spent(served, spent, 'netbox'), 'postgresql_cpu': cpu_spent(served, spent, 'postgresql'),
            'changed': sum(int(n) for n in re.findall(r'\bchanged=(\d+)', out))}


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


def _check_collections(env, root=ROOT):
    """netpool.ipam must be the checkout ``root``, netbox.netbox the bundle's: say where each was found."""
    where = {}
    for name in ('netpool.ipam', 'netbox.netbox'):
        listing = subprocess.run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'list', name], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout.decode()
        found = re.findall(r'^# (\S+)', listing, re.M)
        if not found:
            raise SystemExit('%s is not found with ANSIBLE_COLLECTIONS_PATH=%s'
                             % (name, env['ANSIBLE_COLLECTIONS_PATH']))
        where[name] = found[0]
    if os.path.realpath(where['netpool.ipam']) != os.path.realpath(os.path.join(root, 'collections',
                                                                                'ansible_collections')):
        raise SystemExit('netpool.ipam is taken from %s, not from %s' % (where['netpool.ipam'], root))
    return where


#: each approach's prefix in round R: 10.N.R.0/24
PREFIXES = {'netpool': 80, 'netbox': 81, 'owners': 82, 'netpool@before': 83, 'owners@before': 84}


def _round(work, envs, server, index, approaches):
    """One round: set_fact, every approach's first run, every approach's rerun, set_fact again."""
    extras, prefixes = {}, {}
    for name in approaches:
        prefixes[name] = '10.%d.%d.0/24' % (PREFIXES[name], index)
        extras[name] = os.path.join(work, 'vars-%s-%d.json' % (name.replace('@', '-'), index))
        with open(extras[name], 'w') as f:
            json.dump({'store': 'netbox+' + server['url'], 'url': server['url'], 'token': server['tokens']['write'],
                       'round': index, 'approach': name.replace('@', '-'), 'prefix': prefixes[name]}, f)
        _play(work, envs[name], 'setup-' + name.split('@')[0], extras[name])
    result = {'set_fact': [_play(work, envs['set_fact'], 'set_fact', extras[approaches[0]])['seconds']]}
    held = {}
    for run in ('first', 'rerun'):
        for name in approaches:
            ran = _play(work, envs[name], name.split('@')[0], extras[name], server)
            figures = result.setdefault(name, {})
            figures[run], figures['cpu_' + run] = ran['seconds'], ran['cpu']
            figures['netbox_cpu_' + run], figures['postgresql_cpu_' + run] = ran['netbox_cpu'], ran['postgresql_cpu']
            figures['changed_' + run] = ran['changed']
            held[name, run] = _addresses(server, prefixes[name])
            figures['held_after_' + run] = len(held[name, run])
    result['set_fact'].append(_play(work, envs['set_fact'], 'set_fact', extras[approaches[0]])['seconds'])
    for name in approaches:
        result[name]['prefix'] = prefixes[name]
        result[name]['new_on_rerun'] = len(set(held[name, 'rerun']) - set(held[name, 'first']))
        result[name]['statuses_after_rerun'] = dict(
            (status, list(held[name, 'rerun'].values()).count(status)) for status in set(held[name, 'rerun'].values()))
    return result


def _label(name):
    base, tree = (name.split('@') + [None])[:2]
    return LABELS[base] + (' (`--before` checkout)' if tree else '')


def _table(rounds, hosts, approaches):
    baseline = statistics.median(t for r in rounds for t in r['set_fact'])
    theirs = statistics.median(r['netbox']['first'] for r in rounds) if 'netbox' in approaches else None
    rows = ['| approach | first run (s) | ÷ `netbox.netbox` first run | rerun (s) | first / set_fact '
            '| CPU first run: Ansible / NetBox / PostgreSQL (s) | CPU rerun: Ansible / NetBox / PostgreSQL (s) '
            '| changed on rerun '
            '| addresses held after first run | after rerun | new on rerun |',
            '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
            '| %s | %.2f | – | – | 1.00 | – | – | – | – | – | – |' % (LABELS['set_fact'], baseline)]
    summary = {'set_fact_median': baseline, 'set_fact': [t for r in rounds for t in r['set_fact']]}
    for name in approaches:
        figures = dict((key, statistics.median(r[name][key] for r in rounds)) for key in (
            'first', 'rerun', 'cpu_first', 'cpu_rerun', 'netbox_cpu_first', 'netbox_cpu_rerun',
            'postgresql_cpu_first', 'postgresql_cpu_rerun'))
        figures.update({
            'first_ratio': figures['first'] / baseline, 'rerun_ratio': figures['rerun'] / baseline,
            'to_netbox_netbox': figures['first'] / theirs if theirs else None,
            'changed_rerun': [r[name]['changed_rerun'] for r in rounds],
            'held_after_first': [r[name]['held_after_first'] for r in rounds],
            'held_after_rerun': [r[name]['held_after_rerun'] for r in rounds],
            'new_on_rerun': [r[name]['new_on_rerun'] for r in rounds]})
        summary[name] = figures
        rows.append('| %s | %.2f | %s | %.2f | %.2f | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %s |' % (
            _label(name), figures['first'], '–' if theirs is None else '%.2f' % figures['to_netbox_netbox'],
            figures['rerun'], figures['first_ratio'], figures['cpu_first'], figures['netbox_cpu_first'],
            figures['postgresql_cpu_first'], figures['cpu_rerun'], figures['netbox_cpu_rerun'],
            figures['postgresql_cpu_rerun'], ' | '.join(
                ', '.join(str(n) for n in figures[key])
                for key in ('changed_rerun', 'held_after_first', 'held_after_rerun', 'new_on_rerun'))))
    summary['hosts'] = hosts
    return '\n'.join(rows), summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--hosts', type=int, default=50)
    parser.add_argument('--forks', type=int, default=10)
    parser.add_argument('--rounds', type=int, default=1)
    parser.add_argument('--only', choices=('netpool', 'owners', 'netbox'),
                        help='one of the approaches (and set_fact)')
    parser.add_argument('--before', metavar='CHECKOUT',
                        help="another tree of this repository: its netpool and owners run beside this one's")
    parser.add_argument('--json', help='also write the JSON figures to this file')
    args = parser.parse_args()

    approaches = [args.only] if args.only else ['netpool', 'owners', 'netbox']
    if args.before:
        approaches += ['%s@before' % name for name in approaches if name != 'netbox']
    _venv()
    _link()
    envs = dict((name, _environment(args.forks)) for name in ['set_fact'] + approaches)
    where = {'now': _check_collections(envs['set_fact'])}
    if args.before:
        before = os.path.abspath(args.before)
        _link(before)
        env = _environment(args.forks, before)
        where['before'] = _check_collections(env, before)
        where['before']['commit'] = subprocess.run(['git', '-C', before, 'rev-parse', '--short', 'HEAD'],
                                                   stdout=subprocess.PIPE, check=False).stdout.decode().strip()
        envs.update((name, env) for name in approaches if name.endswith('@before'))
    where['now']['commit'] = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'],
                                            stdout=subprocess.PIPE, check=False).stdout.decode().strip()
    versions = _versions(envs['set_fact'])
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
                rounds.append(_round(work, envs, server, index, approaches))
                print('round %d: %s' % (index, json.dumps(rounds[-1], sort_keys=True)), file=sys.stderr)
    table, summary = _table(rounds, args.hosts, approaches)
    load = os.getloadavg()
    machine = '%s, %d CPUs, Python %s, %s, NetBox %s, load average %.2f %.2f %.2f' % (
        platform.platform(), os.cpu_count(), platform.python_version(), versions['ansible-core'],
        harness.VERSION, load[0], load[1], load[2])
    print('machine: %s' % machine)
    print('hosts %d, forks %d, rounds %d (times: median over rounds; counts: one per round)'
          % (args.hosts, args.forks, args.rounds))
    print('collections: %s' % json.dumps(where, sort_keys=True))
    print()
    print(table)
    print()
    report = {'machine': machine, 'versions': versions, 'hosts': args.hosts, 'forks': args.forks,
              'netbox': harness.VERSION, 'summary': summary, 'rounds': rounds, 'collections': where}
    print(json.dumps(report, indent=2, sort_keys=True))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, indent=2, sort_keys=True)
    return 0


if __name__ == '__main__':
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
