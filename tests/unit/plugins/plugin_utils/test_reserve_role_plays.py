# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The reserve role however a user runs the play: real ansible-playbook processes on six local hosts.

Every strategy ansible-core ships (in the play and in ansible.cfg), a role-level ``when``, ``import_role`` and
``include_role`` with ``when``, ``serial``, ``--limit``, a host added by ``add_host``, a host that failed earlier,
check mode, a bad variable on one host (the first or another), a conflict between hosts, and ``-e`` strings. What
is checked each time: every host the role ran for ends with ``ipam_address`` equal to what the store holds for it,
the addresses are distinct, and new hosts follow the inventory order wherever the play runs its hosts together.

Needs ``ansible-playbook`` beside this Python (``make venv``, ``make venv-min``, ``make venv-2.20``).
"""

import json
import os
import re
import sqlite3

import pytest

from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 4)))
HOSTS = ['h%02d' % n for n in range(6)]

DECLARE = """
- name: Declare the pool
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Pool p
      netpool.ipam.pool:
        name: p
        cidr: 10.64.0.0/24
"""

# every host that ran the role says what its facts say, for the test to compare with the store ('REPORT' lines:
# debug runs no module, where a file written on each host would start two module processes per host)
REPORT = """
    - name: Say what the facts say
      ansible.builtin.debug:
        msg: "REPORT {{ inventory_hostname }} {{ ipam_address | default('UNSET') }} {{ ipam_cidr | default('UNSET') }}"
      when: report | default(true)
"""


def run(tmp_path, play, *args, cfg='', **env):
    (tmp_path / 'play.yml').write_text(DECLARE + play)
    inventory = tmp_path / 'inventory.ini'
    if not inventory.exists():
        inventory.write_text('localhost ansible_connection=local\n[nodes]\n%s\n' % '\n'.join(HOSTS))
    with open(os.path.join(ROOT, 'ansible.cfg')) as f:
        config = f.read().replace('collections_path = ./collections',
                                  'collections_path = %s' % os.path.join(ROOT, 'collections'))
    (tmp_path / 'ansible.cfg').write_text(config + cfg)
    proc = run_playbook('-i', inventory, tmp_path / 'play.yml', *args, cwd=tmp_path,
                        env=dict({'ANSIBLE_CONFIG': str(tmp_path / 'ansible.cfg'),
                                  'NETPOOL_IPAM_STORE': str(tmp_path / 'ipam.sqlite')}, **env))
    return proc.returncode, proc.stdout


def held(tmp_path):
    """owner -> address of what the store holds in pool p."""
    with sqlite3.connect(str(tmp_path / 'ipam.sqlite')) as db:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'reservation'").fetchall():
            return {}   # check mode made no store
        return dict(db.execute("SELECT owner, json_extract(data, '$.address') FROM reservation").fetchall())


def facts(out):
    """host -> {'address', 'cidr'}: what the facts of each host that reported say ('REPORT' lines)."""
    return dict((host, {'address': address, 'cidr': cidr})
                for host, address, cidr in re.findall(r'"REPORT (h\d\d) (\S*) (\S*)"', out))


def changed_hosts(out):
    return sorted(host for host, n in re.findall(r'^(h\d\d) +: ok=\d+ +changed=(\d+)', out, re.M) if n != '0')


def assert_consistent(tmp_path, out, hosts, ordered=True):
    """Every host of ``hosts`` has the address the store holds for it, and only they hold one; in inventory order
    when ``ordered``."""
    store, seen = held(tmp_path), facts(out)
    assert sorted(store) == sorted(hosts), out
    assert sorted(seen) == sorted(hosts), out
    for host in hosts:
        assert seen[host]['address'] == store[host], (host, out)
        assert seen[host]['cidr'] == store[host] + '/24', (host, out)
    assert len(set(store.values())) == len(store)
    if ordered:
        assert [store[h] for h in hosts] == ['10.64.0.%d' % n for n in range(1, len(hosts) + 1)], out


ROLE = """
- name: Reserve
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
  tasks:
""" + REPORT


@pytest.mark.parametrize('where', ['play', 'ansible.cfg'])
@pytest.mark.parametrize('strategy', ['linear', 'free', 'host_pinned', 'debug'])
def test_every_strategy_gives_every_host_the_address_the_store_holds(tmp_path, strategy, where):
    play = ROLE.replace('  gather_facts: false\n  roles:', '  gather_facts: false\n  strategy: %s\n  roles:'
                        % strategy) if where == 'play' else ROLE
    cfg = '' if where == 'play' else 'strategy = %s\n' % strategy   # ansible.cfg ends in its [defaults]
    code, out = run(tmp_path, play, cfg=cfg)
    assert code == 0, out
    # hosts run together (linear, debug): one transaction in inventory order; on their own: each reserves alone
    assert_consistent(tmp_path, out, HOSTS, ordered=strategy in ('linear', 'debug'))
    assert changed_hosts(out) == HOSTS, out
    code, out = run(tmp_path, play, cfg=cfg)
    assert code == 0 and changed_hosts(out) == [], out
    assert_consistent(tmp_path, out, HOSTS, ordered=strategy in ('linear', 'debug'))


WHEN_ROLE = """
- name: Reserve
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
      when: inventory_hostname != 'h00'
  tasks:
""" + REPORT.replace("report | default(true)", "inventory_hostname != 'h00'")

IMPORT_WHEN = """
- name: Reserve
  hosts: nodes
  gather_facts: false
  tasks:
    - name: The role
      ansible.builtin.%s:
        name: netpool.ipam.reserve
      vars:
        ipam_pool: p
      when: inventory_hostname != 'h00'
""" + REPORT.replace("report | default(true)", "inventory_hostname != 'h00'")


@pytest.mark.parametrize('play', [WHEN_ROLE, IMPORT_WHEN % 'import_role', IMPORT_WHEN % 'include_role'],
                         ids=['roles-when', 'import_role-when', 'include_role-when'])
def test_a_when_that_skips_the_first_host_reserves_for_every_other_host(tmp_path, play):
    code, out = run(tmp_path, play)
    assert code == 0, out
    # include_role runs the role's tasks for h01-h05 together: in inventory order; with a when on every task of
    # the role, each host reserves alone
    assert_consistent(tmp_path, out, HOSTS[1:], ordered='include_role' in play)
    assert changed_hosts(out) == HOSTS[1:], out


SERIAL = ROLE.replace('  gather_facts: false\n  roles:', '  gather_facts: false\n  serial: 2\n  roles:')


def test_serial_limit_and_check_mode(tmp_path):
    code, out = run(tmp_path, SERIAL, '--check')
    assert code == 0, out
    assert held(tmp_path) == {}, out     # check mode writes nothing
    assert changed_hosts(out) == HOSTS, out
    code, out = run(tmp_path, SERIAL, '--limit', 'localhost,h00,h01,h02')
    assert code == 0, out
    assert_consistent(tmp_path, out, HOSTS[:3])
    code, out = run(tmp_path, SERIAL)
    assert code == 0, out
    assert_consistent(tmp_path, out, HOSTS)
    assert changed_hosts(out) == HOSTS[3:], out


ADDED = """
- name: Add a host, and fail one
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Add h06 to nodes
      ansible.builtin.add_host:
        name: h06
        groups: nodes
        ansible_connection: local

- name: Fail h00 before the role
  hosts: nodes
  gather_facts: false
  tasks:
    - name: Fail h00
      ansible.builtin.fail:
        msg: h00 is broken
      when: inventory_hostname == 'h00'
""" + ROLE


def test_a_host_added_by_add_host_and_a_host_failed_earlier(tmp_path):
    code, out = run(tmp_path, ADDED)
    assert code != 0, out    # h00 failed: the play says so
    assert_consistent(tmp_path, out, HOSTS[1:] + ['h06'])


BAD = """
- name: Reserve
  hosts: nodes
  gather_facts: false
  tasks:
    - name: The role
      ansible.builtin.import_role:
        name: netpool.ipam.reserve
        rolespec_validate: ROLESPEC
      vars:
        ipam_pool: p
        ipam_family: "{{ 'ipv5' if inventory_hostname == bad else omit }}"
        ipam_store: "{{ undefined_variable if inventory_hostname == broken else omit }}"
""" + REPORT


@pytest.mark.parametrize('rolespec', ['true', 'false'])
@pytest.mark.parametrize('bad,broken', [('h00', 'none'), ('h03', 'none'), ('none', 'h00'), ('none', 'h04')])
def test_a_host_whose_own_variables_are_wrong_fails_alone(tmp_path, bad, broken, rolespec):
    """Checked by Ansible before the role's tasks, or with ``rolespec_validate: false`` by the role's own request."""
    code, out = run(tmp_path, BAD.replace('ROLESPEC', rolespec), '-e', 'bad=%s broken=%s' % (bad, broken))
    assert code != 0, out
    wrong = bad if bad != 'none' else broken
    others = [h for h in HOSTS if h != wrong]
    assert_consistent(tmp_path, out, others)
    assert re.search(r'^%s +: ok=\d+ +changed=0 +unreachable=0 +failed=1' % wrong, out, re.M), out
    if bad != 'none':
        assert 'value of ipam_family must be one of: ipv4, ipv6, dual, got: ipv5' in out, out
    else:
        assert "'undefined_variable' is undefined" in out, out
    if rolespec == 'false':
        assert 'netpool.ipam.reserve: ' in out, out     # the role's own words


CLASH = """
- name: Reserve
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
        ipam_static_address: "{{ '10.64.0.9' if inventory_hostname in ('h01', 'h04') else omit }}"
"""


def test_a_conflict_between_hosts_fails_the_batch_and_writes_nothing(tmp_path):
    code, out = run(tmp_path, CLASH)
    assert code != 0, out
    assert held(tmp_path) == {}, out
    assert 'h04 (ipam_static_address 10.64.0.9)' in out, out


def test_changed_counts_the_hosts_whose_address_changed_whatever_type_e_gives(tmp_path):
    code, out = run(tmp_path, ROLE, '-e', 'ipam_store_timeout=5 ipam_force=false')
    assert code == 0 and changed_hosts(out) == HOSTS, out
    assert_consistent(tmp_path, out, HOSTS)
    code, out = run(tmp_path, ROLE, '-e', 'ipam_store_timeout=5 ipam_force=false')
    assert code == 0 and changed_hosts(out) == [], out


def test_the_role_runs_on_public_interfaces_only():
    """No file of the role's machinery reaches into ansible-core's private names, forks or warms a cache."""
    paths = [os.path.join(ROOT, 'plugins', 'action', '_reserve_request.py'),
             os.path.join(ROOT, 'plugins', 'plugin_utils', '_reserve.py'),
             os.path.join(ROOT, 'roles', 'reserve', 'tasks', 'main.yml')]
    for path in paths:
        with open(path) as f:
            text = f.read()
        for private in ('_requires_connection', '_ansible_verbose_always', 'register_host_variables',
                        'VariableLayer', 'meta: end_batch', 'TemporaryFile', 'os.fork', 'getpid'):
            assert private not in text, (path, private)


# Later runs of the role in the same playbook: one that a `when` skips for every host, one that skips one host, a
# release between two runs. The facts each host ends with are written after each play ('FACTS' lines).
RUNS = """
- name: Declare the pools
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Pools
      netpool.ipam.pool:
        name: "{{ item.0 }}"
        cidr: "{{ item.1 }}"
      loop: [[p, 10.64.0.0/24], [q, 10.65.0.0/24], [r, 10.66.0.0/24]]

- name: A second run of the role that a when skips for every host
  hosts: nodes
  gather_facts: false
  strategy: STRATEGY
  roles:
    - {role: netpool.ipam.reserve, ipam_pool: p}
    - {role: netpool.ipam.reserve, ipam_pool: q, ipam_key: eth1, when: want_storage}
  vars:
    want_storage: false
  tasks:
    - name: Facts after the roles
      ansible.builtin.debug:
        msg: "FACTS roles {{ inventory_hostname }} {{ ipam_address | default('UNSET') }}"

- name: A release, then a run of the role that skips h01 (whose released address must stay released)
  hosts: nodes
  gather_facts: false
  strategy: STRATEGY
  tasks:
    - name: Release h01 in p
      netpool.ipam.reservation: {pool: p, owner: h01, state: absent}
      delegate_to: localhost
      run_once: true
    - name: The role in q, but on h01
      ansible.builtin.include_role:
        name: netpool.ipam.reserve
      vars:
        ipam_pool: q
      when: inventory_hostname != 'h01'
    - name: Facts after the include
      ansible.builtin.debug:
        msg: "FACTS include {{ inventory_hostname }} {{ ipam_address | default('UNSET') }}"
    - name: The role in r by import_role, but on h02
      ansible.builtin.import_role:
        name: netpool.ipam.reserve
      vars:
        ipam_pool: r
      when: inventory_hostname != 'h02'
    - name: Facts after the includes
      ansible.builtin.debug:
        msg: "FACTS includes {{ inventory_hostname }} {{ ipam_address | default('UNSET') }}"
"""


def shown(out, play):
    """host -> ipam_address, as the play called ``play`` wrote it ('FACTS' lines)."""
    return dict(re.findall(r'"FACTS %s (h\d\d) (\S*)"' % play, out))


def holdings(tmp_path):
    """{(owner, pool): address} the store holds, and each owner's history in pool p: [(action, address)]."""
    with sqlite3.connect(str(tmp_path / 'ipam.sqlite')) as db:
        held = dict(((owner, pool), address) for owner, pool, address in db.execute(
            "SELECT owner, pool, json_extract(data, '$.address') FROM reservation"))
        history = db.execute("SELECT owner, pool, action FROM history WHERE object = 'reservation' ORDER BY id")
        return held, [dict(zip(('owner', 'pool', 'action'), row)) for row in history]


@pytest.mark.parametrize('strategy', ['linear', 'free', 'host_pinned', 'debug'])
def test_later_runs_keep_the_facts_of_the_hosts_they_skip_and_replay_no_request(tmp_path, strategy):
    code, out = run(tmp_path, RUNS.replace('STRATEGY', strategy))
    assert code == 0, out
    held, history = holdings(tmp_path)
    # the run that a when skips leaves every host with its address in p
    roles = shown(out, 'roles')
    assert sorted(roles) == HOSTS and all(roles[h] == held.get((h, 'p'), roles[h]) for h in HOSTS), out
    assert all(address.startswith('10.64.0.') for address in roles.values()), out
    # h01's release is not undone by the run in q that skips it: it holds nothing in p, reserved once, released once
    assert (('h01', 'p') not in held and ('h01', 'q') not in held), (held, out)
    h01 = [(entry.get('action'), entry.get('pool')) for entry in history if entry.get('owner') == 'h01']
    assert [action for action, pool in h01 if pool == 'p'] == ['reserve', 'release'], (h01, out)
    # after the include in q: h01 keeps its facts of p (the include skipped it), the others have q's
    include = shown(out, 'include')
    assert include == dict((h, roles[h] if h == 'h01' else held[(h, 'q')]) for h in HOSTS), out
    # after the import in r: h02 keeps its address in q (the import skipped it), the others have r's
    includes = shown(out, 'includes')
    assert includes == dict((h, held[(h, 'q' if h == 'h02' else 'r')]) for h in HOSTS), out


# a batch of two groups: the hosts in p, and h03 in q with a static address outside q
TWO_GROUPS = """
- name: Reserve, h03 in q with an address outside it
  hosts: nodes
  gather_facts: false
  strategy: STRATEGY
  pre_tasks:
    - name: Pool q
      netpool.ipam.pool: {name: q, cidr: 10.65.0.0/24}
      delegate_to: localhost
      run_once: true
      changed_when: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: "{{ 'q' if inventory_hostname == 'h03' else 'p' }}"
        ipam_static_address: "{{ '192.0.2.7' if inventory_hostname == 'h03' else omit }}"
"""


@pytest.mark.parametrize('strategy', ['linear', 'free', 'host_pinned', 'debug'])
def test_a_batch_of_several_groups_is_one_decision_and_changed_says_what_the_store_holds(tmp_path, strategy):
    code, out = run(tmp_path, TWO_GROUPS.replace('STRATEGY', strategy))
    assert code != 0, out
    assert 'h03 (ipam_static_address 192.0.2.7)' in out and '(error address_out_of_pool)' in out, out
    recap = dict(re.findall(r'^(h\d\d) +: ok=\d+ +changed=(\d+)', out, re.M))
    if strategy in ('linear', 'debug'):
        # one batch: nothing written for any host, and no host counted changed
        assert held(tmp_path) == {}, out
        assert 'Nothing was written for any host of the batch.' in out, out
        assert all(n == '0' for n in recap.values()), out
        assert recap or strategy == 'debug', out    # the debug strategy stops in its debugger (no stdin): no recap
    else:
        # each host on its own: h03 fails alone, the others hold their address, and only they changed
        others = [h for h in HOSTS if h != 'h03']
        assert sorted(held(tmp_path)) == others, out
        assert recap == dict((h, '0' if h == 'h03' else '1') for h in HOSTS), out


def test_a_play_started_inside_the_role_says_where_to_start(tmp_path):
    for task in ('Reserve or release the addresses of every host of the batch, in inventory order',
                 'Set the address facts of every host'):
        code, out = run(tmp_path, ROLE, '--start-at-task', task)
        assert code != 0, out
        assert "'__reserve_request' is undefined" not in out, out
        assert 'netpool.ipam.reserve: this host has no request of this run of the role' in out, out
        assert held(tmp_path) == {}, out


FAILURES = """
- name: The module and the role, each asked for a pool that does not exist
  hosts: h00
  gather_facts: false
  tasks:
    - name: The module
      netpool.ipam.reservation:
        pool: missing
        owner: h00
      register: module_failure
      ignore_errors: true
    - name: The role
      block:
        - name: Reserve
          ansible.builtin.include_role:
            name: netpool.ipam.reserve
          vars:
            ipam_pool: missing
      rescue:
        - name: Write both failures
          ansible.builtin.copy:
            content: "{{ {'module': module_failure, 'role': ansible_failed_result} | to_json }}"
            dest: "{{ playbook_dir }}/failures.json"
            mode: '0600'
          delegate_to: localhost
"""


def test_a_failure_through_the_role_says_what_the_module_says(tmp_path):
    """The role's failure is the module's (one failure path): the same ``error`` code, and the module's message in
    the role's, which names the host that asked."""
    code, out = run(tmp_path, FAILURES)
    assert code == 0, out
    failures = json.loads((tmp_path / 'failures.json').read_text())
    module, role = failures['module'], failures['role']
    assert module['failed'] and role['failed'], out
    assert module['error'] == role['error'] == 'pool_not_found', failures
    assert role['msg'] == 'netpool.ipam.reserve: h00: %s (error pool_not_found)' % module['msg'], failures
