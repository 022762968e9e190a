# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The collection's roles through ansible-playbook, as a user runs them.

- no role prints a secret (the store token, a URL's password) at -vvv, on success or when the batch fails;
- the reserve role accepts ``omit`` in its variables, and prints no [WARNING] of its own (make demo);
- its facts are each host's own, from variables of every level; a misspelled variable is named; a static
  clash names the host that asked.

Needs ``ansible-playbook`` beside this Python (``make venv``); the secret tests need the PostgreSQL server
(see postgresql_server.py).
"""

import json
import os
import re
import subprocess
import sqlite3

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook
from ansible_collections.netpool.ipam.tests.support.reliability import ansible_bin, ansible_env
from ansible_collections.netpool.ipam.tests.support import postgresql_server as server

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 4)))
PASSWORD = 'pw-Zq81kXv0SECRET'
TOKEN = 'tok-Hh27bYw5SECRET'

SECRET_PLAY = """
- name: Declare the pool
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools:
          - name: p
            cidr: "{{ cidr }}"

- name: Reserve
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
        ipam_static_address: "{{ static | default(omit) if inventory_hostname == 'n2' else omit }}"

- name: Publish
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.publish
      vars:
        ipam_publish: [hosts]
        ipam_publish_hosts_path: "{{ playbook_dir }}/hosts.out"
"""


def playbook(tmp_path, play, *args, **env):
    (tmp_path / 'play.yml').write_text(play)
    inventory = tmp_path / 'inventory.ini'
    if not inventory.exists():
        inventory.write_text('localhost ansible_connection=local\n[nodes]\nn1\nn2\n')
    proc = run_playbook('-i', inventory, tmp_path / 'play.yml', *args, cwd=tmp_path, env=env)
    return proc.returncode, proc.stdout


@pytest.mark.parametrize('secret', ['password', 'token'])
@pytest.mark.parametrize('outcome', ['success', 'failed batch', 'store down'])
def test_no_role_prints_a_secret(tmp_path, secret, outcome):
    server.require_server()
    with server.fresh_schema('roles') as (spec, _schema):
        if outcome == 'store down':      # every role fails to reach its store: the error is about the URL
            spec = spec.replace(':5432/', ':%d/' % server.closed_port())
        if secret == 'password':         # the server trusts 127.0.0.1: any password gets in
            store, token = spec.replace('postgres@', 'postgres:%s@' % PASSWORD, 1), ''
            assert PASSWORD in store
        else:
            store, token = spec, TOKEN
        extra = {'ipam_store': store, 'ipam_store_token': token, 'cidr': '10.61.0.0/24'}
        if outcome == 'store down':      # a closed port is retried until the timeout: a short one here
            extra['ipam_store_timeout'] = 1
        if outcome == 'failed batch':    # n2 asks for an address outside the pool: the batch fails
            extra['static'] = '192.0.2.7'
        code, out = playbook(tmp_path, SECRET_PLAY, '-vvv', '-e', json.dumps(extra))
        assert PASSWORD not in out and TOKEN not in out, out
        if outcome == 'success':
            assert code == 0, out
            assert '10.61.0.1' in out and '10.61.0.2' in out     # the role reached the store with the secret
            assert '10.61.0.1' in (tmp_path / 'hosts.out').read_text()
        elif outcome == 'failed batch':
            assert code != 0 and '(error address_out_of_pool)' in out, out
            assert 'netpool.ipam.reserve: n1, n2:' in out, out
        else:
            assert code != 0 and 'store_unavailable' in out, out


OMIT_PLAY = """
- name: Declare the pool
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools: [{name: p, cidr: 10.62.0.0/24}]

- name: Reserve with omit for every optional variable
  hosts: nodes
  gather_facts: false
  vars:
    play_key: "{{ 'eth1' if inventory_hostname == 'n2' else omit }}"
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
        ipam_key: "{{ play_key }}"
        ipam_family: "{{ nothing | default(omit) }}"
        ipam_ttl: "{{ nothing | default(omit) }}"
        ipam_static_address: "{{ nothing | default(omit) }}"
        ipam_mac: "{{ nothing | default(omit) }}"
        ipam_hostname: "{{ nothing | default(omit) }}"
        ipam_namespace: "{{ nothing | default(omit) }}"
        ipam_store: "{{ nothing | default(omit) }}"
        ipam_store_token: "{{ nothing | default(omit) }}"
        ipam_store_timeout: "{{ nothing | default(omit) }}"
  post_tasks:
    - name: Write down each host's facts
      ansible.builtin.copy:
        content: "{{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, 'ipam_reservation'))) | to_json }}"
        dest: "{{ playbook_dir }}/facts.json"
        mode: "0600"
      delegate_to: localhost
      run_once: true
"""


def warnings(out):
    """The warnings of a run (the first task on a new store says so in its result and at -v, not in one)."""
    return [line for line in out.splitlines() if 'WARNING' in line]


def test_reserve_role_accepts_omit_and_each_host_gets_its_own_facts(tmp_path):
    code, out = playbook(tmp_path, OMIT_PLAY, NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite'))
    assert code == 0, out
    assert warnings(out) == [], out
    facts = json.loads((tmp_path / 'facts.json').read_text())
    assert (facts['n1']['address'], facts['n1']['key']) == ('10.62.0.1', 'default')
    assert (facts['n2']['address'], facts['n2']['key']) == ('10.62.0.2', 'eth1')


def test_make_demo_warns_nothing_and_says_at_v_that_it_made_the_store(tmp_path):
    env = {'NETPOOL_IPAM_STORE': str(tmp_path / 'ipam.sqlite')}
    for run, verbose in (('first', []), ('rerun', ['-v'])):
        proc = run_playbook('-i', 'playbooks/inventory/demo.yml', 'playbooks/demo.yml', *verbose, cwd=ROOT, env=env)
        assert proc.returncode == 0, proc.stdout
        # the first run makes the store (the normal start of a plan): no warning; the rerun has nothing to say
        assert (tmp_path / 'ipam.sqlite').exists(), proc.stdout
        assert warnings(proc.stdout) == [], (run, proc.stdout)
        assert 'created a new, empty store' not in proc.stdout, (run, proc.stdout)
        assert 'web1    web    10.10.0.10/24      gateway 10.10.0.1' in proc.stdout, proc.stdout
    # at -v, the first run names the store it made, once
    (tmp_path / 'ipam.sqlite').unlink()
    proc = run_playbook('-i', 'playbooks/inventory/demo.yml', 'playbooks/demo.yml', '-v', cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout
    assert warnings(proc.stdout) == [], proc.stdout
    assert proc.stdout.count('netpool.ipam created a new, empty store at %s:' % (tmp_path / 'ipam.sqlite')) == 1, \
        proc.stdout


FRICTION_PLAY = """
- name: Declare the pool
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools: [{name: p, cidr: 10.63.0.0/24}]

- name: Reserve
  hosts: nodes
  gather_facts: false
  vars:
    ipam_stattic_address: 10.63.0.9
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
        ipam_static_address: "{{ clash if inventory_hostname == 'n2' else omit }}"
"""


def test_a_misspelled_variable_is_named_and_a_clash_names_the_host(tmp_path):
    store = str(tmp_path / 'ipam.sqlite')
    code, out = playbook(tmp_path, FRICTION_PLAY, '-e', 'clash=10.63.0.50', NETPOOL_IPAM_STORE=store)
    assert code == 0, out
    assert 'ipam_stattic_address is not one the role reads: did you mean ipam_static_address?' in out, out
    # n1 holds 10.63.0.1; n2 now asks for it
    code, out = playbook(tmp_path, FRICTION_PLAY, '-e', 'clash=10.63.0.1', NETPOOL_IPAM_STORE=store)
    assert code != 0, out
    assert 'n2 (ipam_static_address 10.63.0.1)' in out, out
    held = sqlite3.connect(store)   # nothing changed
    held.close()


RELOAD_PLAY = """
- name: Publish where the reload command cannot run (no systemd)
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.publish
      vars:
        ipam_publish: [hosts]
        ipam_publish_hosts_path: "{{ playbook_dir }}/hosts.out"
        ipam_publish_reload: {bind: /nonexistent/systemctl reload named}
  tasks:
    - name: Stand for a changed zone file
      ansible.builtin.command: "true"
      changed_when: true
      notify: Reload BIND (netpool.ipam.publish)
"""


def test_a_reload_that_cannot_run_says_which_variable_to_set(tmp_path):
    code, out = playbook(tmp_path, RELOAD_PLAY, NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite'))
    assert code != 0, out
    assert "reloading it with '/nonexistent/systemctl reload named' failed" in out, out
    assert "Set ipam_publish_reload.bind to the command that reloads it on this host" in out, out


def reserve_play(*variables):
    """Pool p (10.64.0.0/24) declared, then the reserve role on the group nodes with ipam_pool p and
    ``variables``, more role variables (YAML lines)."""
    return """
- name: Declare the pool
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools: [{name: p, cidr: 10.64.0.0/24}]

- name: Reserve
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
""" + ''.join('        %s\n' % line for line in variables)


ONE_TASK_PLAY = reserve_play('ipam_store_timeout: "{{ timeout | default(omit) }}"')


def test_reserve_role_documents_and_checks_the_variables_of_what_it_runs(tmp_path):
    """The spec is on the entry point main: ansible-doc documents what ``roles: [netpool.ipam.reserve]`` runs, and
    Ansible checks the variables of each host before the role's tasks; a wrong one writes nothing."""
    doc = subprocess.run([ansible_bin('ansible-doc'), '-t', 'role', '--json', 'netpool.ipam.reserve'], cwd=ROOT,
                         env=ansible_env(ANSIBLE_COLLECTIONS_PATH=os.path.join(os.path.realpath(ROOT), 'collections')),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    assert doc.returncode == 0, doc.stderr
    entry_points = json.loads(doc.stdout)['netpool.ipam.reserve']['entry_points']
    # reserve: 1.0.0's entry point (tasks_from: reserve), kept with the same variables
    assert sorted(entry_points) == ['main', 'reserve'], entry_points
    assert 'ipam_pool' in entry_points['main']['options']
    assert entry_points['reserve']['options'] == entry_points['main']['options']
    store = tmp_path / 'other.sqlite'
    code, out = playbook(tmp_path, ONE_TASK_PLAY, '-e', 'timeout=soon ipam_state=bogus', NETPOOL_IPAM_STORE=str(store))
    assert code != 0, out
    assert 'value of ipam_state must be one of: present, absent, got: bogus' in out, out
    assert "argument 'ipam_store_timeout' is of type" in out, out
    with sqlite3.connect(str(store)) as db:
        assert db.execute('SELECT COUNT(*) FROM reservation').fetchone() == (0,)


DUAL_PLAY = """
- name: Declare a dual-stack pool, and give n1 an IPv4 address of its own first
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools:
          - name: dual
            subnets:
              - {cidr: 10.64.0.0/24, gateway: 10.64.0.1, dns: [10.64.0.2], ranges: [10.64.0.10-10.64.0.20]}
              - {cidr: "2001:db8:64::/64", gateway: "2001:db8:64::1", ranges: ["2001:db8:64::10-2001:db8:64::20"]}
  tasks:
    - name: n1 holds an IPv4 address already
      netpool.ipam.reservation:
        pool: dual
        owner: n1
        address: 10.64.0.15
"""


def test_reserve_role_with_family_dual_sets_both_and_the_templates_render_both(tmp_path):
    """ipam_family: dual through playbooks/reserve.yml: ipam_address/ipam_cidr (IPv4) and ipam_address6/ipam_cidr6
    (IPv6) for each host, n1's IPv4 address kept; the shipped netplan and ifcfg templates render both; a rerun changes
    nothing."""
    store = str(tmp_path / 'ipam.sqlite')
    code, out = playbook(tmp_path, DUAL_PLAY, NETPOOL_IPAM_STORE=store)
    assert code == 0, out
    render = tmp_path / 'network'
    args = ['-i', str(tmp_path / 'inventory.ini'),
            os.path.join(ROOT, 'playbooks', 'reserve.yml'), '-e', 'target=nodes ipam_pool=dual ipam_family=dual',
            '-e', 'render_dir=%s' % render]
    for run in ('first', 'rerun'):
        proc = run_playbook(*args, cwd=tmp_path, env={'NETPOOL_IPAM_STORE': store})
        assert proc.returncode == 0, proc.stdout
        if run == 'rerun':
            assert re.search(r'n1 +: ok=\d+ +changed=0 ', proc.stdout), proc.stdout
        assert '10.64.0.15/24      gateway 10.64.0.1, 2001:db8:64::10/64 gateway 2001:db8:64::1' in proc.stdout, \
            proc.stdout
        assert '10.64.0.10/24      gateway 10.64.0.1, 2001:db8:64::11/64 gateway 2001:db8:64::1' in proc.stdout
    netplan = (render / 'n2' / '60-netpool.yaml').read_text()
    assert '- 10.64.0.10/24\n        - 2001:db8:64::11/64\n' in netplan, netplan
    assert 'via: 10.64.0.1\n' in netplan and 'via: "2001:db8:64::1"' in netplan, netplan
    ifcfg = (render / 'n1' / 'ifcfg-eth0').read_text()
    assert 'IPADDR=10.64.0.15\nPREFIX=24\nGATEWAY=10.64.0.1\n' in ifcfg, ifcfg
    assert 'IPV6INIT=yes\nIPV6ADDR=2001:db8:64::10/64\nIPV6_DEFAULTGW=2001:db8:64::1\n' in ifcfg, ifcfg
    assert 'DNS1=10.64.0.2\n' in ifcfg
    with sqlite3.connect(store) as conn:
        found = conn.execute("SELECT owner, family, COUNT(*) FROM reservation GROUP BY owner, family "
                             "ORDER BY owner, family").fetchall()
    assert found == [('n1', 4, 1), ('n1', 6, 1), ('n2', 4, 1), ('n2', 6, 1)]


CHANGED_PLAY = reserve_play(
    'ipam_state: "{{ state | default(\'present\') }}"',
    'ipam_static_address: "{{ static if inventory_hostname == \'n2\' and static is defined else omit }}"')


def changed_hosts(out):
    """The hosts that PLAY RECAP counts changed, with how many changes."""
    return dict((host, int(n)) for host, n in re.findall(r'^(n\d) +: ok=\d+ +changed=(\d+)', out, re.M) if n != '0')


def test_reserve_role_marks_changed_the_hosts_whose_address_changed(tmp_path):
    """PLAY RECAP counts a change on each host whose address is new, moved or released, once."""
    env = dict(NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite'))
    code, out = playbook(tmp_path, CHANGED_PLAY, **env)
    assert code == 0, out
    assert changed_hosts(out) == {'n1': 1, 'n2': 1}, out
    code, out = playbook(tmp_path, CHANGED_PLAY, **env)
    assert code == 0 and changed_hosts(out) == {}, out
    # a host added to the inventory: only it
    (tmp_path / 'inventory.ini').write_text('localhost ansible_connection=local\n[nodes]\nn1\nn2\nn3\n')
    code, out = playbook(tmp_path, CHANGED_PLAY, **env)
    assert code == 0 and changed_hosts(out) == {'n3': 1}, out
    # check mode says the same as the run it predicts: n2 moving to a static address, then its run
    for args in (['--check'], []):
        code, out = playbook(tmp_path, CHANGED_PLAY, '-e', 'static=10.64.0.200', *args, **env)
        assert code == 0 and changed_hosts(out) == {'n2': 1}, out


RETURN_PLAY = """
- name: Declare the pool, whose released addresses rest an hour
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools: [{name: p, cidr: 10.64.0.0/24, reuse_delay: 3600}]

- name: Reserve
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: p
        ipam_state: "{{ state | default('present') }}"
  tasks:
    - name: Show the address
      ansible.builtin.debug:
        msg: "ADDRESS {{ inventory_hostname }} {{ ipam_address | default('none', true) }}"
"""


def addresses(out):
    """{host: address} the play showed."""
    return dict(re.findall(r'ADDRESS (n\d) (\S+)"', out))


def test_reserve_role_gives_a_host_back_the_address_it_released_within_the_reuse_delay(tmp_path):
    """A host released (decommissioned) and reserved again (re-provisioned) while its address rests keeps that
    address; a host added meanwhile takes the next free one."""
    env = dict(NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite'))
    code, out = playbook(tmp_path, RETURN_PLAY, **env)
    assert code == 0 and addresses(out) == {'n1': '10.64.0.1', 'n2': '10.64.0.2'}, out
    code, out = playbook(tmp_path, RETURN_PLAY, '-e', 'state=absent', '--limit', 'localhost,n1', **env)
    assert code == 0, out
    (tmp_path / 'inventory.ini').write_text('localhost ansible_connection=local\n[nodes]\nn1\nn2\nn3\n')
    code, out = playbook(tmp_path, RETURN_PLAY, '--limit', 'localhost,n3', **env)
    assert code == 0 and addresses(out) == {'n3': '10.64.0.3'}, out
    for args in (['--check'], []):
        code, out = playbook(tmp_path, RETURN_PLAY, *args, **env)
        assert code == 0 and addresses(out) == {'n1': '10.64.0.1', 'n2': '10.64.0.2', 'n3': '10.64.0.3'}, out


ALIGN_PLAY = """
- name: Declare the management and storage pools; n1 and n2 are .23 and .24 in management
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools: [{name: mgmt, cidr: 10.66.0.0/24}, {name: storage, cidr: 10.67.0.0/24}]
  tasks:
    - name: Management addresses
      netpool.ipam.reservation:
        pool: mgmt
        owners: [{owner: n1, address: 10.66.0.23}, {owner: n2, address: 10.66.0.24}]
      when: not (moved | default(false) | bool)

- name: Storage addresses aligned with management
  hosts: nodes
  gather_facts: false
  roles:
    - role: netpool.ipam.reserve
      vars:
        ipam_pool: storage
        ipam_align_with: mgmt
"""


def test_reserve_role_with_ipam_align_with_aligns_the_play_together(tmp_path):
    """ipam_align_with: every host of the play at its management host part, in one transaction; a rerun changes
    nothing, a host moved in management moves (and only it is changed); a host with nothing in management fails the
    play and nothing is written for any host."""
    store = str(tmp_path / 'ipam.sqlite')
    env = dict(NETPOOL_IPAM_STORE=store)
    code, out = playbook(tmp_path, ALIGN_PLAY, **env)
    assert code == 0, out
    assert re.search(r'n1 +storage +10\.67\.0\.23/24', out) and re.search(r'n2 +storage +10\.67\.0\.24/24', out), out
    assert changed_hosts(out) == {'n1': 1, 'n2': 1}, out
    code, out = playbook(tmp_path, ALIGN_PLAY, **env)
    assert code == 0 and changed_hosts(out) == {}, out
    opened = open_store(store)
    Service(opened).reserve('mgmt', 'n1', address='10.66.0.40')     # n1 moves in management
    opened.close()
    for args in (['--check'], []):      # check mode predicts the move the run makes; only n1 changes
        code, out = playbook(tmp_path, ALIGN_PLAY, '-e', 'moved=true', *args, **env)
        assert code == 0 and changed_hosts(out) == {'n1': 1}, out
        assert re.search(r'n1 +storage +10\.67\.0\.40/24', out), out
    (tmp_path / 'inventory.ini').write_text('localhost ansible_connection=local\n[nodes]\nn1\nn2\nn3\n')
    opened = open_store(store)
    Service(opened).reserve('mgmt', 'n1', address='10.66.0.41')
    opened.close()
    code, out = playbook(tmp_path, ALIGN_PLAY, '-e', 'moved=true', **env)
    assert code != 0 and 'not_reserved' in out and "'n3'" in out, out
    with sqlite3.connect(store) as db:      # n1 did not follow: nothing was written for any host
        assert db.execute("SELECT COUNT(*) FROM reservation WHERE pool = 'storage'").fetchone() == (2,)
    opened = open_store(store)
    assert Service(opened).get('storage', 'n1')['address'] == '10.67.0.40'
    opened.close()


PUBLISH_DIRECTORIES_PLAY = """
- name: Declare a pool with a host that has a MAC and a name
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools: [{name: lan, cidr: 10.65.0.0/24, metadata: {domain: lab.test}}]
  tasks:
    - name: Reserve for web1
      netpool.ipam.reservation:
        pool: lan
        owner: web1
        metadata: {mac: "52:54:00:00:00:01"}

- name: Publish every file into directories that do not exist yet (but one)
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.publish
      vars:
        ipam_publish: [kea_dhcp4, kea_dhcp6, dnsmasq, hosts, bind]
        ipam_publish_kea_dhcp4_path: "{{ playbook_dir }}/out/kea4/sub/kea-dhcp4.conf"
        ipam_publish_kea_dhcp6_path: "{{ playbook_dir }}/out/kea6/kea-dhcp6.conf"
        ipam_publish_dnsmasq_path: "{{ playbook_dir }}/out/dnsmasq.d/netpool-ipam.conf"
        ipam_publish_hosts_path: "{{ playbook_dir }}/out/etc/hosts"
        ipam_publish_bind_dir: "{{ playbook_dir }}/out/bind/zones"
        ipam_publish_bind_conf: "{{ playbook_dir }}/out/bind-conf/named.conf.netpool-ipam"
        # the role's own checks of the written files, without the servers' checkers
        ipam_publish_validate: {kea_dhcp4: test -s %s, kea_dhcp6: test -s %s, dnsmasq: test -s %s,
                                bind_zone: test -s %s, bind_conf: test -s %s}
        ipam_publish_reload: {}
"""


def test_publish_makes_the_directory_of_every_file_and_leaves_an_existing_one_as_it_is(tmp_path):
    """Kea, dnsmasq, /etc/hosts and BIND alike: a directory that does not exist is made (with its parents) before
    the file is written; one that exists keeps its mode (Debian's /etc/bind is setgid). A rerun changes nothing."""
    existing = tmp_path / 'out' / 'kea6'
    existing.mkdir(parents=True)
    existing.chmod(0o2750)
    env = dict(NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite'))
    code, out = playbook(tmp_path, PUBLISH_DIRECTORIES_PLAY, **env)
    assert code == 0, out
    made = dict((str(path.relative_to(tmp_path / 'out')), oct(path.stat().st_mode & 0o7777))
                for path in (tmp_path / 'out').rglob('*') if path.is_dir())
    assert made == {'kea4': '0o755', 'kea4/sub': '0o755', 'kea6': '0o2750', 'dnsmasq.d': '0o755', 'etc': '0o755',
                    'bind': '0o755', 'bind/zones': '0o755', 'bind-conf': '0o755'}, made
    assert '"hw-address": "52:54:00:00:00:01"' in (tmp_path / 'out' / 'kea4' / 'sub' / 'kea-dhcp4.conf').read_text()
    assert (tmp_path / 'out' / 'kea6' / 'kea-dhcp6.conf').exists()
    dnsmasq = (tmp_path / 'out' / 'dnsmasq.d' / 'netpool-ipam.conf').read_text()
    assert 'dhcp-host=52:54:00:00:00:01,10.65.0.1,web1' in dnsmasq
    assert 'web1.lab.test' in (tmp_path / 'out' / 'etc' / 'hosts').read_text()
    assert (tmp_path / 'out' / 'bind' / 'zones' / 'lab.test.zone').exists()
    assert 'lab.test.zone' in (tmp_path / 'out' / 'bind-conf' / 'named.conf.netpool-ipam').read_text()
    code, out = playbook(tmp_path, PUBLISH_DIRECTORIES_PLAY, **env)
    assert code == 0 and re.search(r'localhost +: ok=\d+ +changed=0 ', out), out


CHILD_PLAY = """
- name: A plan with a child by ranges
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_pools:
          - {name: site, cidr: 10.66.0.0/24}
          - {name: vips, parent: site, ranges: ["{{ vips }}"]}
  tasks:
    - name: Hold a VIP
      netpool.ipam.reservation: {pool: vips, owner: vip1}
      when: hold | default(false) | bool
"""


def error_lines(out):
    return [line for line in out.splitlines() if line.startswith('[ERROR]')]


def test_pools_role_fails_a_child_with_the_modules_message_first(tmp_path):
    """A child pool that cannot be carved fails with the module's message (and its error code) as the play's
    headline, not "A 'failed_when' expression evaluated to 'True'"; in check mode a child of a parent that the same
    run declares is still no failure."""
    env = dict(NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite'))
    code, out = playbook(tmp_path, CHILD_PLAY, '--check', '-e', 'vips=10.66.0.240-10.66.0.250', **env)
    assert code == 0 and error_lines(out) == [], out
    code, out = playbook(tmp_path, CHILD_PLAY, '-e', 'vips=10.66.0.240-10.66.0.250 hold=true', **env)
    assert code == 0, out
    code, out = playbook(tmp_path, CHILD_PLAY, '-e', 'vips=10.66.0.245-10.66.0.250', **env)
    assert code != 0, out
    assert "'failed_when'" not in out, out
    headline = error_lines(out)
    assert len(headline) == 1 and "pool 'vips'" in headline[0] and '10.66.0.240' in headline[0], out
    assert headline[0].endswith('(error pool_in_use)'), out


NOTHING_PLAY = """
- name: The plan, as written
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
%s
"""


@pytest.mark.parametrize('variables, misspelled', [
    ('      vars:\n        ipam_pool: [{name: p, cidr: 10.67.0.0/24}]', 'ipam_pool'),
    ('      vars:\n        ipam_pools: []', None),
    ('', None),
    ('      vars:\n        ipam_pols: [{name: p, cidr: 10.67.0.0/24}]', 'ipam_pols'),
], ids=['ipam_pool', 'empty', 'not set', 'ipam_pols'])
def test_pools_role_warns_when_there_is_nothing_to_declare(tmp_path, variables, misspelled):
    """ipam_pool for ipam_pools (the reserve role's variable), ipam_pools empty or not set: the play goes on
    (nothing declared) with a warning that there is nothing to declare, naming the misspelled variable."""
    code, out = playbook(tmp_path, NOTHING_PLAY % variables, NETPOOL_IPAM_STORE=str(tmp_path / 'ipam.sqlite'))
    assert code == 0, out
    assert '[WARNING]: netpool.ipam.pools: nothing to declare: set ipam_pools' in out, out
    if misspelled:
        assert ('[WARNING]: netpool.ipam.pools: the variable %s is not one the role reads: did you mean ipam_pools?'
                % misspelled) in out, out
    else:
        assert out.count('[WARNING]') == 1, out
