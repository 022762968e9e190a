# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A mistyped store path (``ipam.sqlte``) makes a second, empty store rather than failing: the task that makes a
store says so, in its result (``store_created``, ``store``) and, at ``-v``, in a line naming the path; not in a
warning (the first run of a plan makes its store: docs/stores.md, "A store that is not there"). The tasks after it,
and reads, say nothing (a read of a store that does not exist creates none and reads as empty). Through
ansible-playbook, on each file store, and on a PostgreSQL database without tables (in process, as the modules run
there).
"""

import json

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.plugins import params
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook

PLAYBOOK = """
- name: Use a store that is not there
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Read it (creates nothing)
      netpool.ipam.info: {store: "{{ store }}"}
      register: read
    - name: Reserve in check mode (creates nothing)
      netpool.ipam.reservation: {store: "{{ store }}", pool: web, owner: h1}
      check_mode: true
      ignore_errors: true
      register: checked
    - name: Declare a pool (creates the store)
      netpool.ipam.pool: {store: "{{ store }}", name: web, cidr: 10.0.0.0/24}
      register: made
    - name: Reserve (the store is there now)
      netpool.ipam.reservation: {store: "{{ store }}", pool: web, owner: h1}
      register: reserved
    - name: Write down the results
      ansible.builtin.copy:
        content: "{{ {'read': read, 'checked': checked, 'made': made, 'reserved': reserved} | to_json }}"
        dest: results.json
        mode: "0600"
    - name: Allocate with the lookup on another store that is not there (creates it)
      ansible.builtin.debug:
        msg: "{{ lookup('netpool.ipam.address', 'web', owner='h1', allocate=true, store=store ~ '.other') }}"
      ignore_errors: true
"""


@pytest.mark.parametrize('verbose', [False, True])
def test_the_task_that_makes_a_store_says_so_and_names_it(tmp_path, verbose):
    name = 'ipam.sqlte'
    (tmp_path / 'play.yml').write_text(PLAYBOOK)
    done = run_playbook('-i', 'localhost,', '-c', 'local', '-e', 'store=%s' % name, 'play.yml',
                        *(['-v'] if verbose else []), cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    results = json.loads((tmp_path / 'results.json').read_text())
    path = str(tmp_path / name)
    assert [k for k, r in sorted(results.items()) if r.get('store_created')] == ['made']
    assert results['made']['store'] == path and results['made']['changed'] is True
    assert [k for k, r in sorted(results.items()) if r.get('warnings')] == [], done.stdout
    assert results['read']['pools'] == []
    # no warning of the collection's own (the lookup's failure is the one the play ignores)
    assert [line for line in done.stdout.splitlines() if '[WARNING]' in line and 'netpool.ipam' in line] == [], \
        done.stdout
    line = 'netpool.ipam created a new, empty store at %s: there was none there.' % path
    assert done.stdout.count(line) == (1 if verbose else 0), done.stdout
    # the lookup's store (a pool it does not have: it fails, and so makes nothing)
    assert 'netpool.ipam created a new, empty store at %s.other' % path not in done.stdout
    assert not (tmp_path / (name + '.other')).exists()


def made_by_which(spec):
    """info, check mode, the first change, a change after it: which of them said they made the store."""
    try:
        results = [_runner.run('info', params('info', spec)),
                   _runner.run('pool', params('pool', spec, name='web', cidr='10.0.0.0/24'), check=True),
                   _runner.run('pool', params('pool', spec, name='web', cidr='10.0.0.0/24')),
                   _runner.run('reservation', params('reservation', spec, pool='web', owner='h1'))]
    finally:
        _runner.close_all()
    said = [i for i, r in enumerate(results) if r.get('store_created')]
    assert [r.get('warnings') for r in results] == [None] * 4
    return said


def test_a_json_document_made_by_a_task_says_so(tmp_path):
    assert made_by_which(str(tmp_path / 'ipam.json')) == [2]


def test_a_postgresql_database_given_its_tables_by_a_task_says_so():
    server.require_server()
    with server.fresh_schema('created') as (url, _schema):
        assert made_by_which(url) == [2]
