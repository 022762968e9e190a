# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The example playbooks as a user runs them: ``ansible-playbook playbooks/X.yml`` from the user's
own directory, its output read through the JSON callback.

- ``utilization.yml`` names the store it read (run from the wrong directory, it shows which file that was) and
  prints the figures of a /64 readable (1.8e19, not 18446744073709551614).
- ``sweep.yml`` sweeps the pools the play names (``ipam_pool`` of the inventory's hosts, or ``sweep_pools``),
  every pool of the namespace only with ``sweep_pools=all``; with no pool named it fails saying so.
- ``netpool.ipam.adopt_network`` adopts the inventory's ``ansible_host`` addresses and a CSV file; check mode
  writes nothing, a rerun changes nothing.
"""

import json
import os
import re

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook
from ansible_collections.netpool.ipam.tests.support.reliability import ROOT


RESULT = re.compile(r'^(?:ok|changed|fatal|failed|skipping): \[[^\]]+\].*?=> (\{.*)$')
TASK = re.compile(r'^TASK \[(.*)\] \*+$')


def playbook(name, cwd, *args):
    """Run ``playbooks/NAME`` (a name without ``.yml``: the collection's playbook, ``netpool.ipam.NAME``, as a user
    runs it) from ``cwd`` (-v, results as JSON): (return code, {task name: [results, one per host or loop item]},
    output)."""
    where = os.path.join(ROOT, 'playbooks', name) if name.endswith('.yml') else 'netpool.ipam.%s' % name
    proc = run_playbook('-v', where, *args, cwd=cwd, env={'ANSIBLE_CALLBACK_RESULT_FORMAT': 'json'}, apart=True)
    tasks, task, lines = {}, None, proc.stdout.splitlines()
    i = 0
    while i < len(lines):
        header, result = TASK.match(lines[i]), RESULT.match(lines[i])
        if header:
            task = header.group(1)
        elif result:
            text = result.group(1)
            while text == '{' or (text.startswith('{') and not text.endswith('}')):
                i += 1
                text += lines[i] + '\n'
                if lines[i] == '}':
                    break
            tasks.setdefault(task, []).append(json.loads(text))
        i += 1
    return proc.returncode, tasks, proc.stdout + proc.stderr


def seed(spec, pools, reservations):
    service = Service(open_store(spec))
    for name, cidr in pools:
        service.pool(name, subnets=[{'cidr': cidr}])
    for pool, owner in reservations:
        service.reserve(pool, owner)
    service.store.close()


def test_utilization_names_the_store_it_read(tmp_path):
    """Run from a directory that holds no store: the table says which file it read, and that it has no pool."""
    rc, tasks, output = playbook('utilization.yml', tmp_path)
    assert rc == 0, output
    lines = tasks['Show the utilization table'][0]['msg']
    where = str(tmp_path / 'ipam.sqlite')
    assert lines[0] == 'store: %s' % where, lines
    assert any('no pool in namespace default of the store %s' % where in line for line in lines), lines
    assert not os.path.exists(where)        # reading made no store


def test_utilization_figures_of_a_64_are_readable(tmp_path):
    seed(str(tmp_path / 'ipam.sqlite'), [('v6', '2001:db8::/64'), ('v4', '10.0.0.0/24')], [('v4', 'h1')])
    rc, tasks, output = playbook('utilization.yml', tmp_path)
    assert rc == 0, output
    lines = tasks['Show the utilization table'][0]['msg']
    text = '\n'.join(lines)
    assert '18446744073709551' not in text, text
    v6 = [line for line in lines if ' v6 ' in line][0].split()
    assert v6[2:6] == ['IPv6', '1.8e19', '0', '1.8e19'], lines
    v4 = [line for line in lines if ' v4 ' in line][0].split()
    assert v4[2:6] == ['IPv4', '254', '1', '253'], lines
    assert lines[0] == 'store: %s' % (tmp_path / 'ipam.sqlite')


def sweep_store(tmp_path):
    """A shared store: web (this project's, a leak of gone1) and tf (Terraform's VMs, owners not in the
    inventory)."""
    seed(str(tmp_path / 'ipam.sqlite'), [('web', '10.0.0.0/24'), ('tf', '10.0.1.0/24')],
         [('web', 'web1'), ('web', 'gone1'), ('tf', 'vm-1'), ('tf', 'vm-2')])


def released(tasks):
    return sorted((r['pool'], r['owner']) for item in tasks['Release what owners outside the inventory hold']
                  for r in item['released'])


def test_sweep_by_default_sweeps_only_the_pools_the_inventory_names(tmp_path):
    sweep_store(tmp_path)
    (tmp_path / 'hosts.ini').write_text('[web]\nweb1\n[web:vars]\nipam_pool=web\n')
    rc, tasks, output = playbook('sweep.yml', tmp_path, '-i', 'hosts.ini', '--check')
    assert rc == 0, output
    assert released(tasks) == [('web', 'gone1')], released(tasks)
    shown = tasks['Show what was swept'][0]['msg']
    assert shown[0] == 'pools web of namespace default in the store %s' % (tmp_path / 'ipam.sqlite'), shown

    rc, tasks, output = playbook('sweep.yml', tmp_path, '-i', 'hosts.ini', '--check', '-e', 'sweep_pools=all')
    assert rc == 0, output
    assert released(tasks) == [('tf', 'vm-1'), ('tf', 'vm-2'), ('web', 'gone1')], released(tasks)


def test_sweep_with_no_pool_named_fails_saying_so(tmp_path):
    sweep_store(tmp_path)
    (tmp_path / 'hosts.ini').write_text('web1\n')
    rc, tasks, output = playbook('sweep.yml', tmp_path, '-i', 'hosts.ini', '--check')
    assert rc != 0
    refused = tasks['Refuse to sweep pools nobody named'][0]
    assert 'No pool to sweep' in refused['msg'] and 'sweep_pools=all' in refused['msg'] and 'sweep_pools=web,db' in refused['msg']
    assert 'Release what owners outside the inventory hold' not in tasks
    rc, tasks, output = playbook('sweep.yml', tmp_path, '-i', 'hosts.ini', '--check', '-e', 'sweep_pools=tf')
    assert rc == 0, output
    assert released(tasks) == [('tf', 'vm-1'), ('tf', 'vm-2')]


def test_utilization_counts_a_dual_stack_pools_families_apart(tmp_path):
    service = Service(open_store(str(tmp_path / 'ipam.sqlite')))
    service.pool('dual', subnets=[{'cidr': '10.0.0.0/24'}, {'cidr': '2001:db8::/120'}])
    service.reserve('dual', 'h1', family='dual')
    service.store.close()
    rc, tasks, output = playbook('utilization.yml', tmp_path)
    assert rc == 0, output
    rows = [line.split() for line in tasks['Show the utilization table'][0]['msg'] if ' dual ' in line]
    assert [r[2:6] for r in rows] == [['IPv4', '254', '1', '253'], ['IPv6', '255', '1', '254']], rows


def test_publish_runs_as_its_header_says(tmp_path):
    """``ansible-playbook -i inventory playbooks/publish.yml`` with the pool in the inventory's ``ipam_pool``:
    every node is reserved there and the server's file names it."""
    seed(str(tmp_path / 'ipam.sqlite'), [('web', '10.0.0.0/24')], [])
    hosts = tmp_path / 'etc_hosts'
    hosts.write_text('127.0.0.1 localhost\n')
    (tmp_path / 'hosts.ini').write_text(
        '[nodes]\nweb1 ipam_mac=52:54:00:00:00:01\nweb2 ipam_mac=52:54:00:00:00:02\n[nodes:vars]\nipam_pool=web\n'
        '[dhcp_dns]\nns1 ipam_publish=\'["hosts"]\' ipam_publish_hosts_path=%s ipam_publish_pools=\'["web"]\'\n'
        '[all:vars]\nansible_connection=local\n' % hosts)
    rc, tasks, output = playbook('publish.yml', tmp_path, '-i', 'hosts.ini')
    assert rc == 0, output
    store = open_store(str(tmp_path / 'ipam.sqlite'))
    with store.transaction(write=False):
        held = sorted((r.owner, r.address_str) for r in store.find_reservations('default', 'web'))
    store.close()
    assert held == [('web1', '10.0.0.1'), ('web2', '10.0.0.2')], held
    text = hosts.read_text()
    assert '10.0.0.1\tweb1\n10.0.0.2\tweb2\n' in text, text


def test_adopt_network_adopts_the_inventory_and_a_csv_check_mode_first_then_a_rerun_changes_nothing(tmp_path):
    spec = str(tmp_path / 'ipam.sqlite')
    service = Service(open_store(spec))
    service.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1'}])
    service.store.close()
    (tmp_path / 'inventory').write_text(u'web1 ansible_host=10.0.0.21\nweb2 ansible_host=10.0.0.22\n'
                                        u'router ansible_host=10.0.0.1\nlocal\n')
    (tmp_path / 'hosts.csv').write_text(u'address,owner,rack\n10.0.0.30,nas,r2\n10.0.0.21,web1,\n')
    args = ('-i', 'inventory', '-e', 'adopt_csv=hosts.csv', '-e', 'adopt_on_conflict=skip')
    store = open_store(spec)
    before = export_document(store)
    rc, tasks, output = playbook('adopt_network', tmp_path, '--check', *args)
    assert rc == 0, output
    assert export_document(store) == before
    inventory = tasks["Adopt the inventory's ansible_host addresses"][0]
    assert [(e['owner'], e['address']) for e in inventory['adopted']] == [('web1', '10.0.0.21'), ('web2', '10.0.0.22')]
    rc, tasks, output = playbook('adopt_network', tmp_path, *args)
    assert rc == 0, output
    inventory, csv = tasks["Adopt the inventory's ansible_host addresses"][0], tasks['Adopt the rows of a CSV file'][0]
    assert inventory['changed'] and [e['owner'] for e in inventory['adopted']] == ['web1', 'web2']
    assert [(e['owner'], e['reason']) for e in inventory['conflicts']] == [
        ('router', '10.0.0.1 is the gateway of 10.0.0.0/24')]
    assert [e['owner'] for e in csv['adopted']] == ['nas'] and [e['owner'] for e in csv['unchanged']] == ['web1']
    assert tasks['Show what was adopted and what was not'][0]['msg'] == [
        'adopted: 3, unchanged: 1, conflicts: 1, outside every pool: 0',
        'conflict: entries[2]: 10.0.0.1 is the gateway of 10.0.0.0/24']
    assert [(r['owner'], r['address'], r['static'], r['metadata']) for r in Service(store).info()['reservations']] == [
        ('web1', '10.0.0.21', True, {}), ('web2', '10.0.0.22', True, {}), ('nas', '10.0.0.30', True, {'rack': 'r2'})]
    rc, tasks, output = playbook('adopt_network', tmp_path, *args)
    assert rc == 0, output
    for task in ("Adopt the inventory's ansible_host addresses", 'Adopt the rows of a CSV file'):
        assert tasks[task][0]['changed'] is False and not tasks[task][0]['adopted'], tasks[task]
    store.close()
