# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The PostgreSQL store: the conformance suite, plus what only a server store can get wrong.

Skipped with the reason when no server answers, unless
NETPOOL_IPAM_TEST_POSTGRESQL=required (see postgresql_server.py).
"""

import gc
import multiprocessing
import re
import threading
import time

import psycopg
import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base, _postgresql
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _sql_schema as _sql
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.suite import StoreContract
from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.plugins import params

SECRET = 'Sup3r-s3cret-pw'


@pytest.fixture
def schema():
    """``(url, schema)`` of a fresh, empty state, dropped afterwards."""
    with server.fresh_schema() as made:
        yield made


@pytest.fixture
def spec(schema):
    return schema[0]


class TestPostgresqlStore(StoreContract):
    """The whole conformance suite, each test in a schema of its own."""


def _opened(spec, **kwargs):
    store = open_store(spec, **kwargs)
    return store, Service(store)


@pytest.fixture
def web(spec):
    store, svc = _opened(spec)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.200']}])
    svc.pool('db', subnets=[{'cidr': '10.1.0.0/24'}])
    svc.reserve('web', 'h1', metadata={'mac': '52:54:00:00:00:01'})
    yield store, svc
    store.close()


def _state(spec):
    """The whole state, read on a connection of its own."""
    store = open_store(spec)
    try:
        return export_document(store)
    finally:
        store.close()


def _fails(code, call, *args, **kwargs):
    with pytest.raises(IpamError) as info:
        call(*args, **kwargs)
    assert info.value.code == code, info.value.msg
    return info.value


def _terminate(store):
    """End the store's server session from another connection, as a crash or restart of its backend would."""
    pid = store._conn.info.backend_pid
    with server.admin() as conn:
        conn.execute('SELECT pg_terminate_backend(%s)', (pid,))
        for dummy in range(3000):
            if not conn.execute('SELECT 1 FROM pg_stat_activity WHERE pid = %s', (pid,)).fetchone():
                return
            time.sleep(0.01)
    pytest.fail('the server session %d did not end' % pid)


def _wait_until_blocked(store):
    """Return once the store's server session waits on a lock that another session holds (an event the server
    reports, not a guess at how long that takes); fail if it never does."""
    pid = store._conn.info.backend_pid
    with server.admin() as conn:
        for dummy in range(3000):
            if conn.execute('SELECT 1 FROM pg_locks WHERE pid = %s AND NOT granted', (pid,)).fetchone():
                return
            time.sleep(0.01)
    pytest.fail('the writer never waited on the lock')


# -- the schema ----------------------------------------------------------------

def test_tables_are_created_once_with_a_schema_version(spec, schema):
    open_store(spec).close()
    with server.admin() as conn:
        tables = [r[0] for r in conn.execute('SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY 1',
                                             (schema[1],))]
        version = conn.execute('SELECT value FROM %s.meta' % schema[1]).fetchall()
    assert tables == ['free_span', 'history', 'meta', 'pool', 'released', 'reservation']
    assert version == [(str(_base.SCHEMA_VERSION),)]
    open_store(spec).close()   # a second open finds the schema and leaves it


def _indexes_and_version(schema):
    with server.admin() as conn:
        indexes = set(r for r in conn.execute('SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s',
                                              (schema,)))
        version = int(conn.execute("SELECT value FROM %s.meta WHERE name = 'schema_version'" % schema).fetchone()[0])
    return indexes, version


def _index_name(statement):
    return re.search(r'INDEX (\w+)', statement).group(1)


def _back_to(name, version):
    """Take the tables of schema ``name`` back to what schema ``version`` had: undo the migrations from it on."""
    with server.admin() as conn:
        for index in [_index_name(st) for st in _sql.INDEXES]:
            conn.execute('DROP INDEX %s.%s' % (name, index))
        # up to version 3, one reservation per (namespace, pool, owner, key), of either family
        conn.execute('ALTER TABLE %s.reservation DROP CONSTRAINT reservation_pkey' % name)
        conn.execute('ALTER TABLE %s.reservation DROP COLUMN family' % name)
        conn.execute('ALTER TABLE %s.reservation ADD PRIMARY KEY (namespace, pool, owner, key)' % name)
        for v in range(1, version):
            for statement in _sql.migrations('postgresql')[v]:
                conn.execute(statement.replace(' INDEX ', ' INDEX IF EXISTS ' if statement.startswith('DROP') else
                                               ' INDEX ').replace(' ON ', ' ON %s.' % name).replace(
                                                   'INDEX IF EXISTS ', 'INDEX IF EXISTS %s.' % name))
        conn.execute("UPDATE %s.meta SET value = '%d' WHERE name = 'schema_version'" % (name, version))


def _older(schema, version):
    """A store of ``version`` holding pool web and h1's lease: the indexes of today's and of that version."""
    spec, name = schema
    store, svc = _opened(spec)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    svc.reserve('web', 'h1', ttl='1h')
    store.close()
    today, _v = _indexes_and_version(name)
    _back_to(name, version)
    older, _v = _indexes_and_version(name)
    assert older != today
    return today, older


@pytest.mark.parametrize('version', range(1, _base.SCHEMA_VERSION))
def test_an_older_schema_is_read_as_it_is_and_migrated_when_opened_to_change(schema, version):
    """A store of schema version 1, 2 or 3 (today's tables with the indexes and reservation key of that version)
    opened as a read opens it is read as today's, and left at its version; opened as a change opens it, it is
    brought to today's version, with today's indexes, and keeps working."""
    spec, name = schema
    today, older = _older(schema, version)
    store, svc = _opened(spec, create=False)
    assert store.behind == version
    assert [r['owner'] for r in svc.info(pool='web')['reservations']] == ['h1']
    assert svc.reserve('web', 'h1')['changed'] is False
    assert svc.reserve('web', 'h2', check=True)['reservation']['address'] == '10.0.0.2'
    store.close()
    assert _indexes_and_version(name) == (older, version)
    store, svc = _opened(spec)
    assert _indexes_and_version(name) == (today, _base.SCHEMA_VERSION)
    assert svc.reserve('web', 'h1')['changed'] is False
    assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.2'
    store.close()


def _relation_locks(store, schema):
    """The modes of the locks the store's server session holds (its open transaction's) on the tables and indexes
    of ``schema`` (not on its own temporary tables, which no other session sees)."""
    with server.admin() as conn:
        return set(r[0] for r in conn.execute(
            "SELECT l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON "
            "n.oid = c.relnamespace WHERE l.pid = %s AND l.locktype = 'relation' AND n.nspname = %s",
            (store._conn.info.backend_pid, schema)))


def test_a_store_one_version_behind_is_read_without_migrating_nor_a_table_lock(schema, monkeypatch):
    """A store of the version before today's: reads (the info module, its store opened as a read opens it) run no
    migration statement, and neither a read transaction nor an idempotent rerun's holds any lock on one of its
    tables or indexes but ACCESS SHARE (no other controller waits for it); the first change migrates it, once."""
    spec, name = schema
    behind = _base.SCHEMA_VERSION - 1
    today, older = _older(schema, behind)
    steps = set(_postgresql.MIGRATIONS[behind])
    ran = []
    execute = _postgresql.PostgresqlStore._execute

    def counted(self, sql, params=()):
        if sql in steps:
            ran.append(sql)
        return execute(self, sql, params)
    monkeypatch.setattr(_postgresql.PostgresqlStore, '_execute', counted)

    def run(module, **given):
        try:
            return _runner.run(module, params(module, spec, **given))
        finally:
            _runner.close_all()
    for dummy in range(2):
        assert [r['owner'] for r in run('info', pool='web')['reservations']] == ['h1']
    assert ran == [] and _indexes_and_version(name) == (older, behind)
    store = open_store(spec, create=False)
    with store.transaction(write=False):
        assert [p.name for p in store.list_pools()] == ['web']
        assert [r.owner for r in store.find_reservations(namespace='default')] == ['h1']
        assert _relation_locks(store, name) == set(['AccessShareLock'])
    with store.transaction():       # a rerun: the pool's lock, the owner's reservation, nothing written
        store.lock_pool('default', 'web')
        assert store.get_reservation('default', 'web', 'h1', 'default').owner == 'h1'
        assert _relation_locks(store, name) == set(['AccessShareLock'])
    store.close()
    assert ran == []
    assert run('reservation', pool='web', owner='h2')['changed'] is True
    assert sorted(ran) == sorted(steps) and _indexes_and_version(name) == (today, _base.SCHEMA_VERSION)


def _open_and_read(spec, barrier, queue):
    try:
        barrier.wait(60)
        store, svc = _opened(spec, create=False)
        queue.put([r['owner'] for r in svc.info(pool='web')['reservations']])
        store.close()
    except BaseException as e:  # pylint: disable=broad-except
        queue.put(repr(e))


def test_controllers_reading_an_older_schema_at_once_all_succeed_and_none_migrates_it(schema):
    spec, name = schema
    _today, older = _older(schema, _base.SCHEMA_VERSION - 1)
    ctx = multiprocessing.get_context('fork')
    barrier, queue = ctx.Barrier(4), ctx.Queue()
    workers = [ctx.Process(target=_open_and_read, args=(spec, barrier, queue)) for dummy in range(4)]
    for w in workers:
        w.start()
    results = [queue.get(timeout=120) for dummy in workers]
    for w in workers:
        w.join(60)
    assert results == [['h1']] * 4
    assert _indexes_and_version(name) == (older, _base.SCHEMA_VERSION - 1)


def _open_and_close(spec, queue):
    try:
        open_store(spec).close()
        queue.put(None)
    except IpamError as e:
        queue.put(e.msg)


def test_controllers_creating_the_schema_at_once_all_succeed(spec):
    ctx = multiprocessing.get_context('fork')
    queue = ctx.Queue()
    workers = [ctx.Process(target=_open_and_close, args=(spec, queue)) for dummy in range(6)]
    for w in workers:
        w.start()
    results = [queue.get(timeout=60) for dummy in workers]
    for w in workers:
        w.join()
    assert results == [None] * 6


def test_newer_schema_is_refused_and_untouched(web, spec, schema):
    with server.admin() as conn:
        conn.execute("UPDATE %s.meta SET value = '99'" % schema[1])
        before = _dump(conn, schema[1])
        error = _fails('store_version', open_store, spec)
        assert 'Upgrade the netpool.ipam collection' in error.msg
        assert _dump(conn, schema[1]) == before


def _dump(conn, schema):
    return [conn.execute('SELECT * FROM %s.%s ORDER BY 1, 2' % (schema, t)).fetchall()
            for t in ('meta', 'pool', 'reservation', 'free_span', 'released', 'history')]


def test_a_search_path_without_any_schema_is_store_unavailable():
    server.require_server()
    error = _fails('store_unavailable', open_store, server.url('netpool_no_such_schema'))
    assert 'search_path' in error.msg


def test_rows_sort_by_code_point_whatever_the_database_locale(spec):
    store, svc = _opened(spec)
    for name in ('b', 'B', 'a', '_x', 'Z'):
        svc.pool(name, subnets=[{'cidr': '10.%d.0.0/24' % (ord(name[-1]) % 200)}])
    assert [p['name'] for p in svc.info()['pools']] == sorted(['b', 'B', 'a', '_x', 'Z'])
    store.close()


# -- an unreachable server, secrets ---------------------------------------------

def test_closed_port_is_store_unavailable_without_the_password():
    spec = 'postgresql://ipam:%s@127.0.0.1:%d/ipam' % (SECRET, server.closed_port())
    error = _fails('store_unavailable', open_store, spec, timeout=2)
    assert SECRET not in error.msg and SECRET not in repr(error.to_result())
    assert 'postgresql://ipam:********@127.0.0.1' in error.msg
    assert 'Check that the server runs' in error.msg


def test_password_in_the_query_and_in_store_token_never_shows():
    port = server.closed_port()
    error = _fails('store_unavailable', open_store, 'postgresql://ipam@127.0.0.1:%d/ipam?password=%s' % (port, SECRET))
    assert SECRET not in error.msg and 'password=********' in error.msg
    error = _fails('store_unavailable', open_store, 'postgresql://ipam@127.0.0.1:%d/ipam' % port, token=SECRET)
    assert SECRET not in error.msg


def test_a_refused_login_is_store_unavailable(spec):
    error = _fails('store_unavailable', open_store,
                   server.url('public', password=SECRET).replace('/netpool_ipam_test?', '/netpool_no_such_db?'))
    assert 'netpool_no_such_db' in error.msg and SECRET not in error.msg


def test_store_token_is_the_password_and_is_given_once(spec):
    store = open_store(spec, token=SECRET)   # trust auth: any password logs in
    store.close()
    error = _fails('invalid_argument', open_store, server.url('public', password='x'), token=SECRET)
    assert SECRET not in error.msg and 'once' in error.msg


def test_validate_certs_false_asks_for_tls_unless_the_url_says_otherwise(spec):
    with server.admin() as conn:
        ssl = conn.execute('SHOW ssl').fetchone()[0]
    if ssl == 'on':
        open_store(spec, validate_certs=False).close()
    else:
        error = _fails('store_unavailable', open_store, spec, validate_certs=False)
        assert 'SSL' in error.msg
    open_store(spec + '&sslmode=disable', validate_certs=False).close()


@pytest.mark.parametrize('dsn, environ, validate_certs, expected', [
    # a server across a network: verified unless validate_certs is false
    ('postgresql://ipam@db.example.com/ipam', {}, True, 'verify-full'),
    ('postgresql://ipam@10.1.2.3:5432/ipam', {}, True, 'verify-full'),
    ('postgresql://ipam@[2001:db8::5]/ipam', {}, True, 'verify-full'),
    ('postgresql://ipam@db.example.com/ipam?hostaddr=127.0.0.1', {}, True, 'verify-full'),
    ('postgresql://ipam@localhost/ipam?hostaddr=10.9.9.9', {}, True, 'verify-full'),
    ('postgresql://ipam@127.0.0.1/ipam', {'PGHOSTADDR': '10.9.9.9'}, True, 'verify-full'),
    ('host=localhost hostaddr=127.0.0.1,10.9.9.9 dbname=ipam', {}, True, 'verify-full'),
    ('host=127.0.0.1,db.example.com dbname=ipam', {}, True, 'verify-full'),
    ('postgresql:///ipam', {'PGHOST': 'db.example.com'}, True, 'verify-full'),
    ('postgresql://ipam@db.example.com/ipam', {}, False, 'require'),
    # this machine: libpq's own default; validate_certs: false still asks for TLS
    ('postgresql://ipam@127.0.0.1/ipam', {}, True, None),
    ('postgresql://ipam@127.0.0.2/ipam', {}, True, None),
    ('postgresql://ipam@[::1]/ipam', {}, True, None),
    ('postgresql://ipam@localhost/ipam', {}, True, None),
    ('postgresql://ipam@localhost/ipam?hostaddr=127.0.0.1', {}, True, None),
    ('postgresql:///ipam', {}, True, None),
    ('host=/var/run/postgresql dbname=ipam', {}, True, None),
    ('postgresql://ipam@127.0.0.1/ipam', {}, False, 'require'),
    # said by the user: used as given
    ('postgresql://ipam@db.example.com/ipam?sslmode=disable', {}, True, None),
    ('postgresql://ipam@db.example.com/ipam', {'PGSSLMODE': 'prefer'}, True, None),
    ('postgresql://ipam@db.example.com/ipam?sslmode=verify-ca', {}, False, None),
    ('service=ipam', {}, True, None),
    ('postgresql:///ipam', {'PGSERVICE': 'ipam'}, False, None),
])
def test_tls_is_verified_by_default_across_a_network(dsn, environ, validate_certs, expected):
    params = _postgresql.conninfo_to_dict(dsn)
    assert _postgresql.tls_mode(params, validate_certs, environ) == expected


def test_a_remote_server_without_a_verifiable_certificate_is_refused_by_default(spec):
    """The test server, named as a remote host would be: TLS with a verified certificate is asked for."""
    host = _postgresql.conninfo_to_dict(spec).get('host', '')
    if '@%s:' % host not in spec or _postgresql.tls_mode({'host': host}, True, {}) is not None:
        pytest.skip('the test server is not reached through a loopback address in the URL')
    remote = spec.replace('@%s:' % host, '@db.netpool.invalid:', 1) + '&hostaddr=' + host
    error = _fails('store_unavailable', open_store, remote)
    assert 'verify-full' in error.msg and 'sslrootcert' in error.msg and 'validate_certs: false' in error.msg
    open_store(remote + '&sslmode=disable').close()   # said in the URL: used as given
    open_store(spec).close()                            # this machine: libpq's default


# -- a server session that dies ----------------------------------------------------

def test_backend_killed_inside_a_reservation_keeps_nothing(web, spec):
    store, svc = web
    before = _state(spec)
    add_history = store.add_history

    def dying(entry):
        _terminate(store)   # the reservation and its free-span change are written, not committed
        return add_history(entry)

    store.add_history = dying
    error = _fails('store_unavailable', svc.reserve, 'web', 'h2')
    assert 'rerun' in error.msg
    assert _state(spec) == before
    store.add_history = add_history
    # the same store object opens a new session and goes on
    assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.11'


def test_backend_killed_inside_a_pool_change_keeps_nothing(web, spec):
    store, svc = web
    before = _state(spec)
    save_pool = store.save_pool

    def dying(pool):
        save_pool(pool)
        _terminate(store)

    store.save_pool = dying
    _fails('store_unavailable', svc.pool, 'web', subnets=[{'cidr': '10.0.0.0/24'}, {'cidr': '10.2.0.0/24'}])
    assert _state(spec) == before


def test_backend_killed_between_operations_is_reopened(web, spec):
    store, svc = web
    _terminate(store)
    assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.11'
    _terminate(store)
    assert svc.info(pool='web')['pools'][0]['used'] == 2


def test_server_unreachable_after_opening_is_store_unavailable(web, spec):
    store, svc = web
    before = _state(spec)
    _terminate(store)
    store.spec = 'postgresql://postgres:%s@127.0.0.1:%d/x' % (SECRET, server.closed_port())
    store._secrets.append(SECRET)
    error = _fails('store_unavailable', svc.reserve, 'web', 'h2')
    assert SECRET not in error.msg
    assert _state(spec) == before


# -- locks ---------------------------------------------------------------------------

@pytest.fixture
def holder(spec, web):
    """A second controller's store, to hold locks with."""
    store = open_store(spec)
    yield store
    store.close()


def test_a_held_pool_lock_gives_store_busy_and_changes_nothing(web, holder, spec):
    before = _state(spec)
    _store, svc = _opened(spec, timeout=0.3)
    with holder.transaction():
        holder.lock_pool('default', 'web')
        holder.list_pools('default')    # an answer read: the lock is held now (it is sent, not awaited)
        error = _fails('store_busy', svc.reserve, 'web', 'h2')
        assert 'raise timeout' in error.msg
        _fails('store_busy', svc.release, pool='web', owner='h1')
        _fails('store_busy', svc.range, 'web', '10.0.0.250', kind='excluded')
    assert _state(spec) == before
    assert svc.reserve('web', 'h2')['changed'] is True   # once the lock is gone


def test_a_held_pool_lock_does_not_hold_other_pools(web, holder, spec):
    """Pool A locked by one controller (a transaction in progress): pool B allocates without waiting on it.

    The store's timeout is the lock timeout: a reserve that waited on any lock held by ``holder`` would
    fail with store_busy, however fast the machine. So 20 successes prove that none of them waited."""
    _store, svc = _opened(spec, timeout=0.2)
    with holder.transaction():
        holder.lock_pool('default', 'web')
        holder.list_pools('default')    # an answer read: the lock is held now (it is sent, not awaited)
        for i in range(20):
            svc.reserve('db', 'h%d' % i)
        _store2, busy = _opened(spec, timeout=0.2)
        _fails('store_busy', busy.reserve, 'web', 'h9')
    assert len(svc.info(pool='db')['reservations']) == 20


def test_the_namespace_lock_holds_every_pool_of_its_namespace_only(web, holder, spec):
    _store, svc = _opened(spec, timeout=0.3)
    with holder.transaction():
        holder.lock_namespace('default')
        holder.list_pools('default')    # an answer read: the lock is held now (it is sent, not awaited)
        _fails('store_busy', svc.reserve, 'db', 'h2')
        _fails('store_busy', svc.pool, 'new', subnets=[{'cidr': '10.9.0.0/24'}])
        svc.pool('other', namespace='lab', subnets=[{'cidr': '10.0.0.0/24'}])
        svc.reserve('other', 'h2', namespace='lab')
    with holder.transaction():
        holder.lock_pool('default', 'web')
        holder.list_pools('default')    # an answer read: the lock is held now (it is sent, not awaited)
        _fails('store_busy', svc.pool, 'web', subnets=[{'cidr': '10.0.0.0/23'}])


def test_a_waiting_writer_goes_on_once_the_lock_is_released(web, holder, spec):
    _store, svc = _opened(spec, timeout=10)
    done = []

    def reserve():
        done.append(svc.reserve('web', 'h2')['reservation']['address'])

    with holder.transaction():
        holder.lock_pool('default', 'web')
        holder.list_pools('default')    # an answer read: the lock is held now (it is sent, not awaited)
        thread = threading.Thread(target=reserve)
        thread.start()
        _wait_until_blocked(_store)     # the server says the writer waits on the lock: it cannot have reserved
        assert done == []
    thread.join(30)
    assert not thread.is_alive()
    assert done == ['10.0.0.11']


def _intrude(store, svc, pool, owner):
    """Save a copy of ``owner``'s reservation for another owner, bypassing the service: address_in_use, from
    the unique constraint alone (no lock, no free-span check), naming the address."""
    taken = svc.reserve(pool, owner)['reservation']
    with store.transaction(write=False):
        r = store.get_reservation('default', pool, owner, 'default').copy()
    r.owner = 'intruder'
    with pytest.raises(IpamError) as info:
        with store.transaction():
            store.save_reservation(r)
    assert info.value.code == 'address_in_use' and taken['address'] in info.value.msg


def test_the_unique_constraint_is_the_last_guard(web, spec):
    store, svc = web
    _intrude(store, svc, 'db', 'h5')
    assert len(svc.info(pool='db')['reservations']) == 1


def test_a_violation_psycopg_reports_as_pipeline_aborted_is_address_in_use(web, schema):
    """Leaving a pipeline, psycopg fetches the results after a failed statement's in a ``finally``: when they had
    not arrived with it, their "pipeline aborted" replaces the statement's UniqueViolation (CI saw a reservation
    over a damaged free span fail with store_unavailable). The store reads the violation behind it."""
    store, dummy = web
    with server.admin() as admin, pytest.raises(psycopg.errors.PipelineAborted) as raised:
        try:
            admin.execute('INSERT INTO %s.reservation SELECT * FROM %s.reservation' % (schema[1], schema[1]))
        finally:
            raise psycopg.errors.PipelineAborted('pipeline aborted')
    aborted = raised.value
    assert isinstance(aborted.__context__, psycopg.errors.UniqueViolation)
    assert store._translate(aborted).code == 'address_in_use'
    assert store._translate(psycopg.errors.PipelineAborted('pipeline aborted')).code == 'store_unavailable'


# -- processes ---------------------------------------------------------------------

def _child_reserves(store, queue):
    try:
        queue.put(Service(store).reserve('web', 'child')['reservation']['address'])
    except IpamError as e:
        queue.put(e.msg)


def test_a_forked_process_opens_its_own_session(web, spec):
    store, svc = web
    ctx = multiprocessing.get_context('fork')
    queue = ctx.Queue()
    child = ctx.Process(target=_child_reserves, args=(store, queue))
    child.start()
    assert queue.get(timeout=30) == '10.0.0.11'
    child.join()
    assert svc.reserve('web', 'parent')['reservation']['address'] == '10.0.0.12'
    assert [r['owner'] for r in svc.info(pool='web')['reservations']] == ['h1', 'child', 'parent']


def _child_closes(store, queue):
    store.close()
    del store
    gc.collect()
    queue.put('closed')


def test_a_forked_process_closing_the_store_leaves_the_parent_session_alone(web, spec):
    store, svc = web
    pid = store._conn.info.backend_pid
    ctx = multiprocessing.get_context('fork')
    queue = ctx.Queue()
    child = ctx.Process(target=_child_closes, args=(store, queue))
    child.start()
    assert queue.get(timeout=30) == 'closed'
    child.join()
    assert svc.reserve('web', 'parent')['reservation']['address'] == '10.0.0.11'
    assert store._conn.info.backend_pid == pid   # the same session: it was not ended and reopened
