# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The PostgreSQL store and psycopg: without it, without pipeline mode, its public interface only (the connection
held in pipeline mode and let go without waiting, a rerun ended without a private Sync), and server-side
prepared statements: on by default, off by the URL's option, never deallocated behind psycopg's back, and
lost under a long-lived process (DISCARD ALL, DEALLOCATE ALL, a pooler) retried once without them."""

import gc
import logging
import os
import re
import subprocess
import sys

import psycopg
import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _postgresql, _postgresql_connection
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.plugins import params
from ansible_collections.netpool.ipam.tests.support.wire import RoundTrips
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.test_postgresql import (
    SECRET, _fails, _intrude, _opened, _state)


@pytest.fixture
def spec():
    with server.fresh_schema() as (url, _schema):
        yield url


def _journey(svc):
    """Owners at once, a rerun, a release, a resting address: the same answers on every path."""
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/29'}], reuse_delay=60)
    assert [r['address'] for r in svc.reserve_owners('web', ['a', 'b', 'c'])['reservations']] == [
        '10.0.0.1', '10.0.0.2', '10.0.0.3']
    assert svc.reserve('web', 'b')['changed'] is False
    assert [r['owner'] for r in svc.release(pool='web', owner='a')['released']] == ['a']
    assert svc.reserve('web', 'd')['reservation']['address'] == '10.0.0.4'    # 10.0.0.1 rests


# -- without psycopg, without pipeline mode ----------------------------------------------------------------------

def test_without_pipeline_mode_every_operation_still_works(spec, monkeypatch):
    """libpq before 14 has no pipeline mode: each statement is then its own round trip, with the same results."""
    monkeypatch.setattr(_postgresql_connection, 'PIPELINE', False)
    store, svc = _opened(spec)
    _journey(svc)
    _intrude(store, svc, 'web', 'c')
    assert store._pipeline is None
    store.close()


def test_a_rerun_ends_its_transaction_without_waiting_and_without_a_warning(spec):
    """A write transaction without BEGIN that wrote nothing (a rerun) ends by BEGIN and COMMIT sent, not waited for
    (psycopg has no public "send a Sync, do not wait"): the server lets go of the pool's lock, and says nothing
    (a COMMIT alone would warn "there is no transaction in progress", in the client and the server's log)."""
    store, svc = _opened(spec)
    notices = []
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/29'}])
    assert svc.reserve('web', 'a')['reservation']['address'] == '10.0.0.1'
    store._conn.add_notice_handler(lambda diag: notices.append(diag.message_primary))
    for _round in range(3):
        assert svc.reserve('web', 'a')['changed'] is False                 # locks, writes nothing
        assert svc.release(pool='web', owner='nobody')['changed'] is False
    assert store._pipeline is not None          # not left: its answers are read with the next transaction's
    other = open_store(spec, timeout=1)
    try:
        assert Service(other).reserve('web', 'b')['reservation']['address'] == '10.0.0.2'   # the lock was let go
    finally:
        other.close()
    assert svc.reserve('web', 'c')['reservation']['address'] == '10.0.0.3'
    assert [r['owner'] for r in svc.info(pool='web')['reservations']] == ['a', 'b', 'c']
    assert notices == []
    store.close()


def test_a_store_dropped_without_close_ends_its_session_without_waiting(spec, caplog):
    """A store left to the garbage collector with its connection in pipeline mode (after a rerun) closes it: not a
    byte waited for (a suspended ``Connection.pipeline()`` finalized on an open connection would sync and wait),
    nothing logged, the server's session ended."""
    store, svc = _opened(spec)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/29'}])
    svc.reserve('web', 'a')
    store.close()
    with RoundTrips(spec) as relay:
        store, svc = _opened(relay.spec)
        assert svc.reserve('web', 'a')['changed'] is False
        assert store._pipeline is not None
        pid = store._conn.info.backend_pid
        with caplog.at_level(logging.DEBUG, logger='psycopg'), relay.counting() as dropped:
            del store, svc
            gc.collect()
        assert dropped.round_trips == 0
        assert [r.getMessage() for r in caplog.records if r.name.startswith('psycopg')] == []
        with server.admin() as admin:
            for _wait in range(3000):
                if not admin.execute('SELECT 1 FROM pg_stat_activity WHERE pid = %s', (pid,)).fetchone():
                    break
                admin.execute('SELECT pg_sleep(0.01)')
            else:
                raise AssertionError('the session of a dropped store was not ended')


# -- server-side prepared statements ---------------------------------------------------------------------------

def _prepared(store):
    """The statements the server holds prepared for the store's session."""
    return [row[0] for row in store._conn.execute('SELECT statement FROM pg_prepared_statements',
                                                  prepare=False).fetchall()]


def test_statements_are_prepared_on_the_server_by_default(spec):
    """A reservation's statements are prepared the first time the connection runs them, then reused: the second
    reservation prepares nothing more (once none were: prepare_threshold=None)."""
    store, svc = _opened(spec)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    svc.reserve('web', 'h1')
    after_one = _prepared(store)
    assert any('pg_advisory_xact_lock' in s for s in after_one), after_one
    assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.2'
    assert sorted(_prepared(store)) == sorted(after_one)
    assert not any(s.startswith(('BEGIN', 'SET LOCAL', 'COMMIT')) for s in after_one), after_one
    store.close()


def test_prepared_statements_false_in_the_url_turns_them_off(spec):
    """For a pooler that loses them (pgbouncer in transaction mode before 1.21): nothing prepared, every operation
    the same; libpq never sees the option."""
    store, svc = _opened(spec + '&prepared_statements=false')
    _journey(svc)
    assert _prepared(store) == []
    store.close()


@pytest.mark.parametrize('url, dsn, prepared', [
    ('postgresql://u@h/db', 'postgresql://u@h/db', True),
    ('postgresql://u@h/db?prepared_statements=false', 'postgresql://u@h/db', False),
    ('postgresql://u@h/db?sslmode=require&prepared_statements=OFF&application_name=x',
     'postgresql://u@h/db?sslmode=require&application_name=x', False),
    ('postgresql://u@h/db?prepared_statements=true&options=-csearch_path%3Dipam',
     'postgresql://u@h/db?options=-csearch_path%3Dipam', True),
    ('postgresql://u@h/db?a_prepared_statements=x', 'postgresql://u@h/db?a_prepared_statements=x', True),
])
def test_the_prepared_statements_option_is_taken_out_of_the_url(url, dsn, prepared):
    assert _postgresql.prepared_statements(url, url) == (dsn, prepared)


def test_a_prepared_statements_value_that_is_not_a_boolean_is_invalid_argument(spec):
    with pytest.raises(IpamError) as refused:
        open_store(spec + '&prepared_statements=sometimes')
    assert refused.value.code == 'invalid_argument'
    assert 'prepared_statements=sometimes is neither true nor false' in refused.value.msg
    assert 'pgbouncer' in refused.value.msg


def test_a_statement_after_psycopg_forgets_what_it_prepared_is_not_deallocated_behind_its_back(spec):
    """psycopg forgets its prepared statements when it reads the answer of a DROP (or ALTER, ROLLBACK: a schema
    migration, an absent store's tables, a check-mode transaction) and deallocates them on the server after the
    next statement it sends. Read in pipeline mode, that answer may come with a later read's: the statement sent
    next must not be one psycopg prepares then (it would be deallocated at once, and fail when run again)."""
    store, svc = _opened(spec)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    for _round in range(20):
        with store.transaction():
            store._execute('CREATE TEMPORARY TABLE scratch (a INT)')
            store._execute('DROP TABLE scratch')                    # answered with the next read
            assert store._one('SELECT ?::int', (1,)) == (1,)       # reads the DROP's answer: psycopg forgets
            assert store._one('SELECT ?::int + 1', (1,)) == (2,)   # sent before the DEALLOCATE ALL
            assert store._one('SELECT ?::int + 1', (2,)) == (3,)   # run again: still prepared
    assert svc.reserve('web', 'h1')['reservation']['address'] == '10.0.0.1'
    store.close()


def test_a_deallocation_owed_at_commit_does_not_open_a_transaction_before_the_next_begin(spec):
    """A read that ends with ROLLBACK (verify) is answered with the next transaction's first read; psycopg then
    forgets its prepared statements and owes the server a DEALLOCATE ALL, which it sends right after the next
    statement: COMMIT of a transaction that wrote nothing. Unawaited, it would open an implicit transaction in
    which the next BEGIN ISOLATION LEVEL fails ("must be called before any query"; found by the stateful fuzz)."""
    store, svc = _opened(spec)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    svc.reserve('web', 'h0')
    for _round in range(3):
        assert svc.verify()['problems'] == []                      # its ROLLBACK is answered later
        assert svc.release(owner='h1')['changed'] is False          # reads that answer; wrote nothing: COMMIT
        assert [p['name'] for p in svc.info()['pools']] == ['web']  # BEGIN ISOLATION LEVEL ... next
    store.close()


def test_module_utils_import_without_psycopg():
    code = ('import sys; sys.modules["psycopg"] = None\n'
            'from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store\n'
            'from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError\n'
            'try:\n'
            '    open_store("postgresql://ipam:%s@127.0.0.1/ipam")\n'
            'except IpamError as e:\n'
            '    print(e.code); print(e.msg)\n' % SECRET)
    import ansible_collections
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.dirname(p) for p in ansible_collections.__path__))
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True).stdout
    code_, msg = out.splitlines()[:2]
    assert code_ == 'store_unavailable'
    assert "pip install 'psycopg[binary]'" in msg and SECRET not in msg


def test_store_missing_psycopg_says_how_to_install(monkeypatch):
    monkeypatch.setattr(_postgresql, 'psycopg', None)
    error = _fails('store_unavailable', open_store, 'postgresql://ipam:%s@db.example/ipam' % SECRET)
    assert "pip install 'psycopg[binary]'" in error.msg and SECRET not in error.msg


def _reserve(spec, owner):
    return _runner.run('reservation', params('reservation', spec, pool='web', owner=owner))


@pytest.mark.parametrize('drop', ['DEALLOCATE ALL', 'DISCARD ALL'])
def test_prepared_statements_dropped_under_a_long_lived_process_are_retried_without_them(spec, drop):
    """A process that keeps its store (the Terraform provider, a lookup in a play) while its session's prepared
    statements vanish behind psycopg's back: DEALLOCATE ALL or DISCARD ALL run on its session by someone else
    (what a pooler's reset query does). The next operation fails "prepared statement ... does not exist" before its
    commit: it runs once more without prepared statements, and succeeds (before: store_unavailable)."""
    _runner.run('pool', params('pool', spec, name='web', cidr='10.0.0.0/24'))
    try:
        assert _reserve(spec, 'h1')['reservation']['address'] == '10.0.0.1'
        store = _runner.service_for(params('reservation', spec, pool='web', owner='h1')).store
        assert _prepared(store)
        assert store._conn.pgconn.pipeline_status == psycopg.pq.PipelineStatus.OFF   # left: the reservation wrote
        store._conn.pgconn.exec_(drop.encode())         # libpq's own: psycopg does not see it
        assert _prepared(store) == []
        for owner, address in (('h2', '10.0.0.2'), ('h3', '10.0.0.3')):
            assert _reserve(spec, owner)['reservation']['address'] == address
        assert _reserve(spec, 'h1')['changed'] is False
        reopened = _runner.service_for(params('reservation', spec, pool='web', owner='h1')).store
        assert _prepared(reopened) == []            # this process prepares nothing on this URL from now on
    finally:
        _runner.forget(params('reservation', spec, pool='web', owner='h1'))
    state = _state(spec)
    assert sorted((r['owner'], r['address']) for r in state['reservations']) == [
        ('h1', '10.0.0.1'), ('h2', '10.0.0.2'), ('h3', '10.0.0.3')]


def test_prepared_statements_lost_name_the_option_that_turns_them_off(spec):
    """Where nothing retries (a store used outside a task), the failure says what happened and names
    prepared_statements=false; the store's next transaction runs on a new connection, without prepared
    statements."""
    store, svc = _opened(spec)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    assert svc.reserve('web', 'h1')['reservation']['address'] == '10.0.0.1'
    store._conn.pgconn.exec_(b'DEALLOCATE ALL')
    error = _fails('store_unavailable', svc.reserve, 'web', 'h2')
    assert 'does not exist' in error.msg and 'prepared_statements=false' in error.msg, error.msg
    assert 'DISCARD ALL' in error.msg and 'Nothing of the transaction was kept' in error.msg
    assert error.retry == 'transaction'
    assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.2'
    assert svc.reserve('web', 'h1')['changed'] is False
    assert _prepared(store) == []
    store.close()


def test_the_store_reads_no_private_name_of_psycopg():
    """psycopg through its public interface only (docs/developing.md): no attribute of a psycopg object whose name
    begins with an underscore, by name or through getattr/hasattr, and no pylint protected-access waived."""
    stores = os.path.dirname(_postgresql.__file__)
    found = []
    for name in sorted(os.listdir(stores)):
        if name.startswith('_postgresql') and name.endswith('.py'):
            with open(os.path.join(stores, name)) as f:
                text = f.read()
            found += ['%s: %s' % (name, hit) for hit in re.findall(
                r"(?:conn|pipeline|Pipeline|psycopg|pgconn|cursor|pg_errors)\._\w+|(?:get|has)attr\((?!self\b)[^)]*'_\w+'"
                r"|protected-access", text)]
    assert found == []
