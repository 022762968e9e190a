# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A task's PostgreSQL session ended by the server (``pg_terminate_backend``) at a chosen point, for real.

The point is chosen on the server, never by timing: the test's own session holds an advisory lock that the
task's session must take there, waits until the task's session waits for it (``pg_blocking_pids``), ends that
session, then lets the lock go. Two points: the pool's lock (inside the transaction, before anything is
committed) and the transaction's commit (a deferred constraint trigger on ``history`` takes the lock when the
transaction commits). Either way the task succeeds: the first is run again, the second is resolved by reading the
store (its commit did not land) and run again; one reservation, one history entry, ``changed: true``. A commit
that landed and whose answer a relay between them dropped is found by reading the store. And none of
psycopg's "error ignored" warnings reaches stderr: through ansible-playbook they showed as "WorkerProcess ...
errantly sent data directly to stderr".
"""

import contextlib
import socket
import threading
import time

from urllib.parse import urlsplit, urlunsplit

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._postgresql import PostgresqlStore, _lock_key
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.playbook import start_playbook

#: the advisory lock the triggers take (any key no store uses: theirs hash a schema name)
HELD_KEY = 4343


@pytest.fixture
def store():
    """``(url, schema)`` of a store with pool ``web`` whose commits of a history entry under key ``KEY`` take the
    advisory lock ``HELD_KEY`` (shared) first."""
    with server.fresh_schema('killed') as (url, schema):
        opened = open_store(url)
        Service(opened).pool('web', subnets=[{'cidr': '10.43.0.0/24'}])
        opened.close()
        with server.admin() as admin:
            admin.execute('CREATE FUNCTION %s.held_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN '
                          'PERFORM pg_advisory_xact_lock_shared(%d); RETURN NULL; END $$' % (schema, HELD_KEY))
            admin.execute("CREATE CONSTRAINT TRIGGER held_at_commit AFTER INSERT ON %s.history DEFERRABLE "
                          "INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.key = 'at-commit') "
                          "EXECUTE FUNCTION %s.held_at_commit()" % (schema, schema))
            admin.execute("CREATE TRIGGER held_in_the_writes AFTER INSERT ON %s.history FOR EACH ROW "
                          "WHEN (NEW.key = 'in-the-writes') EXECUTE FUNCTION %s.held_at_commit()" % (schema, schema))
        yield url, schema


def pool_key(schema):
    return _lock_key(schema, 'pool', 'default', 'web')


@contextlib.contextmanager
def ending_sessions_at(key):
    """Hold advisory lock ``key`` in the block; ``end()`` waits until a session waits for it, ends every session
    then waiting for it (their pids are returned), and lets it go."""
    with server.admin() as admin:
        admin.execute('SELECT pg_advisory_lock(%s)', (key,))
        state = {'held': True}

        def end():
            deadline = time.monotonic() + 60
            while True:
                pids = [r[0] for r in admin.execute(
                    'SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))')]
                if pids or time.monotonic() > deadline:
                    break
                time.sleep(0.01)    # polling a condition on the server, not a timing of the verdict
            assert pids, 'no session waited for the lock within 60 seconds'
            for pid in pids:
                admin.execute('SELECT pg_terminate_backend(%s, 10000)', (pid,))
            admin.execute('SELECT pg_advisory_unlock(%s)', (key,))
            state['held'] = False
            return pids
        try:
            yield end
        finally:
            if state['held']:
                admin.execute('SELECT pg_advisory_unlock(%s)', (key,))


def ended_before_its_commit(monkeypatch):
    """The first transaction that commits waits, before it sends its writes and COMMIT, until its session has been
    ended (``pg_terminate_backend`` waiting for it to be gone): its commit goes to a session that no longer is.
    Returns the list the ended pids are put in."""
    ended = []
    finish = PostgresqlStore._finish

    def parked(self, keep):
        if keep and not ended:
            with server.admin() as admin:
                pid = self._conn.info.backend_pid
                assert admin.execute('SELECT pg_terminate_backend(%s, 10000)', (pid,)).fetchone()[0]
            ended.append(pid)
        return finish(self, keep)
    monkeypatch.setattr(PostgresqlStore, '_finish', parked)
    return ended


def held(url):
    opened = open_store(url)
    try:
        service = Service(opened)
        return ([(r['owner'], r['key'], r['address']) for r in service.info(pool='web')['reservations']],
                [(h['action'], h['owner'], h['key']) for h in service.info(pool='web', history=True)['history']
                 if h['object'] == 'reservation'], service.verify()['problems'])
    finally:
        opened.close()


@pytest.mark.parametrize('point', ['pool-lock', 'before-commit', 'in-the-writes', 'at-commit'])
def test_a_session_ended_at_a_chosen_point_is_retried_and_the_task_succeeds(store, point, caplog, monkeypatch):
    url, schema = store
    result = {}
    if point == 'before-commit':
        ended = ended_before_its_commit(monkeypatch)
        result['ok'] = _runner.with_service({'store': url, 'timeout': 30}, None,
                                            lambda service: service.reserve('web', 'h1', key=point))
        assert len(ended) == 1
        assert result['ok']['changed'] is True and result['ok']['reservation']['address'] == '10.43.0.1'
        assert held(url) == ([('h1', point, '10.43.0.1')], [('reserve', 'h1', point)], [])
        assert [r.getMessage() for r in caplog.records if r.name.startswith('psycopg')] == []
        return

    def reserve():
        try:
            result['ok'] = _runner.with_service({'store': url, 'timeout': 30}, None,
                                                lambda service: service.reserve('web', 'h1', key=point))
        except Exception as e:  # pylint: disable=broad-except
            result['error'] = e
    with ending_sessions_at(pool_key(schema) if point == 'pool-lock' else HELD_KEY) as end:
        task = threading.Thread(target=reserve)
        task.start()
        ended = end()
        task.join(60)
    assert len(ended) == 1
    assert 'error' not in result, result['error']
    assert result['ok']['changed'] is True and result['ok']['reservation']['address'] == '10.43.0.1'
    assert held(url) == ([('h1', point, '10.43.0.1')], [('reserve', 'h1', point)], [])
    # what psycopg logs on ignoring an error while leaving a pipeline reaches no handler (nor Python's last resort,
    # stderr, when no logging is configured)
    assert [r.getMessage() for r in caplog.records if r.name.startswith('psycopg')] == []


class Relay(object):
    """A TCP relay to the server on loopback (``self.spec``: the store URL through it). ``drop_answers()``: from then
    on what the server sends on the connections open now is not passed on; ``cut()`` closes them (new connections
    are relayed as ever)."""

    def __init__(self, spec):
        url = urlsplit(spec)
        self.target = (url.hostname, url.port or 5432)
        self.listener = socket.socket()
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(8)
        auth = url.netloc.rpartition('@')[0]
        netloc = '%s127.0.0.1:%d' % (auth + '@' if auth else '', self.listener.getsockname()[1])
        self.spec = urlunsplit((url.scheme, netloc, url.path, url.query, url.fragment))
        self.open, self.dropping = [], set()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return
            server_side = socket.create_connection(self.target)
            pair = (client, server_side)
            self.open.append(pair)
            threading.Thread(target=self._pump, args=(client, server_side, None), daemon=True).start()
            threading.Thread(target=self._pump, args=(server_side, client, pair), daemon=True).start()

    def _pump(self, source, sink, pair):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    return
                if pair is None or pair not in self.dropping:
                    sink.sendall(data)
        except OSError:
            return

    def drop_answers(self):
        self.dropping.update(self.open)

    def cut(self):
        for pair in list(self.dropping):
            for sock in pair:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
        self.dropping.clear()

    def close(self):
        self.listener.close()


def committed(schema):
    with server.admin() as admin:
        return admin.execute("SELECT count(*) FROM %s.reservation WHERE key = 'at-commit'" % schema).fetchone()[0]


def test_a_commit_that_landed_and_whose_answer_was_lost_is_found_by_reading_the_store(store, caplog):
    """The server commits the transaction, its answer never reaches the task (a relay between them drops it, then
    the connection is cut): the task reads the store, finds its history entry, and reports the reservation the
    commit made, ``changed: true``, never a second one."""
    url, schema = store
    relay = Relay(url)
    result = {}

    def reserve():
        try:
            result['ok'] = _runner.with_service({'store': relay.spec, 'timeout': 30}, None,
                                                lambda service: service.reserve('web', 'h1', key='at-commit'))
        except Exception as e:  # pylint: disable=broad-except
            result['error'] = e
    try:
        with server.admin() as admin:
            admin.execute('SELECT pg_advisory_lock(%s)', (HELD_KEY,))
            task = threading.Thread(target=reserve)
            task.start()
            deadline = time.monotonic() + 60
            while not admin.execute('SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY('
                                    'pg_blocking_pids(pid))').fetchone():     # the task's commit waits for it
                assert time.monotonic() < deadline, 'the commit never waited for the lock'
                time.sleep(0.01)
            relay.drop_answers()
            admin.execute('SELECT pg_advisory_unlock(%s)', (HELD_KEY,))
        while committed(schema) == 0:       # the commit landed; its answer was dropped
            assert time.monotonic() < deadline, 'the commit never landed'
            time.sleep(0.01)
        relay.cut()
        task.join(60)
    finally:
        relay.close()
    assert 'error' not in result, result['error']
    assert result['ok']['changed'] is True and result['ok']['reservation']['address'] == '10.43.0.1'
    assert held(url) == ([('h1', 'at-commit', '10.43.0.1')], [('reserve', 'h1', 'at-commit')], [])
    assert [r.getMessage() for r in caplog.records if r.name.startswith('psycopg')] == []


PLAYBOOK = """
- name: Reserve two addresses for every host
  hosts: all
  gather_facts: false
  tasks:
    - name: Reserve, the session ended at the pool's lock
      netpool.ipam.reservation: {pool: web, owner: "{{ inventory_hostname }}", key: pool-lock}
    - name: Reserve, the session ended at the commit
      netpool.ipam.reservation: {pool: web, owner: "{{ inventory_hostname }}", key: at-commit}
"""


def test_a_play_whose_sessions_are_ended_at_the_lock_and_at_the_commit_fails_nothing_and_warns_nothing(
        store, tmp_path):
    url, schema = store
    hosts = ['h%d' % i for i in range(4)]
    (tmp_path / 'play.yml').write_text(PLAYBOOK)
    (tmp_path / 'hosts.ini').write_text('[all]\n' + ''.join('%s ansible_connection=local\n' % h for h in hosts))
    with ending_sessions_at(pool_key(schema)) as end_at_lock, ending_sessions_at(HELD_KEY) as end_at_commit:
        proc = start_playbook('-i', 'hosts.ini', '-f', '4', 'play.yml', cwd=tmp_path, env={'NETPOOL_IPAM_STORE': url})
        try:
            ended = [end_at_lock(), end_at_commit()]
            output = proc.communicate(timeout=600)[0]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, output
    assert all(ended), ended
    assert 'failed=0' in output
    assert 'errantly sent data' not in output and 'error ignored' not in output, output
    reservations, history, problems = held(url)
    assert sorted((o, k) for o, k, _a in reservations) == sorted((h, k) for h in hosts
                                                                 for k in ('pool-lock', 'at-commit'))
    assert len(set(a for _o, _k, a in reservations)) == 8
    assert sorted(history) == sorted(('reserve', h, k) for h in hosts for k in ('pool-lock', 'at-commit'))
    assert problems == []
