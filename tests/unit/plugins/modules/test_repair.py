# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""netpool.ipam.repair writes, netpool.ipam.info does not: one real ansible-playbook run over a real SQLite store
whose free space is damaged behind its back (a bad merge or import deletes it).

- ``info`` with ``verify`` reports the damage and leaves it (the check mode repair after it still finds it);
- ``repair`` in check mode says what it would rebuild (changed, the diff of free spans) and writes nothing;
  ``repair`` rebuilds it, a rerun changes nothing; it takes its store from ``module_defaults`` of the action
  group ``netpool.ipam.all``;
- ``info`` with the deprecated ``repair: true`` still repairs, with a deprecation warning;
- ``playbooks/verify.yml`` (``netpool.ipam.verify``) with ``ipam_repair`` repairs through ``netpool.ipam.repair``;
- the reserve role's 1.0.0 entry point (``tasks_from: reserve``) still reserves.
"""


from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook

DAMAGE = '''
    - name: Delete the free space behind the store's back
      ansible.builtin.command:
        argv: ["{{ ansible_playbook_python }}", -c, "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]);
               c.execute('DELETE FROM free_span'); c.commit()", "{{ store }}"]
      changed_when: true
'''

PLAYBOOK = '''
- name: Repair writes, info does not
  hosts: h1
  gather_facts: false
  module_defaults:
    group/netpool.ipam.all:
      store: "{{ store }}"
  tasks:
    - name: A pool
      netpool.ipam.pool: {name: web, cidr: 10.0.0.0/28}

    - name: The reserve role through its 1.0.0 entry point
      ansible.builtin.include_role:
        name: netpool.ipam.reserve
        tasks_from: reserve
      vars:
        ipam_pool: web
%(damage)s
    - name: Verify with info
      netpool.ipam.info: {verify: true}
      register: verified

    - name: Repair in check mode, with a diff
      netpool.ipam.repair:
      check_mode: true
      diff: true
      register: predicted

    - name: Repair
      netpool.ipam.repair:
      register: repaired

    - name: Repair again
      netpool.ipam.repair:
      register: again
%(damage)s
    - name: Repair through info's deprecated option
      netpool.ipam.info: {repair: true}
      register: deprecated
%(damage)s
    - name: What each said
      ansible.builtin.assert:
        that:
          - ipam_address == '10.0.0.1'
          - verified is not changed and verified.problems | map(attribute='code') | list == ['free_space_mismatch']
          - predicted is changed and predicted.problems[0].repaired
          - predicted.diff.before['default/web'] == [] and predicted.diff.after['default/web'] == ['10.0.0.2-10.0.0.14']
          - repaired is changed and repaired.repaired | map(attribute='pool') | list == ['web']
          - again is not changed and again.problems == [] and again.repaired == []
          - deprecated is changed and deprecated.repaired | map(attribute='pool') | list == ['web']

- name: The verify playbook repairs
  ansible.builtin.import_playbook: netpool.ipam.verify
  vars:
    ipam_repair: true
    ipam_store: "{{ store }}"

- name: Nothing is left to repair
  hosts: h1
  gather_facts: false
  tasks:
    - name: Verify
      netpool.ipam.info: {verify: true, store: "{{ store }}"}
      register: after

    - name: The store is sound
      ansible.builtin.assert:
        that: after.problems == []
'''


def test_repair_writes_and_info_does_not(tmp_path):
    (tmp_path / 'site.yml').write_text(PLAYBOOK % {'damage': DAMAGE})
    (tmp_path / 'hosts.yml').write_text('all:\n  hosts:\n    h1: {ansible_connection: local}\n')
    proc = run_playbook('-i', 'hosts.yml', 'site.yml', '-e', 'store=%s' % (tmp_path / 'ipam.sqlite'), cwd=tmp_path,
                        env={'ANSIBLE_DEPRECATION_WARNINGS': '1'}, apart=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Param 'repair' is deprecated" in out and "collection 'netpool.ipam' version 2.0.0" in out, out
    assert 'free space was rebuilt (free_space_mismatch)' in out and 'No problem in namespace(s) default' in out, out
