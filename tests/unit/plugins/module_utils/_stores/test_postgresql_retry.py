# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a task retries on PostgreSQL (plugins/module_utils/_stores/_retry.py), one failure at a time.

Each retried SQLSTATE is raised by the real server inside the first attempt's transaction (``RAISE ...
USING ERRCODE``, or a session really terminated by ``pg_terminate_backend``): the task then succeeds,
with one reservation and one history entry. An error that is not safe to retry fails at once. A commit
whose answer is lost (the server applied it, then the connection went) is resolved by reading the store:
the task reports the reservation the store holds, ``changed: true``, never a second address. Runs on the
machine's shared server (postgresql_server.py), a schema per test.
"""

import pytest

import psycopg

from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreBusy, StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _postgresql_connection
from ansible_collections.netpool.ipam.plugins.module_utils._stores._postgresql import PostgresqlStore
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server


@pytest.fixture
def spec():
    with server.fresh_schema('retry') as (url, _schema):
        store = open_store(url)
        Service(store).pool('web', subnets=[{'cidr': '10.9.0.0/24'}])
        store.close()
        yield url


def reserve(spec, owner, timeout=30):
    """``netpool.ipam.reservation`` as a task runs it (the runner's retries included)."""
    return _runner.with_service({'store': spec, 'timeout': timeout}, None,
                                lambda service: service.reserve('web', owner))


def held(spec):
    store = open_store(spec)
    try:
        service = Service(store)
        return ([(r['owner'], r['address']) for r in service.info(pool='web')['reservations']],
                [(h['action'], h['owner'], h['address']) for h in service.info(pool='web', history=True)['history']
                 if h['object'] == 'reservation'], service.verify()['problems'])
    finally:
        store.close()


def fail_first_lock(monkeypatch, how):
    """The first ``lock_pool`` of the test fails in the way ``how(store)`` makes it; returns the attempt log."""
    log = []
    lock_pool = PostgresqlStore.lock_pool

    def failing(self, namespace, name):
        log.append(name)
        if len(log) == 1:
            how(self)
        return lock_pool(self, namespace, name)
    monkeypatch.setattr(PostgresqlStore, 'lock_pool', failing)
    return log


def raise_sqlstate(sqlstate):
    def how(store):
        store._rows("DO $$ BEGIN RAISE EXCEPTION 'injected by the test' USING ERRCODE = '%s'; END $$" % sqlstate)
    return how


@pytest.mark.parametrize('sqlstate', ['08000', '08003', '08006', '57P01', '57P02', '57P03', '40001', '40P01'])
def test_each_retried_sqlstate_is_retried_and_the_task_succeeds(spec, monkeypatch, sqlstate):
    log = fail_first_lock(monkeypatch, raise_sqlstate(sqlstate))
    result = reserve(spec, 'a')
    assert result['changed'] and result['reservation']['address'] == '10.9.0.1'
    assert len(log) == 2    # the whole service call ran again, from its start
    reservations, history, problems = held(spec)
    assert reservations == [('a', '10.9.0.1')]
    assert history == [('reserve', 'a', '10.9.0.1')]
    assert problems == []


def test_a_session_terminated_by_the_server_is_retried(spec, monkeypatch):
    """57P01 for real: the backend of the transaction is ended by pg_terminate_backend (what a fast
    shutdown does to every session) while the transaction is open."""
    def terminate(store):
        with server.admin() as admin:
            admin.execute('SELECT pg_terminate_backend(%s)', (store._conn.info.backend_pid,))
    log = fail_first_lock(monkeypatch, terminate)
    result = reserve(spec, 'a')
    assert result['changed'] and result['reservation']['address'] == '10.9.0.1'
    assert len(log) == 2
    assert held(spec)[:2] == ([('a', '10.9.0.1')], [('reserve', 'a', '10.9.0.1')])


@pytest.mark.parametrize('sqlstate', ['22012', '42501', '23505', '55P03'])
def test_an_error_that_is_not_safe_to_retry_fails_at_once(spec, monkeypatch, sqlstate):
    log = fail_first_lock(monkeypatch, raise_sqlstate(sqlstate))
    with pytest.raises((StoreUnavailable, StoreBusy)) as failed:
        reserve(spec, 'a')
    assert len(log) == 1
    assert 'Tried' not in failed.value.msg
    assert held(spec) == ([], [], [])


def test_a_retried_failure_past_the_timeout_says_what_was_tried(spec, monkeypatch):
    log = []

    def always(self, namespace, name):
        log.append(name)
        raise_sqlstate('40001')(self)
    monkeypatch.setattr(PostgresqlStore, 'lock_pool', always)
    with pytest.raises(StoreBusy) as failed:
        reserve(spec, 'a', timeout=1)
    assert len(log) >= 2
    assert failed.value.code == 'store_busy'
    assert 'Tried %d times within the task\'s timeout of 1 seconds' % len(log) in failed.value.msg
    assert 'raise timeout' in failed.value.msg
    assert held(spec) == ([], [], [])


def lose_the_commit_answer(monkeypatch, applied):
    """The first COMMIT of a change: applied by the server (``applied``) or not, then the connection is
    lost before its answer is read; returns a list that counts commits."""
    finish = PostgresqlStore._finish
    commits = []

    def lossy(self, keep):
        if not (keep and self._entry is not None) or commits:
            return finish(self, keep)
        commits.append(keep)
        self._committing = True
        if applied:
            finish(self, keep)
            self._committing = True
        _postgresql_connection._hang_up(self._conn)
        self._one('SELECT 1')      # the connection is gone: psycopg raises OperationalError
        raise AssertionError('the connection was expected to be gone')
    monkeypatch.setattr(PostgresqlStore, '_finish', lossy)
    return commits


def test_a_lost_commit_the_server_applied_reports_what_the_store_holds(spec, monkeypatch):
    reserve(spec, 'before')
    commits = lose_the_commit_answer(monkeypatch, applied=True)
    result = reserve(spec, 'a')
    assert commits == [True]
    # what the store holds, and changed: true (this task made it), never a second address
    assert result['changed'] is True
    assert result['reservation']['address'] == '10.9.0.2'
    reservations, history, problems = held(spec)
    assert reservations == [('before', '10.9.0.1'), ('a', '10.9.0.2')]
    assert history == [('reserve', 'before', '10.9.0.1'), ('reserve', 'a', '10.9.0.2')]
    assert problems == []
    # the next one is the next address: nothing was taken twice, nothing leaked
    assert reserve(spec, 'b')['reservation']['address'] == '10.9.0.3'
    assert not reserve(spec, 'a')['changed']


def test_a_lost_commit_the_server_did_not_apply_is_made_once(spec, monkeypatch):
    commits = lose_the_commit_answer(monkeypatch, applied=False)
    result = reserve(spec, 'a')
    assert commits == [True]
    assert result['changed'] is True and result['reservation']['address'] == '10.9.0.1'
    assert held(spec) == ([('a', '10.9.0.1')], [('reserve', 'a', '10.9.0.1')], [])


def test_applied_reads_the_history_entry_of_the_transaction(spec):
    store = open_store(spec)
    try:
        Service(store).reserve('web', 'a')
        entry = Service(store).info(pool='web', history=True)['history'][-1]
        mine = dict((k, entry[k]) for k in ('time', 'namespace', 'pool', 'object', 'action', 'owner', 'key',
                                            'address', 'old', 'new'))
        assert store.commit_landed(mine)
        assert not store.commit_landed(dict(mine, time='1999-01-01T00:00:00Z'))
        assert not store.commit_landed(dict(mine, owner='b'))
    finally:
        store.close()


def test_retryable_sqlstates():
    for state in ('08000', '08001', '08003', '08004', '08006', '08007', '08P01', '57P01', '57P02', '57P03',
                  '40001', '40P01'):
        assert _postgresql_connection.retryable_sqlstate(state), state
    for state in (None, '', '23505', '55P03', '57014', '42501', '28P01', '3D000', '57P04', '40002'):
        assert not _postgresql_connection.retryable_sqlstate(state), state


def test_a_refused_connection_is_retried_a_refused_login_is_not(monkeypatch):
    closed = 'postgresql://postgres@127.0.0.1:%d/postgres' % server.closed_port()
    with pytest.raises(StoreUnavailable) as refused:
        _runner.with_service({'store': closed, 'timeout': 1}, None, lambda s: s.info())
    assert 'Connection refused' in refused.value.msg and 'Tried' in refused.value.msg
    server.require_server()
    bad_db = server.url('public').replace('/netpool_ipam_test?', '/netpool_no_such_database?')
    with pytest.raises(StoreUnavailable) as final:
        _runner.with_service({'store': bad_db, 'timeout': 30}, None, lambda s: s.info())
    assert 'does not exist' in final.value.msg and 'Tried' not in final.value.msg


def test_retry_call_rules():
    """``_retry.call`` alone: retried kinds until the deadline, others at once, a lost commit resolved."""
    attempts = []

    def flaky():
        attempts.append(1)
        if len(attempts) < 3:
            raise _retry.mark(StoreUnavailable('down'), _retry.CONNECT)
        return {'changed': False}
    assert _retry.call(flaky, 30, sleep=lambda s: None) == {'changed': False}
    assert len(attempts) == 3

    def wrong():
        attempts.append(1)
        raise StoreUnavailable('login refused')
    del attempts[:]
    with pytest.raises(StoreUnavailable):
        _retry.call(wrong, 30, sleep=lambda s: None)
    assert len(attempts) == 1

    seen = []

    def lost_then_found():
        if not seen:
            seen.append('lost')
            raise _retry.mark(StoreUnavailable('gone'), _retry.COMMIT, {'entry': 1})
        return {'changed': False}
    assert _retry.call(lost_then_found, 30, commit_landed=lambda e: e == {'entry': 1}, sleep=lambda s: None) == \
        {'changed': True}
    seen[:] = []
    assert _retry.call(lost_then_found, 30, commit_landed=lambda e: False, sleep=lambda s: None) == {'changed': False}


def test_the_cached_connection_survives_a_server_ending_it_between_two_tasks(spec):
    """A connection of the process, ended by the server while idle (a restart, a fail-over): the next task
    opens another, silently."""
    assert reserve(spec, 'a')['changed']
    service = _runner.service_for({'store': spec, 'timeout': 30})
    with server.admin() as admin:
        admin.execute('SELECT pg_terminate_backend(%s)', (service.store._conn.info.backend_pid,))
    assert reserve(spec, 'b')['reservation']['address'] == '10.9.0.2'
    assert not reserve(spec, 'a')['changed']


def test_psycopg_reports_a_lost_connection_as_operational_error():
    """What ``_translate`` relies on: a connection whose socket is shut is broken, OperationalError."""
    server.require_server()
    conn = psycopg.connect(server.database_dsn(), autocommit=True)
    _postgresql_connection._hang_up(conn)
    with pytest.raises(psycopg.OperationalError):
        conn.execute('SELECT 1')
    assert conn.broken
    conn.close()


# -- the watchdog: one thread per process, every transaction's deadline kept ----------------------

def sent(spec):
    """How many times a ``slow`` statement reached the server (a sequence: not rolled back with its transaction)."""
    with server.admin() as admin:
        return admin.execute("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM %s.sent"
                             % spec.rsplit('%3D', 1)[1]).fetchone()[0]


def slow_statement(spec):
    """A statement the server answers after 30 s, counted in ``sent``; its text names the test's schema, so that a
    test ending in another worker hangs up on its own statements only (``counted``), never on this one's (which
    the store would then retry, sending it twice)."""
    return "SELECT nextval('sent'), pg_sleep(30) -- %s" % spec.rsplit('%3D', 1)[1]


def slow(store):
    store._rows(slow_statement(store.spec))


@pytest.fixture
def counted(spec):
    with server.admin() as admin:
        admin.execute('CREATE SEQUENCE %s.sent' % spec.rsplit('%3D', 1)[1])
    yield spec
    with server.admin() as admin:   # the server would let the statement sleep on: it holds the schema's sequence
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND "
                      "query = %s", (slow_statement(spec),))


def in_transaction(store):
    with store.transaction():
        slow(store)


def test_a_server_that_does_not_answer_by_the_deadline_is_hung_up_on(counted):
    """A transaction whose first statement the server answers only after 30 s, on the process's connection (opened
    by an earlier task): at the task's timeout (1 s) the watchdog shuts the connection, and the task fails with a
    message that says so. The statement is not sent again on another connection (once the transaction
    was replayed there, as for a connection found dead, and the task waited the 30 s): the watchdog's hang-up is
    not a connection found dead."""
    params = {'store': counted, 'timeout': 1}
    assert reserve(counted, 'a', timeout=1)['changed']
    with pytest.raises(StoreUnavailable) as failed:
        _runner.with_service(params, None, lambda service: in_transaction(service.store))
    assert 'did not answer within the timeout of 1 seconds' in failed.value.msg, failed.value.msg
    assert sent(counted) == 1
    assert reserve(counted, 'a', timeout=1)['changed'] is False     # the next task opens another connection


def test_one_watchdog_thread_serves_every_transaction_of_a_process(spec, monkeypatch):
    """Twenty tasks of one process start at most one thread (once a threading.Timer per transaction)."""
    reserve(spec, 'warm')
    started = []
    start = _retry.threading.Thread.start

    def counted(thread):
        started.append(thread.name)
        return start(thread)
    monkeypatch.setattr(_retry.threading.Thread, 'start', counted)
    for i in range(20):
        assert reserve(spec, 'h%d' % i)['changed']
    assert len(started) <= 1, started


def test_the_watchdog_calls_what_is_due_and_only_that():
    """``Watchdog`` alone: a deadline passed is given up on; one disarmed before its deadline never is; a later
    deadline armed while the thread sleeps on an earlier one is kept, and an earlier one wakes it."""
    import threading
    import time
    watchdog = _retry.Watchdog()
    fired = []
    done = threading.Event()
    now = time.monotonic()
    late = watchdog.arm(now + 3600, lambda: fired.append('late'))
    watchdog.arm(now + 0.2, lambda: fired.append('kept'))
    gone = watchdog.arm(now + 0.1, lambda: fired.append('gone'))
    watchdog.disarm(gone)
    watchdog.arm(now + 0.3, lambda: (fired.append('last'), done.set()))
    assert done.wait(60), fired
    watchdog.disarm(late)
    assert fired == ['kept', 'last']


def test_a_forked_process_has_a_watchdog_of_its_own(counted):
    """A forked worker (Ansible's) does not inherit its parent's watchdog thread: the child starts its own, and a
    server that does not answer is still hung up on there."""
    import multiprocessing
    spec = counted
    reserve(spec, 'parent')         # the parent's watchdog runs

    def child(queue):
        store = open_store(spec, timeout=1)
        try:
            with pytest.raises(StoreUnavailable) as failed:
                _retry.call(lambda: in_transaction(store), 1)
            queue.put(failed.value.msg)
        except BaseException as e:  # pylint: disable=broad-except
            queue.put(repr(e))
    ctx = multiprocessing.get_context('fork')
    queue = ctx.Queue()
    process = ctx.Process(target=child, args=(queue,))
    process.start()
    said = queue.get(timeout=60)
    process.join(60)
    assert 'did not answer within the timeout' in said, said
    assert sent(spec) == 1
