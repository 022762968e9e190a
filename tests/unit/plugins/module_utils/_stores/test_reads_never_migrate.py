# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A store shared by several controllers is never migrated by a read: an inventory refresh, ``info``, the lookup or
check mode on a controller with the newer collection leaves a store of the older schema version as it is, so the
controllers still on the older collection go on using it (before, one refresh migrated it and every one of them
then failed ``store_version``). The first change migrates it.

- A read-only PostgreSQL user (inventories, AWX report credentials) reads a store one version behind, and runs
  check mode on it, where migrating it failed ``permission denied``.
- Through ``ansible-inventory`` and ``ansible-playbook``: a SQLite store of the version before today's (the fixture
  of that version) is left byte for byte as it was by an inventory refresh, ``info``, a check-mode reservation and
  the lookup; a play that reserves migrates it.
"""

import os
import shutil
import sqlite3
import subprocess
import uuid

import pytest
from psycopg.conninfo import conninfo_to_dict

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.plugins import lookup, params
from ansible_collections.netpool.ipam.tests.support import playbook
from ansible_collections.netpool.ipam.tests.support.reliability import FIXTURES, ansible_bin, ansible_env

BEHIND = _base.SCHEMA_VERSION - 1


@pytest.fixture(autouse=True)
def no_cached_stores():
    _runner.close_all()
    yield
    _runner.close_all()


def version(conn, schema):
    return int(conn.execute("SELECT value FROM %s.meta WHERE name = 'schema_version'" % schema).fetchone()[0])


@pytest.fixture
def read_only_url():
    """``(owner's url, read-only user's url, schema)`` of a PostgreSQL store of the version before today's (its
    reservations keyed without family, as version 3 had them) holding pool web and h1's address; the read-only
    user may read its tables and nothing else."""
    assert BEHIND == 3      # (the schema below is version 3's)
    with server.fresh_schema('behind') as (url, schema):
        store = open_store(url)
        Service(store).pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
        Service(store).reserve('web', 'h1')
        store.close()
        role = 'netpool_reader_%s' % uuid.uuid4().hex[:8]
        with server.admin() as admin:
            for statement in ('ALTER TABLE {s}.reservation DROP CONSTRAINT reservation_pkey',
                              'ALTER TABLE {s}.reservation DROP COLUMN family',
                              'ALTER TABLE {s}.reservation ADD PRIMARY KEY (namespace, pool, owner, key)',
                              "UPDATE {s}.meta SET value = '3' WHERE name = 'schema_version'",
                              'CREATE ROLE {r} LOGIN', 'GRANT USAGE ON SCHEMA {s} TO {r}',
                              'GRANT SELECT ON ALL TABLES IN SCHEMA {s} TO {r}'):
                admin.execute(statement.format(s=schema, r=role))
            user = conninfo_to_dict(server.SERVER).get('user', '')
            reader = url.replace('//%s@' % user, '//%s@' % role, 1) if user else url.replace('//', '//%s@' % role, 1)
            try:
                yield url, reader, schema
            finally:
                _runner.close_all()
                admin.execute('DROP OWNED BY %s' % role)
                admin.execute('DROP ROLE %s' % role)


def test_a_read_only_postgresql_user_reads_a_store_one_version_behind_without_migrating_it(read_only_url):
    url, reader, schema = read_only_url
    info = _runner.run('info', params('info', reader, pool='web', history=True))
    assert [(r['owner'], r['address']) for r in info['reservations']] == [('h1', '10.0.0.1')]
    assert [h['action'] for h in info['history'] if h['object'] == 'reservation'] == ['reserve']
    check = _runner.run('reservation', params('reservation', reader, pool='web', owner='h2'), check=True)
    assert check['changed'] is True and check['reservation']['address'] == '10.0.0.2'
    assert lookup(['web'], owner='h1', store=reader) == ['10.0.0.1']
    with server.admin() as admin:
        assert version(admin, schema) == BEHIND
    # the owner's first change migrates it; the reader was granted the tables of the older version only
    assert _runner.run('reservation', params('reservation', url, pool='web', owner='h2'))['changed'] is True
    with server.admin() as admin:
        assert version(admin, schema) == _base.SCHEMA_VERSION


PLAYBOOK = """
- name: Read the store, as a controller with the newer collection does
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Read a pool
      netpool.ipam.info: {pool: web}
    - name: Reserve in check mode
      netpool.ipam.reservation: {pool: web, owner: newcomer}
      check_mode: true
    - name: Look up an address
      ansible.builtin.debug:
        msg: "{{ lookup('netpool.ipam.address', 'web', owner='web1') }}"
"""

CHANGE = """
- name: Reserve
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Reserve an address
      netpool.ipam.reservation: {pool: web, owner: newcomer}
"""


def sqlite_version(path, committed=False):
    """The schema version the SQLite store at ``path`` holds. Read as an immutable file (leaving no -wal/-shm file
    behind) while nothing has written to it; ``committed``: as any reader sees it, the write-ahead log included. A
    writer whose process ends before it closes the store (an Ansible worker ended by the controller) leaves its
    commits in the log, not yet in the file, and an immutable read would not see them."""
    conn = sqlite3.connect('file:%s?%s' % (path, 'mode=ro' if committed else 'immutable=1'), uri=True)
    try:
        return int(conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0])
    finally:
        conn.close()


def test_an_inventory_refresh_and_reads_leave_a_shared_sqlite_store_behind_and_a_change_migrates_it(tmp_path):
    path = str(tmp_path / 'ipam.sqlite')
    shutil.copyfile(os.path.join(FIXTURES, 'state-v%d.sqlite' % BEHIND), path)
    with open(path, 'rb') as f:
        original = f.read()
    (tmp_path / 'ipam.netpool.yml').write_text('plugin: netpool.ipam.reservations\nstore: %s\n' % path)
    (tmp_path / 'read.yml').write_text(PLAYBOOK)
    (tmp_path / 'change.yml').write_text(CHANGE)
    env = ansible_env(NETPOOL_IPAM_STORE=path, ANSIBLE_INVENTORY_UNPARSED_FAILED='true')

    def run(*argv):
        done = subprocess.run(argv, cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout
        return done.stdout
    listed = run(ansible_bin('ansible-inventory'), '-i', 'ipam.netpool.yml', '--list')
    assert '"web1"' in listed
    output = run(*playbook.command('-i', 'localhost,', '-c', 'local', 'read.yml'))
    assert 'failed=0' in output
    assert sqlite_version(path) == BEHIND
    with open(path, 'rb') as f:
        assert f.read() == original
    assert sorted(os.listdir(str(tmp_path))) == ['change.yml', 'ipam.netpool.yml', 'ipam.sqlite', 'read.yml']
    output = run(*playbook.command('-i', 'localhost,', '-c', 'local', 'change.yml'))
    assert 'changed=1' in output
    assert sqlite_version(path, committed=True) == _base.SCHEMA_VERSION
