# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Reads and check mode write nothing, on the real stores.

- ``info``, check mode and the lookup without ``allocate`` on a store that does
  not exist: no file and no ``.lock`` for SQLite and JSON; no table in an empty
  PostgreSQL database (a database of its own per test, dropped afterwards).
- A store at an older schema version is never migrated by the same reads (a
  controller still on the older collection goes on using a store it shares):
  SQLite is read through the migration in a copy in memory, its file byte for
  byte as it was; PostgreSQL through temporary tables of today's version,
  filled from its tables by each transaction; a JSON document through the
  migration in memory (a plan kept in git shows no diff). The first change
  migrates it (writes it at today's version). The next schema version is pretended (``SCHEMA_VERSION``
  and ``MIGRATIONS`` monkeypatched, as in test_upgrade.py).
"""

import json
import os
import sqlite3
import uuid

import psycopg
import pytest
from ansible.errors import AnsibleError
from psycopg.conninfo import conninfo_to_dict

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance import _transfer
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError, StoreAbsent
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base, _json, _postgresql, _sqlite
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.plugins import lookup, params


@pytest.fixture(autouse=True)
def no_cached_stores():
    _runner.close_all()
    yield
    _runner.close_all()


@pytest.fixture
def database():
    """``(url, admin connection)`` of a new PostgreSQL database with no table; dropped afterwards."""
    server.require_server()
    name = 'netpool_reads_%s' % uuid.uuid4().hex[:12]
    with psycopg.connect(server.SERVER, autocommit=True) as conn:
        conn.execute('CREATE DATABASE %s' % name)
        try:
            p = conninfo_to_dict(server.SERVER)
            auth = p.get('user', '') + (':' + p['password'] if p.get('password') else '')
            url = 'postgresql://%s%s:%s/%s' % (
                auth + '@' if auth else '', p.get('host', '127.0.0.1'), p.get('port', '5432'), name)
            with psycopg.connect(url, autocommit=True) as db:
                yield url, db
        finally:
            _runner.close_all()
            conn.execute('DROP DATABASE %s WITH (FORCE)' % name)


def tables(db):
    """Every table of the database outside the system schemas (temporary ones included)."""
    return sorted(r[0] for r in db.execute(
        "SELECT schemaname || '.' || tablename FROM pg_tables "
        "WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"))


def reads(spec):
    """info, check mode (a pool, a reservation, a release), the lookup without allocate and the inventory
    plugin's read of a namespace."""
    _runner.run('info', params('info', spec, history=True))
    _runner.with_service(params('info', spec), None, lambda service: service.reservations('default'))
    assert _runner.run('pool', params('pool', spec, name='new', cidr='10.9.0.0/24'), check=True)['changed'] is True
    with pytest.raises(IpamError) as error:
        _runner.run('reservation', params('reservation', spec, pool='web', owner='h9'), check=True)
    assert error.value.code == 'pool_not_found'
    _runner.run('reservation', params('reservation', spec, pool='web', owner='h1', state='absent'), check=True)
    with pytest.raises(AnsibleError):
        lookup(['web'], owner='nobody', store=spec)


# -- a store that does not exist ---------------------------------------------------------------------------

@pytest.mark.parametrize('name', stores.FILE_NAMES)
def test_reads_and_check_mode_leave_no_file_and_no_lock(tmp_path, name):
    spec = str(tmp_path / name)
    reads(spec)
    assert _runner.run('info', params('info', spec))['pools'] == []
    assert os.listdir(str(tmp_path)) == []


def test_a_json_store_opened_to_create_makes_no_lock_file_for_a_read_or_check_mode(tmp_path):
    """Even opened with create=True (tools, bench), a read or check mode of a missing document takes no
    lock file: only a write that commits makes one."""
    store = open_store(str(tmp_path / 'ipam.json'))
    with store.transaction(write=False):
        assert store.list_pools() == []
    with store.transaction(commit=False):
        assert store.list_pools() == []
    assert os.listdir(str(tmp_path)) == []
    with store.transaction():
        assert store.list_pools() == []
    assert os.listdir(str(tmp_path)) == ['ipam.json.lock']
    store.close()


def test_an_empty_postgresql_database_reads_as_empty_and_gets_no_table(database):
    url, db = database
    reads(url)
    assert _runner.run('info', params('info', url))['pools'] == []
    store = open_store(url, create=False)
    assert store.absent
    with store.transaction(write=False):
        assert store.list_pools() == []
    store.close()
    assert tables(db) == []
    # the first change creates them, and a read in the same process sees it
    assert _runner.run('pool', params('pool', url, name='web', cidr='10.0.0.0/24'))['changed'] is True
    assert 'public.meta' in tables(db) and 'public.pool' in tables(db)
    assert [p['name'] for p in _runner.run('info', params('info', url))['pools']] == ['web']
    assert lookup(['web'], owner='h1', store=url, allocate=True) == ['10.0.0.1']


def test_an_absent_postgresql_store_refuses_to_commit_a_change(database):
    url, db = database
    store = open_store(url, create=False)
    with store.transaction(commit=False):
        store.save_pool(Pool('default', 'web'))
        assert [p.name for p in store.list_pools()] == ['web']
    with pytest.raises(StoreAbsent):
        with store.transaction():
            store.save_pool(Pool('default', 'web'))
    with store.transaction(write=False):
        assert store.list_pools() == []
    store.close()
    assert tables(db) == []


# -- a store at an older schema version --------------------------------------------------------------------

def _with(migrations, version, step):
    migrations = dict(migrations)
    migrations[version] = step
    return migrations


def pretend_next_version(monkeypatch):
    """Pretend this collection writes the schema version after today's (pools gain an owner_team); today's."""
    current = _base.SCHEMA_VERSION
    for module in (_base, _json, _transfer):
        monkeypatch.setattr(module, 'SCHEMA_VERSION', current + 1)
    step = ['ALTER TABLE pool ADD COLUMN owner_team TEXT', "UPDATE pool SET owner_team = 'netops'"]
    for module in (_sqlite, _postgresql):
        monkeypatch.setattr(module, 'MIGRATIONS', _with(module.MIGRATIONS, current, step))

    def forward(document):      # the document layout is the JSON store's own business: only the version moves
        return dict(document, schema_version=current + 1)
    monkeypatch.setattr(_json, 'MIGRATIONS', _with(_json.MIGRATIONS, current, forward))
    return current


def older_store(spec):
    """A store written by today's version: a pool and a reservation."""
    _runner.run('pool', params('pool', spec, name='web', cidr='10.0.0.0/24'))
    _runner.run('reservation', params('reservation', spec, pool='web', owner='h1'))
    _runner.close_all()


def older_reads(spec):
    """info, check mode, the lookup without allocate, and a write that fails."""
    info = _runner.run('info', params('info', spec, history=True))
    assert [r['owner'] for r in info['reservations']] == ['h1']
    assert _runner.run('reservation', params('reservation', spec, pool='web', owner='h2'), check=True)['changed']
    assert lookup(['web'], owner='h1', store=spec) == ['10.0.0.1']
    with pytest.raises(AnsibleError):
        lookup(['web'], owner='h2', store=spec)
    with pytest.raises(IpamError):
        _runner.run('reservation', params('reservation', spec, pool='nope', owner='h2'))
    _runner.close_all()


def sqlite_schema(path):
    conn = sqlite3.connect(path)
    try:
        return (conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0],
                'owner_team' in [r[1] for r in conn.execute('PRAGMA table_info(pool)')])
    finally:
        conn.close()


def held(spec):
    """What the store holds, but for its schema version."""
    store = open_store(spec)
    try:
        state = _transfer.export_document(store)
    finally:
        store.close()
    state.pop('schema_version')
    return state


def test_a_sqlite_store_of_an_older_version_is_read_as_it_is_and_migrated_by_its_first_change(tmp_path, monkeypatch):
    spec = str(tmp_path / 'ipam.sqlite')
    older_store(spec)
    before = held(spec)
    with open(spec, 'rb') as f:
        original = f.read()
    current = pretend_next_version(monkeypatch)
    assert sqlite_schema(spec) == (str(current), False)
    for dummy in range(2):
        older_reads(spec)
        assert sqlite_schema(spec) == (str(current), False)
        with open(spec, 'rb') as f:
            assert f.read() == original
    _runner.run('reservation', params('reservation', spec, pool='web', owner='h2'))
    assert sqlite_schema(spec) == (str(current + 1), True)
    _runner.close_all()
    after = held(spec)
    assert [r for r in before['reservations'] if r not in after['reservations']] == []
    assert [r['owner'] for r in after['reservations'] if r not in before['reservations']] == ['h2']


def test_a_json_store_of_an_older_version_is_read_as_it_is(tmp_path, monkeypatch):
    spec = str(tmp_path / 'ipam.json')
    older_store(spec)
    before = held(spec)
    with open(spec, 'rb') as f:
        original = f.read()
    current = pretend_next_version(monkeypatch)
    for dummy in range(2):
        older_reads(spec)
        with open(spec, 'rb') as f:
            assert f.read() == original
    assert held(spec) == before
    _runner.run('reservation', params('reservation', spec, pool='web', owner='h2'))
    with open(spec) as f:
        assert json.load(f)['schema_version'] == current + 1


def test_a_postgresql_store_of_an_older_version_is_read_as_it_is_and_migrated_by_its_first_change(
        database, monkeypatch):
    url, db = database

    def schema():
        return (db.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0],
                bool(db.execute("SELECT 1 FROM information_schema.columns WHERE table_name = 'pool' "
                                "AND column_name = 'owner_team'").fetchone()))
    older_store(url)
    before = held(url)
    current = pretend_next_version(monkeypatch)
    assert schema() == (str(current), False)
    for dummy in range(2):
        older_reads(url)
        assert schema() == (str(current), False)
    assert tables(db) == ['public.free_span', 'public.history', 'public.meta', 'public.pool', 'public.released',
                          'public.reservation']    # (the reads' temporary tables went with their transactions)
    _runner.run('reservation', params('reservation', url, pool='web', owner='h2'))
    assert schema() == (str(current + 1), True)
    assert db.execute('SELECT DISTINCT owner_team FROM pool').fetchall() == [('netops',)]
    _runner.close_all()
    after = held(url)
    assert [r for r in before['reservations'] if r not in after['reservations']] == []
    assert [r['owner'] for r in after['reservations'] if r not in before['reservations']] == ['h2']
