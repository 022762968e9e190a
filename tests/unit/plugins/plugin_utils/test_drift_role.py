# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The drift role on real ansible-playbook runs: local hosts whose configured addresses are ``ipam_drift_addresses``
(one host's are its gathered facts), a real SQLite store.

One playbook of independent plays, each in its own namespace, run three times (check mode, for real, again):
the ``linear`` strategy with ``ipam_drift_fail`` and ``ipam_drift_adopt`` (one store read and one adoption for the
batch), ``free`` with adoption (each host alone), ``serial: 2`` with ``ipam_pool`` and a host left out by
``--limit``, a role-level ``when`` that skips the first host (each host alone), ``include_role`` with such a ``when``
(the others together), ``host_pinned`` with adoption (each host alone, as under ``free``: its own store read, its own
table, its own adoption), and gathered facts. What is checked: every host's
``ipam_drift`` (missing, unreserved, foreign), the table, the failure of the host with a foreign address, the
store after each run (check mode writes nothing; adoption writes exactly the unreserved addresses of the hosts
that adopt), and a rerun after adoption that changes nothing.
"""

import json
import os
import re
import sqlite3
import sys

import psycopg

from ansible_collections.netpool.ipam.tests.support import postgresql_server
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 4)))

#: the namespaces of the plays that share one shape: (prefix of the host names, namespace)
SHAPES = [('la', 'lin'), ('fb', 'free'), ('sc', 'serial'), ('wd', 'when'), ('wi', 'include'), ('hp', 'pinned')]

INVENTORY = """
localhost ansible_connection=local
[all:vars]
ansible_connection=local
%s
[facts]
gx ansible_python_interpreter=%s
"""

# X1 holds .10 (configured) and .15 (missing), configures .11 (unreserved); X2 configures .12 (X3's: foreign),
# .20 (unreserved) and two addresses in no pool; X3 holds .12 (missing) and configures .30 (unreserved)
GROUP = """[%(p)s]
%(p)s1 ipam_drift_addresses='["10.80.0.10/24", "10.80.0.11"%(extra1)s]'
%(p)s2 ipam_drift_addresses='["10.80.0.12", "10.80.0.20", "192.0.2.1", "2001:db8::1"]'
%(p)s3 ipam_drift_addresses='["10.80.0.30"]'
%(more)s
"""

PLAN = """
- name: The plan, in every namespace (also in check mode)
  hosts: localhost
  gather_facts: false
  check_mode: false
  tasks:
    - name: Pool p in each namespace
      netpool.ipam.pool: {name: p, cidr: 10.80.0.0/24, namespace: "{{ item }}"}
      loop: [lin, free, serial, when, include, pinned]
    - name: Pool q beside p, which ipam_pool p leaves out
      netpool.ipam.pool: {name: q, cidr: 10.81.0.0/24, namespace: serial}
    - name: What X1 and X3 hold
      netpool.ipam.reservation:
        {pool: p, namespace: "{{ item.0 }}", owner: "{{ item.0 | extract(names) }}{{ item.1.n }}",
         key: "{{ item.1.key }}", address: "{{ item.1.address }}"}
      loop: "{{ ['lin', 'free', 'serial', 'when', 'include', 'pinned'] | product([{'n': 1, 'key': 'eth0', 'address': '10.80.0.10'},
                {'n': 1, 'key': 'eth1', 'address': '10.80.0.15'}, {'n': 3, 'key': 'eth0', 'address': '10.80.0.12'}])
                | list }}"
      vars:
        names: {lin: la, free: fb, serial: sc, when: wd, include: wi, pinned: hp}
    - name: The pool of the host whose facts are gathered (its first IPv4 address's /24)
      netpool.ipam.pool:
        name: f
        namespace: facts
        cidr: "{{ (hostvars.gx.ansible_facts.all_ipv4_addresses[0].split('.')[:3] | join('.')) ~ '.0/24' }}"
      when: hostvars.gx.ansible_facts.all_ipv4_addresses | default([]) | length > 0
      tags: [facts]
"""

FACTS = """
- name: Gather the network facts of gx
  hosts: facts
  gather_facts: false
  tags: [facts]
  tasks:
    - name: Network facts
      ansible.builtin.setup:
        gather_subset: ['!all', '!min', network]
"""

# after the plays, one task writes every host's ipam_drift (facts live on across the plays of a run), and the
# addresses gathered for gx
REPORT = """
- name: Write what the role found
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Every host's ipam_drift
      ansible.builtin.copy:
        content: >-
          {{ dict(groups.all | map('extract', hostvars) | selectattr('ipam_drift', 'defined')
                  | map(attribute='inventory_hostname')
                  | zip(groups.all | map('extract', hostvars) | selectattr('ipam_drift', 'defined')
                        | map(attribute='ipam_drift')))
             | combine({'gathered': hostvars.gx.ansible_facts.all_ipv4_addresses | default(none)}) | to_json }}
        dest: "{{ playbook_dir }}/found.json"
        mode: '0600'
      check_mode: false
"""

# a play whose strategy runs each host on its own (free, host_pinned): each host reads the store and adopts alone
ALONE = """- name: %(strategy)s, each host alone, adopting
  hosts: %(hosts)s
  gather_facts: false
  strategy: %(strategy)s
  roles:
    - role: netpool.ipam.drift
      vars: {ipam_drift_adopt: true, ipam_namespace: %(namespace)s}
"""

PLAYS = """
- name: Linear, failing the host with a foreign address, adopting for the others
  hosts: la
  gather_facts: false
  module_defaults:
    group/netpool.ipam.all: {namespace: lin}
  roles:
    - role: netpool.ipam.drift
      vars: {ipam_drift_adopt: true, ipam_drift_fail: true}
""" + ALONE % dict(strategy='free', hosts='fb', namespace='free') + """
- name: Serial, in pool p only
  hosts: sc
  gather_facts: false
  serial: 2
  roles:
    - role: netpool.ipam.drift
      vars: {ipam_drift_adopt: true, ipam_namespace: serial, ipam_pool: p}
- name: A when that skips the first host, without adoption
  hosts: wd
  gather_facts: false
  roles:
    - role: netpool.ipam.drift
      vars: {ipam_namespace: when}
      when: inventory_hostname != 'wd1'
- name: include_role with a when that skips the first host, the others together, adopting
  hosts: wi
  gather_facts: false
  tasks:
    - name: The role
      ansible.builtin.include_role:
        name: netpool.ipam.drift
      vars: {ipam_namespace: include, ipam_drift_adopt: true}
      when: inventory_hostname != 'wi1'
""" + ALONE % dict(strategy='host_pinned', hosts='hp', namespace='pinned') + """
- name: Gathered facts
  hosts: facts
  gather_facts: false
  tags: [facts]
  roles:
    - role: netpool.ipam.drift
      vars: {ipam_namespace: facts}
""" + REPORT


def run(tmp_path, *args, store=None):
    groups = ''.join(GROUP % dict(p=p, extra1=', "10.81.0.5"' if p == 'sc' else '',
                                  more="sc4 ipam_drift_addresses='[\"10.80.0.40\"]'" if p == 'sc' else '')
                     for p, _ns in SHAPES)
    (tmp_path / 'inventory.ini').write_text(INVENTORY % (groups, sys.executable))
    (tmp_path / 'play.yml').write_text(FACTS + PLAN + PLAYS)
    if (tmp_path / 'found.json').exists():
        (tmp_path / 'found.json').unlink()
    with open(os.path.join(ROOT, 'ansible.cfg')) as f:
        config = f.read().replace('collections_path = ./collections',
                                  'collections_path = %s' % os.path.join(ROOT, 'collections'))
    (tmp_path / 'ansible.cfg').write_text(config)
    proc = run_playbook('-i', 'inventory.ini', 'play.yml', '--limit', 'all:!sc4', *args, cwd=tmp_path,
                        env={'ANSIBLE_CONFIG': str(tmp_path / 'ansible.cfg'),
                             'NETPOOL_IPAM_STORE': store or str(tmp_path / 'ipam.sqlite')})
    return proc.returncode, proc.stdout


def held(tmp_path, store=None):
    """(namespace, owner, key, address) of every reservation of the store (the SQLite one, or PostgreSQL's)."""
    if store:
        with psycopg.connect(store) as db:
            return sorted(tuple(row) for row in db.execute(
                "SELECT namespace, owner, key, data::json->>'address' FROM reservation"))
    with sqlite3.connect(str(tmp_path / 'ipam.sqlite')) as db:
        return sorted(db.execute("SELECT namespace, owner, key, json_extract(data, '$.address') FROM reservation"))


def found(tmp_path):
    """host -> its ipam_drift, and the IPv4 addresses gathered for gx (None when its facts were not gathered)."""
    seen = json.loads((tmp_path / 'found.json').read_text())
    return seen, seen.pop('gathered')


def changed_hosts(out):
    return sorted(host for host, n in re.findall(r'^(\w+) +: ok=\d+ +changed=(\d+)', out, re.M)
                  if n != '0' and host != 'localhost')


PLANNED = [(ns, p + n, key, '10.80.0.%s' % last) for p, ns in SHAPES
           for n, key, last in (('1', 'eth0', 10), ('1', 'eth1', 15), ('3', 'eth0', 12))]


def expected(p, adopted=False):
    """The ipam_drift of hosts X1, X2, X3 of the group ``p`` (after their addresses were adopted, when ``adopted``)."""
    return {
        p + '1': dict(missing=[dict(address='10.80.0.15', pool='p', key='eth1')],
                      unreserved=[] if adopted else [dict(address='10.80.0.11', pool='p')], foreign=[]),
        p + '2': dict(missing=[], unreserved=[] if adopted else [dict(address='10.80.0.20', pool='p')],
                      foreign=[dict(address='10.80.0.12', pool='p', owner=p + '3', key='eth0')]),
        p + '3': dict(missing=[dict(address='10.80.0.12', pool='p', key='eth0')],
                      unreserved=[] if adopted else [dict(address='10.80.0.30', pool='p')], foreign=[]),
    }


def assert_found(tmp_path, out, adopted, facts=False):
    seen, addresses = found(tmp_path)
    gathered = seen.pop('gx', None)
    want = {}
    want.update(expected('la', adopted))
    want.update(expected('fb', adopted))
    want.update(expected('sc', adopted))
    want.update((h, d) for h, d in expected('wd').items() if h != 'wd1')           # skipped by the when
    want.update((h, d) for h, d in expected('wi', adopted).items() if h != 'wi1')
    want.update(expected('hp', adopted))
    assert seen == want, out
    if not facts:
        assert gathered is None and addresses is None, out
        return
    # gathered facts: the first IPv4 address is in pool f and held by no one; the others are in no pool
    assert gathered['missing'] == gathered['foreign'] == [], out
    assert (dict(address=addresses[0], pool='f') in gathered['unreserved']) if addresses else not gathered['unreserved']
    assert set(item['pool'] for item in gathered['unreserved']) <= {'f'}, out


#: what the second run adopts: la2 failed and adopted nothing, sc4 was left out by --limit, sc1's 10.81.0.5 is
#: outside ipam_pool p, the when play does not adopt, wi1 is skipped by the when of include_role
ADOPTED = [('lin', 'la1', 'default', '10.80.0.11'), ('lin', 'la3', 'default', '10.80.0.30'),
           ('include', 'wi2', 'default', '10.80.0.20'), ('include', 'wi3', 'default', '10.80.0.30')] + [
    (ns, p + n, 'default', address) for p, ns in SHAPES[1:3] + SHAPES[5:]
    for n, address in (('1', '10.80.0.11'), ('2', '10.80.0.20'), ('3', '10.80.0.30'))]


def assert_adopted(tmp_path, code, out, store=None):
    assert code == 2, out
    assert 'netpool.ipam.drift: la2 has configured 10.80.0.12, held by la3/eth0 (ipam_drift_fail)' in out
    assert held(tmp_path, store) == sorted(PLANNED + ADOPTED), out
    assert_found(tmp_path, out, adopted=False)


def test_drift_under_every_way_a_play_runs(tmp_path):
    code, out = run(tmp_path, '--check', '--diff')
    assert code == 2, out                       # la2 fails: it configures la3's address
    assert 'netpool.ipam.drift: la2 has configured 10.80.0.12, held by la3/eth0 (ipam_drift_fail)' in out
    assert 'run_once with the free strategy' not in out, out
    assert held(tmp_path) == sorted(PLANNED), out       # check mode writes nothing
    assert_found(tmp_path, out, adopted=False, facts=True)
    # one table for the linear batch, in inventory order, la2 with the holder of its foreign address; one for the
    # hosts include_role runs the role for
    assert re.search(r'"host +missing +unreserved +foreign",\s*"wi2 +- +10\.80\.0\.20 +10\.80\.0\.12 \(wi3/eth0\)",'
                     r'\s*"wi3 +10\.80\.0\.12 +10\.80\.0\.30 +-"\s*\]', out), out
    assert re.search(r'"host +missing +unreserved +foreign",\s*"la1 +10\.80\.0\.15 +10\.80\.0\.11 +-",\s*'
                     r'"la2 +- +10\.80\.0\.20 +10\.80\.0\.12 \(la3/eth0\)",\s*"la3 +10\.80\.0\.12 +10\.80\.0\.30 +-"',
                     out), out
    # host_pinned runs each host on its own: three tables of one line each, none naming two of the hosts
    for line in (r'"hp1 +10\.80\.0\.15 +10\.80\.0\.11 +-"', r'"hp2 +- +10\.80\.0\.20 +10\.80\.0\.12 \(hp3/eth0\)"',
                 r'"hp3 +10\.80\.0\.12 +10\.80\.0\.30 +-"'):
        assert re.search(r'"msg": \[\s*"host +missing +unreserved +foreign",\s*%s\s*\]' % line, out), (line, out)
    assert not re.search(r'"hp\d [^"]*",\s*"hp\d', out), out

    code, out = run(tmp_path, '--diff', '--skip-tags', 'facts')
    assert_adopted(tmp_path, code, out)

    code, out = run(tmp_path, '--skip-tags', 'facts')
    assert code == 2, out                       # la2 still configures la3's address
    assert changed_hosts(out) == [], out
    assert held(tmp_path) == sorted(PLANNED + ADOPTED), out
    seen, _addresses = found(tmp_path)
    for host in ('la1', 'la3', 'fb1', 'fb2', 'fb3', 'sc1', 'sc2', 'sc3', 'wi2', 'wi3'):
        assert seen[host] == expected(host[:2], adopted=True)[host], (host, out)


def test_the_same_plays_on_postgresql(tmp_path):
    # the role reaches the store through netpool.ipam.info and netpool.ipam.adopt only: one run, for real
    postgresql_server.require_server()
    with postgresql_server.fresh_schema('drift') as (url, _schema):
        code, out = run(tmp_path, '--skip-tags', 'facts', store=url)
        assert_adopted(tmp_path, code, out, store=url)
