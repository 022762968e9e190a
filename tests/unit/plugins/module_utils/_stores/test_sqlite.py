# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

import re
import sqlite3

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.suite import StoreContract, file_mode


class TestSqliteStore(StoreContract):

    @pytest.fixture
    def spec(self, tmp_path):
        return str(tmp_path / 'ipam.sqlite')


def test_files_are_private(tmp_path, monkeypatch):
    monkeypatch.setattr('os.umask', lambda mask: 0)
    path = tmp_path / 'ipam.sqlite'
    store = open_store(str(path))
    with store.transaction():
        store.add_history({'time': 't', 'namespace': 'default', 'object': 'pool', 'action': 'create'})
    for name in ('ipam.sqlite', 'ipam.sqlite-wal', 'ipam.sqlite-shm'):
        assert file_mode(str(tmp_path / name)) == 0o600, name
    store.close()


def test_relative_path_resolves_against_base_dir(tmp_path):
    (tmp_path / 'sub').mkdir()
    store = open_store('sub/ipam.db', base_dir=str(tmp_path))
    assert store.path == str(tmp_path / 'sub' / 'ipam.db')
    store.close()


def test_missing_directory_is_store_unavailable(tmp_path):
    with pytest.raises(IpamError) as info:
        open_store(str(tmp_path / 'nope' / 'ipam.sqlite'))
    assert info.value.code == 'store_unavailable'
    assert 'does not exist' in info.value.msg


@pytest.mark.parametrize('name, example', [('ipam', 'ipam.sqlite'), ('ipam.json', 'ipam.json')])
def test_a_directory_given_as_store_is_store_unavailable_naming_a_file_to_give(tmp_path, name, example):
    """A directory as store (SQLite or JSON, by its name) is not opened: the message says what it is and names a
    file in it to give instead; nothing is made in the directory."""
    directory = tmp_path / name
    directory.mkdir()
    for create in (True, False):
        with pytest.raises(IpamError) as info:
            open_store(str(directory), create=create)
        assert info.value.code == 'store_unavailable'
        assert '%s: it is a directory, not a store file' % directory in info.value.msg, info.value.msg
        assert 'store: %s' % (directory / example) in info.value.msg, info.value.msg
    assert list(directory.iterdir()) == []


def test_not_a_database_is_store_unavailable(tmp_path):
    path = tmp_path / 'ipam.sqlite'
    path.write_text('this is not sqlite ' * 100)
    with pytest.raises(IpamError) as info:
        open_store(str(path))
    assert info.value.code == 'store_unavailable'


def test_newer_schema_is_refused_and_untouched(tmp_path):
    path = str(tmp_path / 'ipam.sqlite')
    open_store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '99' WHERE name = 'schema_version'")
    conn.commit()
    conn.close()
    before = open(path, 'rb').read()
    with pytest.raises(IpamError) as info:
        open_store(path)
    assert info.value.code == 'store_version'
    assert open(path, 'rb').read() == before


def test_a_held_write_lock_gives_store_busy(tmp_path):
    path = str(tmp_path / 'ipam.sqlite')
    open_store(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute('BEGIN IMMEDIATE')
    store = open_store(path, timeout=0.2)
    with pytest.raises(IpamError) as info:
        with store.transaction():
            pass
    assert info.value.code == 'store_busy'
    other.execute('ROLLBACK')
    other.close()
    assert export_document(store)['pools'] == []
    store.close()


def test_the_hot_paths_look_rows_up_through_indexes(tmp_path):
    """Releasing every address of an owner without a pool, a sweep, and what a reservation asks before it
    allocates (leases and reuse delays that are due) search an index: none reads every row of the namespace
    (schema versions 2 and 3). Every statement the service sends is planned by SQLite itself."""
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
    store = open_store(str(tmp_path / 'ipam.sqlite'))
    svc = Service(store)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}], reuse_delay=60)
    svc.pool('db', subnets=[{'cidr': '10.1.0.0/24'}])
    for i in range(20):
        svc.reserve('web', 'h%d' % i, ttl='1h' if i % 2 else None)
        svc.reserve('db', 'h%d' % i)
    statements = []
    store._conn.set_trace_callback(statements.append)
    svc.release(owner='h1')                                 # by owner, in every pool of the namespace
    svc.release(pool='web', keep_owners=['h2', 'h3'])       # a sweep
    svc.reserve('web', 'new')                               # leases and reuse delays first
    store._conn.set_trace_callback(None)
    reads = [s for s in statements if s.lstrip().upper().startswith('SELECT')
             and (' reservation' in s or ' released' in s)]
    assert len(reads) >= 5
    for sql in reads:
        plan = [row[3] for row in store._conn.execute('EXPLAIN QUERY PLAN ' + sql)]
        # every step on these tables searches by more than the namespace
        wide = [step for step in plan if re.search(r'\b(reservation|released|r)\b', step)
                and (not step.startswith('SEARCH') or step.endswith('(namespace=?)'))]
        assert wide == [], (sql, plan)
    store.close()
