# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``Service.verify`` (``info`` with ``verify``/``repair``) against real stores corrupted behind their back.

Each case builds a healthy state through the service, then damages the SQLite file (``sqlite3``) or the
PostgreSQL schema (``psycopg``) directly: the problem must be found with the right code and objects, check
mode and plain verify must write nothing, and ``repair`` must fix exactly the free-space problems. The
healthy case (after a varied workload, on every store) is ``VerifyTests`` in ``_stores/contract/verify.py``.
"""

import json
import sqlite3

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool, Reservation, Subnet
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server, services, stores
from ansible_collections.netpool.ipam.tests.support.clock import Clock


def k(text):
    """The stored key of an address."""
    a = iv.parse_address(text)
    return iv.key(a.version, int(a))


class Sqlite(object):
    """Raw SQL on the store's file, outside the store."""

    def __init__(self, path):
        self.spec = path
        self.conn = sqlite3.connect(path, isolation_level=None)

    def sql(self, statement, params=()):
        self.conn.execute(statement, params)

    def drop_unique_holder(self):
        """Rebuild the reservation table without its unique index on (namespace, address)."""
        self.conn.executescript("""
            BEGIN;
            CREATE TABLE r2 (namespace TEXT NOT NULL, pool TEXT NOT NULL, owner TEXT NOT NULL, key TEXT NOT NULL,
                             family INTEGER NOT NULL, address TEXT NOT NULL, expires_at TEXT, data TEXT NOT NULL,
                             PRIMARY KEY (namespace, pool, owner, key, family));
            INSERT INTO r2 SELECT * FROM reservation;
            DROP TABLE reservation;
            ALTER TABLE r2 RENAME TO reservation;
            COMMIT;""")

    def close(self):
        self.conn.close()


class Postgresql(object):
    """Raw SQL in the store's schema, outside the store."""

    def __init__(self, spec, schema):
        self.spec = spec
        self.conn = server.admin()
        self.conn.execute('SET search_path TO %s' % schema)

    def sql(self, statement, params=()):
        self.conn.execute(statement.replace('?', '%s'), params)

    def drop_unique_holder(self):
        for (name,) in self.conn.execute(
                "SELECT conname FROM pg_constraint WHERE conrelid = 'reservation'::regclass AND contype = 'u'"
        ).fetchall():
            self.conn.execute('ALTER TABLE reservation DROP CONSTRAINT %s' % name)

    def close(self):
        self.conn.close()


@pytest.fixture(params=stores.SQL)
def raw(request, tmp_path):
    if request.param == 'sqlite':
        path = str(tmp_path / 'ipam.sqlite')
        open_store(path).close()
        db = Sqlite(path)
        yield db
        db.close()
    else:
        with server.fresh_schema('verify') as (spec, schema):
            open_store(spec).close()
            db = Postgresql(spec, schema)
            yield db
            db.close()


@pytest.fixture
def svc(raw):
    """A healthy state: pool web (10.0.0.0/24, gateway .1, range .10-.50, h1 .10, h2 .11) and pool db."""
    store = open_store(raw.spec)
    service = Service(store, clock=Clock())
    service.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.50']}])
    service.pool('db', subnets=[{'cidr': '10.1.0.0/24'}])
    service.reserve('web', 'h1')
    service.reserve('web', 'h2')
    assert service.verify() == {'changed': False, 'problems': [], 'repaired': []}
    yield service
    store.close()


def add_reservation(raw, pool, owner, address, namespace='default'):
    r = Reservation(namespace, pool, owner, 'default', 4, int(iv.parse_address(address)),
                    created_at='2026-01-01T00:00:00Z', updated_at='2026-01-01T00:00:00Z')
    raw.sql('INSERT INTO reservation (namespace, pool, owner, key, family, address, expires_at, data) '
            'VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            (namespace, pool, owner, 'default', 4, k(address), None, json.dumps(r.to_data(), sort_keys=True)))


def add_pool(raw, name, cidr, parent=None):
    pool = Pool('default', name, subnets=[Subnet(iv.parse_network(cidr))], parent=parent)
    raw.sql('INSERT INTO pool (namespace, name, parent, data) VALUES (?, ?, ?, ?)',
            ('default', name, parent, json.dumps(pool.to_data(), sort_keys=True)))


def add_free(raw, pool, first, last):
    raw.sql('INSERT INTO free_span (namespace, pool, first, last) VALUES (?, ?, ?, ?)',
            ('default', pool, k(first), k(last)))


def overlapping_free_span(raw):
    add_free(raw, 'web', '10.0.0.30', '10.0.0.40')


def free_span_over_a_held_address(raw):
    add_free(raw, 'web', '10.0.0.10', '10.0.0.10')


def deleted_free_span(raw):
    raw.sql('DELETE FROM free_span WHERE pool = ?', ('web',))


def free_span_outside_the_pool(raw):
    add_free(raw, 'web', '10.9.0.5', '10.9.0.9')


def reservation_outside_its_pool(raw):
    add_reservation(raw, 'web', 'stray', '10.9.0.1')


def reservation_of_a_missing_pool(raw):
    add_reservation(raw, 'gone', 'orphan', '10.8.0.1')


def duplicate_holder(raw):
    raw.drop_unique_holder()
    add_reservation(raw, 'web', 'h3', '10.0.0.10')


def overlapping_pools(raw):
    add_pool(raw, 'other', '10.0.0.192/26')       # inside web's /24, not its child; no free spans stored


def child_outside_its_parent(raw):
    add_pool(raw, 'kid', '10.5.0.0/28', parent='web')
    add_free(raw, 'kid', '10.5.0.1', '10.5.0.14')


def child_of_a_missing_parent(raw):
    add_pool(raw, 'kid', '10.5.0.0/28', parent='nope')
    add_free(raw, 'kid', '10.5.0.1', '10.5.0.14')


def child_free_span_over_the_parents_gateway(raw):
    """A child pool (written as a store of an older version left it: no copy of its parent's gateway) whose
    free span holds the parent's gateway: derived, the gateway is free in no pool below the parent."""
    add_pool(raw, 'kid', '10.0.0.0/29', parent='web')
    add_free(raw, 'kid', '10.0.0.1', '10.0.0.6')


#: corruption -> the problems verify finds: (code, pools, addresses, reservations' owners)
CASES = [
    (overlapping_free_span, [('free_span_overlap', ['web'], ['10.0.0.12-10.0.0.50', '10.0.0.30-10.0.0.40'], [])]),
    (free_span_over_a_held_address, [('free_space_mismatch', ['web'], ['10.0.0.10-10.0.0.10'], [])]),
    (deleted_free_span, [('free_space_mismatch', ['web'], ['10.0.0.12-10.0.0.50'], [])]),
    (free_span_outside_the_pool, [('free_span_outside_pool', ['web'], ['10.9.0.5-10.9.0.9'], [])]),
    (reservation_outside_its_pool, [('reservation_outside_pool', ['web'], ['10.9.0.1'], ['stray'])]),
    (reservation_of_a_missing_pool, [('reservation_pool_missing', ['gone'], ['10.8.0.1'], ['orphan'])]),
    (duplicate_holder, [('duplicate_holder', ['web'], ['10.0.0.10'], ['h1', 'h3'])]),
    (overlapping_pools, [('free_space_mismatch', ['other'], ['10.0.0.193-10.0.0.254'], []),
                         ('pool_overlap', ['web', 'other'], ['10.0.0.0/24', '10.0.0.192/26'], [])]),
    (child_outside_its_parent, [('child_outside_parent', ['kid', 'web'], ['10.5.0.0/28'], [])]),
    (child_of_a_missing_parent, [('parent_missing', ['kid', 'nope'], ['10.5.0.0/28'], [])]),
    (child_free_span_over_the_parents_gateway, [('free_space_mismatch', ['kid'], ['10.0.0.1-10.0.0.1'], [])]),
]


def summary(problems):
    return [(p['code'], p['pools'], p['addresses'], sorted(r['owner'] for r in p['reservations']))
            for p in problems]


@pytest.mark.parametrize('corrupt, expected', CASES, ids=[c[0].__name__ for c in CASES])
def test_verify_finds_it_and_repair_fixes_only_free_space(svc, raw, corrupt, expected):
    corrupt(raw)
    state = export_document(svc.store)

    found = svc.verify()
    assert summary(found['problems']) == expected
    assert found['changed'] is False and found['repaired'] == []
    for p in found['problems']:
        assert p['namespace'] == 'default' and p['repaired'] is False
        assert p['repairable'] is p['code'].startswith('free_')
        assert 'Traceback' not in p['message'] and all(a in p['message'] for a in p['pools'])
    assert export_document(svc.store) == state                 # verify alone writes nothing

    repairable = [p for p in expected if p[0].startswith('free_')]
    checked = svc.verify(repair=True, check=True)
    assert summary(checked['problems']) == expected
    assert checked['changed'] is bool(repairable)
    assert [p['repaired'] for p in checked['problems']] == [p['repairable'] for p in checked['problems']]
    assert export_document(svc.store) == state                 # check mode writes nothing

    repaired = svc.verify(repair=True)
    assert repaired['changed'] is bool(repairable)
    assert sorted(r['pool'] for r in repaired['repaired']) == sorted(set(p[1][0] for p in repairable))
    assert [p['repaired'] for p in repaired['problems']] == [p['repairable'] for p in repaired['problems']]
    assert summary(svc.verify()['problems']) == [p for p in expected if p not in repairable]
    with svc.store.transaction(write=False):
        history = [h for h in svc.store.find_history() if h['action'] == 'repair']
    assert [(h['object'], h['pool']) for h in history] == [('pool', r['pool']) for r in repaired['repaired']]
    assert svc.verify(repair=True)['changed'] is False      # a second repair has nothing left to do


def test_repaired_free_space_allocates_again(svc, raw):
    """A pool whose free spans cover a held address fails every dynamic reservation; after repair it works."""
    raw.sql('DELETE FROM free_span WHERE pool = ?', ('web',))
    add_free(raw, 'web', '10.0.0.10', '10.0.0.50')
    with pytest.raises(IpamError) as failed:
        svc.reserve('web', 'h3')
    assert failed.value.code == 'address_in_use', failed.value.msg
    svc.verify(repair=True)
    assert svc.reserve('web', 'h3')['reservation']['address'] == '10.0.0.12'


def test_info_verifies_the_task_namespace_only(svc, raw):
    svc.pool('lab', namespace='lab', subnets=[{'cidr': '10.0.0.0/24'}])
    raw.sql("DELETE FROM free_span WHERE namespace = 'lab'")
    assert svc.info(verify=True)['problems'] == []
    result = svc.info(namespace='lab', verify=True)
    assert (result['changed'], summary(result['problems'])) == (
        False, [('free_space_mismatch', ['lab'], ['10.0.0.1-10.0.0.254'], [])])
    assert summary(svc.verify()['problems']) == summary(result['problems'])      # None: every namespace
    fixed = svc.info(namespace='lab', repair=True)       # repair implies verify
    assert fixed['changed'] is True and fixed['repaired'][0]['pool'] == 'lab'
    assert svc.info(namespace='lab', verify=True)['pools'][0]['free'] == 254
    assert 'problems' not in svc.info()


#: damage -> (the table named, the row named, the problem verify reports); every one failed info with
#: internal_error once
DAMAGES = [
    ("UPDATE free_span SET last = 'garbage' WHERE pool = 'web'",
     'table free_span', "namespace='default', pool='web', first=", 'damaged_free_span'),
    ("UPDATE reservation SET data = '{not json' WHERE owner = 'h1'",
     'table reservation', "namespace='default', pool='web', owner='h1', key='default'", 'damaged_row'),
    ("UPDATE pool SET data = '{}' WHERE name = 'db'",
     'table pool', "namespace='default', name='db'", 'damaged_row'),
    ("INSERT INTO released (namespace, pool, address, until) VALUES ('default', 'web', '4-zz', "
     "'2026-01-01T00:00:00Z')",
     'table released', "namespace='default', pool='web', address='4-zz'", 'damaged_row'),
]


@pytest.mark.parametrize('damage, table, row, code', DAMAGES, ids=[d[1].split()[1] for d in DAMAGES])
def test_a_damaged_row_is_store_unavailable_and_a_problem_of_verify(svc, raw, damage, table, row, code):
    raw.sql(damage)
    state = raw_state(raw)
    with pytest.raises(IpamError) as failed:
        svc.info(map=True)
    error = failed.value
    assert error.code == 'store_unavailable', error.msg
    assert table in error.msg and row in error.msg and 'verify: true' in error.msg, error.msg
    assert 'Traceback' not in error.msg and 'internal' not in error.msg

    found = svc.info(verify=True)
    assert [(p['code'], p['repairable']) for p in found['problems']][:1] == [(code, code == 'damaged_free_span')]
    assert table in found['problems'][0]['message'] and row in found['problems'][0]['message']
    assert raw_state(raw) == state                  # verify writes nothing

    fixed = svc.info(repair=True)
    if code == 'damaged_free_span':                 # derived: rebuilt, and the store works again
        assert fixed['changed'] is True and fixed['problems'][0]['repaired'] is True
        assert svc.info(verify=True)['problems'] == []
        assert svc.info()['pools'][1]['free'] == 39
        assert svc.reserve('web', 'h3')['reservation']['address'] == '10.0.0.12'
    else:                                           # needs a human decision: nothing is written
        assert fixed['changed'] is False and fixed['problems'][0]['repaired'] is False
        assert raw_state(raw) == state


def raw_state(raw):
    """Every row of the tables a store keeps (history aside), read outside the store."""
    rows = {}
    for table in ('pool', 'reservation', 'free_span', 'released'):
        cursor = raw.conn.execute('SELECT * FROM %s' % table)
        rows[table] = sorted(tuple(r) for r in cursor.fetchall())
    return rows


def test_the_info_module_reports_a_damaged_row(raw, capsys):
    """Through the module, as a user meets it: store_unavailable, and verify: true runs and lists it."""
    from ansible.module_utils.testing import patch_module_args
    from ansible_collections.netpool.ipam.plugins.modules import info

    def run(args):
        with patch_module_args(dict(args, store=raw.spec)):
            with pytest.raises(SystemExit) as exit_info:
                info.main()
        services.reset()
        return exit_info.value.code, json.loads(capsys.readouterr().out)

    service = Service(open_store(raw.spec))
    service.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    service.store.close()
    raw.sql("UPDATE free_span SET last = 'garbage' WHERE pool = 'web'")
    code, out = run({})
    assert code == 1 and out['error'] == 'store_unavailable' and 'table free_span' in out['msg'], out
    code, out = run({'verify': True})
    assert code == 0 and [p['code'] for p in out['problems']] == ['damaged_free_span'], out
    code, out = run({'repair': True})
    assert code == 0 and out['changed'] and out['pools'][0]['free'] == 254, out
