# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Upgrades: a state written by any schema version loads and keeps working: a SQLite store is migrated once by
the first task that opens it (a read too); a JSON document is migrated in memory by every read and written at
today's version by its first change, so a read or check mode never rewrites a plan kept in git. A state of a newer
version is refused with store_version and not touched.

``tests/unit/fixtures/state-v<N>.sqlite`` / ``.json`` are states written by
schema version N (``make_state_fixtures.py`` writes those of the current
version; older ones are kept). The migration machinery itself (a failed
migration changes nothing, a version with no path is refused) is proven by
pretending there is a version after the current one (``SCHEMA_VERSION`` and
``MIGRATIONS`` monkeypatched, on top of the real migrations) and migrating
the v1 fixtures through every step.
"""

import json
import multiprocessing
import os
import re
import shutil
import sqlite3

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance import _transfer
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base, _json, _sqlite
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.support.plugins import params
from ansible_collections.netpool.ipam.tests.support.reliability import FIXTURES

VERSIONS = sorted(set(int(m.group(1)) for m in (re.match(r'^state-v(\d+)\.(sqlite|json)$', f)
                                                for f in os.listdir(FIXTURES)) if m))
LATER = 1767225600 + 4 * 3600  # four hours after the fixtures were written: reuse delay over, lease not
LATER_STAMP = '2026-01-01T04:00:00Z'


def fixture_copy(tmp_path, version, kind):
    path = str(tmp_path / ('ipam.' + kind))
    shutil.copyfile(os.path.join(FIXTURES, 'state-v%d.%s' % (version, kind)), path)
    return path


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def without_version(doc):
    doc = dict(doc)
    doc.pop('schema_version')
    return doc


def test_every_schema_version_has_both_fixtures():
    assert VERSIONS == list(range(1, _base.SCHEMA_VERSION + 1))
    for version in VERSIONS:
        for kind in stores.FILES:
            assert os.path.exists(os.path.join(FIXTURES, 'state-v%d.%s' % (version, kind)))


@pytest.mark.parametrize('version', VERSIONS)
def test_both_fixtures_of_a_version_hold_the_same_state(tmp_path, version):
    docs = []
    for kind in stores.FILES:
        store = open_store(fixture_copy(tmp_path, version, kind))
        docs.append(export_document(store))
        store.close()
    assert docs[0] == docs[1]


@pytest.mark.parametrize('kind', stores.FILES)
def test_v1_fixture_loads_and_works(tmp_path, kind):
    path = fixture_copy(tmp_path, 1, kind)
    store = open_store(path)
    svc = Service(store, clock=Clock(LATER))
    doc = export_document(store)
    assert [(p['namespace'], p['name']) for p in doc['pools']] == [
        ('default', 'cache'), ('default', 'dual'), ('default', 'rack1'), ('default', 'site'), ('default', 'web'),
        ('lab', 'web')]
    held = dict(((r['namespace'], r['pool'], r['owner'], r['key']), r['address']) for r in doc['reservations'])
    assert held[('default', 'web', 'web1', 'default')] == '10.0.0.30'          # reassigned from vip
    assert ('default', 'web', 'vip', 'default') not in held
    assert held[('default', 'web', 'web2', 'default')] == '10.0.0.31'          # moved
    assert held[('default', 'web', 'web2', 'eth1')] == '10.0.0.200'
    assert held[('default', 'rack1', 'server1', 'default')] == '10.16.0.1'
    assert held[('lab', 'web', 'web1', 'default')] == '10.0.0.1'
    assert len(held) == 9
    cache = next(p for p in doc['pools'] if p['name'] == 'cache')
    assert [r['address'] for r in cache['released']] == ['10.30.0.1']
    expected = set(['create', 'add', 'remove', 'reserve', 'release', 'move', 'reassign', 'renew'])
    assert set(e['action'] for e in doc['history']) >= expected
    web = svc.info(pool='web')['pools'][0]
    assert web['subnets'][0]['ranges'] == ['10.0.0.10-10.0.0.50', '10.0.0.100-10.0.0.109', '10.0.0.113-10.0.0.120']
    assert web['subnets'][0]['exclude'] == ['10.0.0.20-10.0.0.25', '10.0.0.40-10.0.0.40']
    # it keeps working: idempotent reruns, new reservations, the reuse delay and the lease ran out meanwhile
    assert svc.reserve('web', 'web2', key='eth1', address='10.0.0.200')['changed'] is False
    assert svc.reserve('web', 'web4')['reservation']['address'] == '10.0.0.10'
    assert svc.reserve('cache', 'c3')['reservation']['address'] == '10.30.0.1'      # delay over, first free again
    assert svc.get('cache', 'c2') is not None                                        # renewed for 12h, still held
    assert svc.reserve('rack1', 'server2')['reservation']['address'] == '10.16.0.2'
    assert svc.pool('rack2', parent='site', prefix_length=24)['pool']['subnets'][0]['cidr'] == '10.16.1.0/24'
    assert len(export_document(store)['history']) > len(doc['history'])
    store.close()


@pytest.mark.parametrize('kind', stores.FILES)
def test_a_v3_state_takes_a_reservation_of_each_family_under_one_key(tmp_path, kind):
    """Schema version 4 holds one reservation per family of an owner and key (``family: dual``): a state of
    version 3 is migrated (SQLite: when it is opened, the reservation table made again with the family in its
    primary key; JSON: in memory, written by the change) and keeps every reservation; db1's IPv6 reservation is
    kept by dual, which adds an IPv4 one."""
    path = fixture_copy(tmp_path, 3, kind)
    store = open_store(path)
    svc = Service(store, clock=Clock(LATER))
    before = export_document(store)['reservations']
    db1 = svc.get('dual', 'db1')['address']
    assert ':' in db1
    result = svc.reserve('dual', 'db1', family='dual')
    assert result['changed'] is True
    assert result['reservation6']['address'] == db1 and result['diff']['before']['reservation6']['address'] == db1
    assert result['reservation']['address'].startswith('192.168.10.')
    assert result['diff']['before']['reservation'] == {}
    assert svc.reserve('dual', 'db1', family='dual')['changed'] is False
    store.close()
    store = open_store(path)
    after = export_document(store)['reservations']
    assert [(r['owner'], r['key'], r['address'], r['created_at']) for r in after if r not in before] == [
        ('db1', 'default', result['reservation']['address'], LATER_STAMP)]
    assert [r for r in before if r not in after] == []
    store.close()
    if kind == 'sqlite':
        conn = sqlite3.connect(path)
        assert conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0] == '4'
        assert conn.execute("SELECT family, COUNT(*) FROM reservation WHERE owner = 'db1' AND key = 'default' "
                            "GROUP BY family ORDER BY family").fetchall() == [(4, 1), (6, 1)]
        conn.close()
    else:
        assert '"schema_version": 4' in read(path).decode()


@pytest.mark.parametrize('kind', stores.FILES)
def test_newer_version_is_refused_and_not_touched(tmp_path, kind):
    path = fixture_copy(tmp_path, 1, kind)
    if kind == 'sqlite':
        conn = sqlite3.connect(path)
        conn.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(_base.SCHEMA_VERSION + 1),))
        conn.commit()
        conn.close()
    else:
        text = read(path).decode()
        with open(path, 'w') as f:
            f.write(text.replace('"schema_version": 1', '"schema_version": %d' % (_base.SCHEMA_VERSION + 1)))
    before = read(path)
    for attempt in range(2):
        with pytest.raises(IpamError) as info:
            svc = Service(open_store(path))
            svc.reserve('web', 'newcomer')
        assert info.value.code == 'store_version'
        assert 'Upgrade' in info.value.msg and 'not touched' in info.value.msg
    assert read(path) == before
    extra = set(os.listdir(str(tmp_path))) - set(['ipam.' + kind])
    assert extra <= set(['ipam.json.lock'])


# -- the migration machinery ------------------------------------------------------------------------------------

NEXT = _base.SCHEMA_VERSION + 1


def pretend_next_version(monkeypatch):
    """Pretend this is schema version NEXT, one step after the real ones (the SQL stores read it from _base,
    the JSON store and _transfer from their own globals)."""
    for module in (_base, _json, _transfer):
        monkeypatch.setattr(module, 'SCHEMA_VERSION', NEXT)
    monkeypatch.setattr(_sqlite, 'MIGRATIONS', dict(_sqlite.MIGRATIONS))
    monkeypatch.setitem(_sqlite.MIGRATIONS, NEXT - 1, [
        'ALTER TABLE pool ADD COLUMN owner_team TEXT',
        "UPDATE pool SET owner_team = 'netops'",
    ])

    def to_next(document):
        document = dict(document)
        document['pools'] = dict((ns, dict((name, dict(block, pool=dict(block['pool'], owner_team='netops')))
                                           for name, block in pools.items()))
                                 for ns, pools in document.get('pools', {}).items())
        document['schema_version'] = NEXT
        return document
    monkeypatch.setattr(_json, 'MIGRATIONS', dict(_json.MIGRATIONS))
    monkeypatch.setitem(_json.MIGRATIONS, NEXT - 1, to_next)


def v1_content(tmp_path, kind):
    """The v1 fixture's content, read by today's code (call before pretend_next_version)."""
    directory = tmp_path / 'v1-copy'
    directory.mkdir()
    store = open_store(fixture_copy(directory, 1, kind))
    try:
        return without_version(export_document(store))
    finally:
        store.close()


def sqlite_version(path):
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()[0]
    finally:
        conn.close()


def test_sqlite_v1_is_migrated_when_it_is_first_opened(tmp_path, monkeypatch):
    before = v1_content(tmp_path, 'sqlite')
    path = fixture_copy(tmp_path, 1, 'sqlite')
    pretend_next_version(monkeypatch)
    store = open_store(path)
    assert sqlite_version(path) == str(NEXT)      # committed on opening, before any work of a task
    conn = sqlite3.connect(path)
    assert set(r[0] for r in conn.execute('SELECT owner_team FROM pool')) == set(['netops'])
    conn.close()
    assert without_version(export_document(store)) == before
    Service(store, clock=Clock(LATER)).info(history=True)
    assert Service(store, clock=Clock(LATER)).reserve('web', 'web4', check=True)['changed'] is True
    assert Service(store, clock=Clock(LATER)).reserve('web', 'web9')['changed'] is True
    assert Service(store, clock=Clock(LATER)).reserve('web', 'web4')['reservation']['address'] == '10.0.0.11'
    store.close()
    reopened = open_store(path)                   # second use: nothing left to migrate
    assert export_document(reopened)['schema_version'] == NEXT
    assert Service(reopened, clock=Clock(LATER)).reserve('web', 'web4')['changed'] is False
    reopened.close()


def test_sqlite_failed_migration_changes_nothing(tmp_path, monkeypatch):
    path = fixture_copy(tmp_path, 1, 'sqlite')
    pretend_next_version(monkeypatch)
    monkeypatch.setitem(_sqlite.MIGRATIONS, NEXT - 1, ['ALTER TABLE pool ADD COLUMN team TEXT', 'THIS IS NOT SQL'])
    for use in (lambda svc: svc.info(), lambda svc: svc.reserve('web', 'web4')):
        with pytest.raises(IpamError) as info:
            use(Service(open_store(path), clock=Clock(LATER)))
        assert info.value.code == 'store_unavailable' and 'syntax error' in info.value.msg
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone() == ('1',)
    assert 'team' not in [r[1] for r in conn.execute('PRAGMA table_info(pool)')]
    conn.close()


def test_json_v1_is_migrated_on_first_use(tmp_path, monkeypatch):
    before = v1_content(tmp_path, 'json')
    path = fixture_copy(tmp_path, 1, 'json')
    original = read(path)
    pretend_next_version(monkeypatch)
    store = open_store(path)
    svc = Service(store, clock=Clock(LATER))
    assert without_version(export_document(store)) == before
    svc.info(history=True)
    assert svc.reserve('web', 'web4', check=True)['changed'] is True
    assert read(path) == original                 # reads migrate in memory; a git-kept file is not rewritten
    assert svc.reserve('web', 'web4')['reservation']['address'] == '10.0.0.10'
    text = read(path).decode()                    # the first change writes the migrated document
    assert '"schema_version": %d' % NEXT in text and '"owner_team": "netops"' in text
    store.close()
    reopened = open_store(path)
    assert export_document(reopened)['reservations'] == export_document(open_store(path))['reservations']
    assert Service(reopened, clock=Clock(LATER)).reserve('web', 'web4')['changed'] is False
    reopened.close()


# -- a store one version behind: SQLite migrated once, by whichever task opens it first; JSON by its first change -

BEHIND = _base.SCHEMA_VERSION - 1


def stored_version(path, kind):
    if kind == 'sqlite':
        return int(sqlite_version(path))
    with open(path) as f:
        return json.load(f)['schema_version']


def content(tmp_path, version, kind):
    """The content of the fixture of ``version`` (without its version), read from a copy of its own."""
    directory = tmp_path / ('content-v%d' % version)
    directory.mkdir()
    store = open_store(fixture_copy(directory, version, kind))
    try:
        return without_version(export_document(store))
    finally:
        store.close()


def migration_steps(monkeypatch, kind):
    """A list that gets the version each migration step runs from: SQLite, one entry a statement of its
    ``MIGRATIONS``; JSON, one a step of its ``MIGRATIONS`` (what brings a document read to this version)."""
    ran = []
    if kind == 'sqlite':
        steps = dict((statement, version) for version, statements in _sqlite.MIGRATIONS.items()
                     for statement in statements)
        execute = _sqlite.SqliteStore._execute

        def counted(self, sql, params=()):
            if sql in steps:
                ran.append(steps[sql])
            return execute(self, sql, params)
        monkeypatch.setattr(_sqlite.SqliteStore, '_execute', counted)
    else:
        for version, step in list(_json.MIGRATIONS.items()):
            monkeypatch.setitem(_json.MIGRATIONS, version,
                                lambda document, version=version, step=step: ran.append(version) or step(document))
    return ran


def info(path):
    """A task's read: the info module, on the store opened as a read opens it; closed afterwards, as the worker
    process of the task ends."""
    try:
        return _runner.run('info', params('info', path, pool='web'))
    finally:
        _runner.close_all()


@pytest.mark.parametrize('kind', stores.FILES)
def test_a_store_one_version_behind_is_migrated_by_its_first_change_only(tmp_path, monkeypatch, kind):
    """A store of the version before today's (the fixture of that version), shared with controllers still on the
    older collection (or a JSON plan kept in git): reads (the info module), check mode and a rerun read it through
    the migration in memory, each time, and leave the file byte for byte as it was, with nothing beside it (no
    diff in the user's git tree; an older controller goes on using it); the first change migrates it to today's
    version, holding what it held and the change."""
    held = content(tmp_path, BEHIND, kind)
    path = fixture_copy(tmp_path, BEHIND, kind)
    original, stat = read(path), os.stat(path)
    ran = migration_steps(monkeypatch, kind)
    try:
        for dummy in range(2):
            assert info(path)['reservations']
            check = _runner.run('reservation', params('reservation', path, pool='web', owner='newcomer'), check=True)
            assert check['changed'] is True
            rerun = _runner.run('reservation', params('reservation', path, pool='web', owner='web2', key='eth1',
                                                      address='10.0.0.200'))
            assert rerun['changed'] is False
            _runner.close_all()
        assert read(path) == original
        assert (os.stat(path).st_ino, os.stat(path).st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)
        assert sorted(os.listdir(str(tmp_path))) == ['content-v%d' % BEHIND, 'ipam.' + kind]
        assert stored_version(path, kind) == BEHIND
        assert ran and set(ran) == set([BEHIND])   # migrated in memory, by every task that read it
        change = _runner.run('reservation', params('reservation', path, pool='web', owner='newcomer'))
        assert change['changed'] is True and change['reservation']['address'] == check['reservation']['address']
    finally:
        _runner.close_all()
    assert stored_version(path, kind) == _base.SCHEMA_VERSION
    store = open_store(path)
    after = without_version(export_document(store))
    store.close()
    assert [dict(p, free=None) for p in after['pools']] == [dict(p, free=None) for p in held['pools']]
    assert [r for r in held['reservations'] if r not in after['reservations']] == []
    assert [r['owner'] for r in after['reservations'] if r not in held['reservations']] == ['newcomer']


def _read_at_once(path, barrier, results):
    """In a process of its own: wait for the others, then read the store as the info module does."""
    try:
        ran = migration_steps(pytest.MonkeyPatch(), 'sqlite')
        barrier.wait(60)
        found = info(path)['reservations']
        results.put((len(ran), len(found)))
    except BaseException as e:  # pylint: disable=broad-except
        results.put(repr(e))


def test_processes_reading_an_older_sqlite_store_at_once_all_work_and_none_migrates_it(tmp_path):
    """Processes of their own (Ansible's forks) read a store one version behind at the same moment: each reads it
    through the migration in memory, and it stays at its version (a controller still on the older collection
    goes on using it)."""
    path = fixture_copy(tmp_path, BEHIND, 'sqlite')
    original = read(path)
    ctx = multiprocessing.get_context('fork')
    barrier, results = ctx.Barrier(4), ctx.Queue()
    workers = [ctx.Process(target=_read_at_once, args=(path, barrier, results)) for dummy in range(4)]
    for w in workers:
        w.start()
    answers = [results.get(timeout=120) for dummy in workers]
    for w in workers:
        w.join(60)
    assert all(isinstance(a, tuple) for a in answers), answers
    assert len(set(found for _ran, found in answers)) == 1 and answers[0][1] > 0
    assert sorted(ran for ran, _found in answers) == [len(_sqlite.MIGRATIONS[BEHIND])] * 4     # each in memory
    assert stored_version(path, 'sqlite') == BEHIND and read(path) == original


# -- versions no release wrote --------------------------------------------------------------------------------

def set_version(path, kind, value):
    """Write ``value`` as the schema_version of the store at ``path`` (None: remove it)."""
    if kind == 'sqlite':
        conn = sqlite3.connect(path)
        if value is None:
            conn.execute("DELETE FROM meta WHERE name = 'schema_version'")
        else:
            conn.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", (str(value),))
        conn.commit()
        conn.close()
    else:
        text = read(path).decode()
        assert '"schema_version": 1' in text
        with open(path, 'w') as f:
            f.write(text.replace('"schema_version": 1', '"schema_version": %s' % value))


def assert_refused_untouched(tmp_path, path, kind, *words):
    before = read(path)
    for attempt in range(2):
        with pytest.raises(IpamError) as info:
            svc = Service(open_store(path))
            svc.reserve('web', 'newcomer')
        error = info.value
        assert error.code == 'store_unavailable', (type(error), error)
        assert 'Traceback' not in error.msg and path in error.msg, error.msg
        assert 'not touched' in error.msg and 'backup' in error.msg, error.msg
        assert all(w in error.msg for w in words), error.msg
    assert read(path) == before
    extra = set(os.listdir(str(tmp_path))) - set(['ipam.' + kind])
    assert extra <= set(['ipam.json.lock'])


@pytest.mark.parametrize('version', [0, -1])
@pytest.mark.parametrize('kind', stores.FILES)
def test_a_version_below_1_is_refused_and_not_touched(tmp_path, kind, version):
    """An edited schema_version (0, -1) is no version this collection wrote: store_unavailable, not a KeyError."""
    path = fixture_copy(tmp_path, 1, kind)
    set_version(path, kind, version)
    assert_refused_untouched(tmp_path, path, kind, 'schema_version %d' % version, 'not one this netpool.ipam')


@pytest.mark.parametrize('kind', stores.FILES)
def test_a_version_with_no_migration_path_is_refused_and_not_touched(tmp_path, monkeypatch, kind):
    path = fixture_copy(tmp_path, 1, kind)
    pretend_next_version(monkeypatch)
    monkeypatch.setattr(_sqlite, 'MIGRATIONS', {})
    monkeypatch.setattr(_json, 'MIGRATIONS', {})
    assert_refused_untouched(tmp_path, path, kind, 'schema_version 1', 'not one this netpool.ipam')


@pytest.mark.parametrize('value', ['abc', '1.0', None])
def test_a_sqlite_meta_table_without_an_integer_version_is_refused_and_not_touched(tmp_path, value):
    path = fixture_copy(tmp_path, 1, 'sqlite')
    set_version(path, 'sqlite', value)
    assert_refused_untouched(tmp_path, path, 'sqlite', 'no integer schema_version')
