# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Two controllers at once on one PostgreSQL store, through ansible-playbook.

Two ``ansible-playbook`` processes, each with its own 40-host inventory and
``forks: 10``, reserve from one pool at the same time: 80 distinct addresses,
each host's own, no failure. Needs ``ansible-playbook`` beside this Python
(``make venv``) and the PostgreSQL server (see postgresql_server.py).
"""

import json
import os
import subprocess
import sys

from ansible_collections.netpool.ipam.plugins.module_utils._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores import postgresql_server as server
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils.reliability import ansible_bin

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 5)))

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

    - name: Wait for the other controller, so that both reserve at the same time
      ansible.builtin.wait_for:
        path: "{{ out_dir }}/../ready-{{ other }}"
        timeout: 120
      delegate_to: localhost
      run_once: true

    - name: Reserve
      netpool.ipam.reservation:
        pool: shared
        owner: "{{ inventory_hostname }}"
      register: ipam

    - name: Write down what each host got
      ansible.builtin.copy:
        content: "{{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, ['ipam', 'reservation', 'address']))) | to_json }}"
        dest: "{{ out_dir }}/{{ side }}.json"
        mode: "0600"
      delegate_to: localhost
      run_once: true
"""


def test_two_controllers_forty_hosts_each_get_eighty_distinct_addresses(tmp_path):
    playbook = ansible_bin('ansible-playbook')
    with server.fresh_schema('pb') as (spec, _schema):
        store = open_store(spec)
        Service(store).pool('shared', subnets=[{'cidr': '10.20.0.0/24'}])
        store.close()
        (tmp_path / 'play.yml').write_text(PLAYBOOK)
        out = tmp_path / 'out'
        out.mkdir()
        env = dict(os.environ, NETPOOL_IPAM_STORE=spec, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'),
                   ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, 'collections'), ANSIBLE_FORKS='10',
                   ANSIBLE_PYTHON_INTERPRETER=sys.executable)
        procs = []
        for side in ('a', 'b'):
            inventory = tmp_path / ('%s.ini' % side)
            inventory.write_text('[all]\n' + ''.join('%s-%02d ansible_connection=local\n' % (side, i)
                                                     for i in range(40)))
            procs.append(subprocess.Popen(
                [playbook, '-i', str(inventory), '-f', '10', '-e', 'out_dir=%s' % out,
                 '-e', 'side=%s other=%s' % (side, 'b' if side == 'a' else 'a'), str(tmp_path / 'play.yml')],
                cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        outputs = [p.communicate(timeout=600)[0] for p in procs]
        for proc, output in zip(procs, outputs):
            assert proc.returncode == 0, output
            assert output.count('unreachable=0    failed=0') == 40, output
            assert output.count('changed: [') == 40 + 2, output   # the reservations, and the two files

        got = {}
        for side in ('a', 'b'):
            got.update(json.loads((out / ('%s.json' % side)).read_text()))
        assert len(got) == 80
        assert len(set(got.values())) == 80
        store = open_store(spec)
        held = Service(store).info(pool='shared')['reservations']
        store.close()
        assert dict((r['owner'], r['address']) for r in held) == got
        assert json.dumps(sorted(got)) == json.dumps(sorted('%s-%02d' % (s, i) for s in 'ab' for i in range(40)))
