# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Four controllers at once on one PostgreSQL store, through ansible-playbook.

Four ``ansible-playbook`` processes, each with its own 40-host inventory and
``forks: 20``, reserve from one pool at the same time: 160 distinct addresses,
each host's own, no failure. Once host by host (``netpool.ipam.reservation``
with ``owner``: 80 writers at once, each controller's hosts in two rounds of
its forks), once with ``roles/reserve`` (one
transaction per controller, in inventory order). Needs ``ansible-playbook``
beside this Python (``make venv``) and the PostgreSQL server (see
postgresql_server.py).
"""

import json
import os

import pytest
from netaddr import IPAddress

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.playbook import start_playbook

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 5)))

CONTROLLERS = 'abcd'
HOSTS = 40
FORKS = 20

PLAYBOOK = """
- name: Reserve an address for every host
  hosts: all
  gather_facts: false
  tasks:
    - name: Say this controller is ready
      ansible.builtin.copy:
        content: ready
        dest: "{{ out_dir }}/../ready-{{ side }}"
        mode: "0600"
      delegate_to: localhost
      run_once: true

    - name: Wait for the other controllers, so that all reserve at the same time
      ansible.builtin.wait_for:
        path: "{{ out_dir }}/../ready-{{ item }}"
        timeout: 300
      loop: "{{ others }}"
      delegate_to: localhost
      run_once: true

    - name: Reserve, host by host
      netpool.ipam.reservation:
        pool: shared
        owner: "{{ inventory_hostname }}"
      register: ipam
      when: mode == 'module'

    - name: Reserve, with the role (one transaction for the play)
      ansible.builtin.include_role:
        name: netpool.ipam.reserve
      vars:
        ipam_pool: shared
      when: mode == 'role'

    - name: Write down what each host got
      ansible.builtin.copy:
        content: >-
          {{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, ['ipam', 'reservation', 'address'])
                                           if mode == 'module' else
                                           ansible_play_hosts | map('extract', hostvars, 'ipam_address'))) | to_json }}
        dest: "{{ out_dir }}/{{ side }}.json"
        mode: "0600"
      delegate_to: localhost
      run_once: true
"""


@pytest.mark.parametrize('mode', ['module', 'role'])
def test_four_controllers_forty_hosts_each_get_a_hundred_and_sixty_distinct_addresses(tmp_path, mode):
    with server.fresh_schema('pb') as (spec, _schema):
        store = open_store(spec)
        Service(store).pool('shared', subnets=[{'cidr': '10.20.0.0/23'}])
        store.close()
        (tmp_path / 'play.yml').write_text(PLAYBOOK)
        out = tmp_path / 'out'
        out.mkdir()
        env = {'NETPOOL_IPAM_STORE': spec, 'ANSIBLE_FORKS': str(FORKS)}
        procs = []
        for side in CONTROLLERS:
            inventory = tmp_path / ('%s.ini' % side)
            inventory.write_text('[all]\n' + ''.join('%s-%03d ansible_connection=local\n' % (side, i)
                                                     for i in range(HOSTS)))
            others = json.dumps([c for c in CONTROLLERS if c != side])
            procs.append(start_playbook(
                '-i', inventory, '-f', str(FORKS), '-e', 'out_dir=%s' % out,
                '-e', '{"side": "%s", "others": %s, "mode": "%s"}' % (side, others, mode), tmp_path / 'play.yml',
                cwd=tmp_path, env=env))
        outputs = [p.communicate(timeout=1200)[0] for p in procs]
        for proc, output in zip(procs, outputs):
            assert proc.returncode == 0, output
            assert output.count('unreachable=0    failed=0') == HOSTS, output

        got, per_side = {}, {}
        for side in CONTROLLERS:
            per_side[side] = json.loads((out / ('%s.json' % side)).read_text())
            got.update(per_side[side])
        assert len(got) == len(CONTROLLERS) * HOSTS
        assert len(set(got.values())) == len(CONTROLLERS) * HOSTS
        store = open_store(spec)
        held = Service(store).info(pool='shared')['reservations']
        store.close()
        assert dict((r['owner'], r['address']) for r in held) == got
        assert sorted(got) == sorted('%s-%03d' % (s, i) for s in CONTROLLERS for i in range(HOSTS))
        if mode == 'role':      # one transaction per controller: its hosts hold consecutive addresses, in order
            for side, addresses in per_side.items():
                numbers = [int(IPAddress(addresses['%s-%03d' % (side, i)])) for i in range(HOSTS)]
                assert numbers == list(range(numbers[0], numbers[0] + HOSTS)), side
