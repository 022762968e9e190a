# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A PostgreSQL server restarted, paused or stopped under a play, through ansible-playbook.

The server is one of the test's own (own_postgresql.py: initdb on a loopback port, never the machine's
shared one). A 120-host play with forks 10 reserves one address per host; when 20 are held, the server is
restarted (a fast shutdown ends every session, then connections are refused until it is up again), or
paused with SIGSTOP until a task's request waits on it (the kernel's receive queue of the server's side of a
connection holds it), then resumed: no task fails, 120 distinct addresses, one history entry per host, ``verify``
clean. Paused until a task has failed at its ``timeout`` (its failure in the play's output): the tasks caught by it fail with ``store_busy`` or
``store_unavailable`` and a message that says what happened, nothing is half-written, and a rerun
completes the play. Two servers in a multi-host URL, the first stopped: the play runs on the second.
"""

import json
import threading
import uuid

import pytest

import psycopg

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support.own_postgresql import OwnServer, wait_until
from ansible_collections.netpool.ipam.tests.support.playbook import start_playbook

PLAYBOOK = """
- name: Reserve an address for every host
  hosts: all
  gather_facts: false
  tasks:
    - name: Reserve
      netpool.ipam.reservation:
        pool: shared
        owner: "{{ inventory_hostname }}"
        timeout: "{{ ipam_timeout | int }}"
      register: ipam
      ignore_errors: true

    - name: Write down what each host got
      ansible.builtin.copy:
        content: "{{ dict(ansible_play_hosts_all | zip(ansible_play_hosts_all | map('extract', hostvars, 'ipam'))) | to_json }}"
        dest: "{{ out }}"
        mode: "0600"
      delegate_to: localhost
      run_once: true
"""


@pytest.fixture(scope='module')
def pg():
    with OwnServer() as own:
        yield own


@pytest.fixture
def spec(pg):
    """A store in a schema of its own on the test's server, with pool ``shared`` (a /24)."""
    schema = 'faults_%s' % uuid.uuid4().hex[:10]
    with pg.connect() as conn:
        conn.execute('CREATE SCHEMA %s' % schema)
    url = '%s?options=-csearch_path%%3D%s' % (pg.dsn(), schema)
    store = open_store(url)
    Service(store).pool('shared', subnets=[{'cidr': '10.30.0.0/24'}])
    store.close()
    yield url


def count(conn):
    return conn.execute('SELECT count(*) FROM reservation').fetchone()[0]


def play(tmp_path, spec, hosts, timeout=30, fault=None, at=20, name='play'):
    """Run the play over ``hosts`` hosts; once ``at`` reservations are held, ``fault(output)`` (the play's output
    so far, a list of lines that grows as it runs). The results by host,
    the output, and how many were held when the fault began."""
    (tmp_path / 'play.yml').write_text(PLAYBOOK)
    inventory = tmp_path / 'hosts.ini'
    inventory.write_text('[all]\n' + ''.join('h%03d ansible_connection=local\n' % i for i in range(hosts)))
    out = tmp_path / ('%s.json' % name)
    proc = start_playbook('-i', inventory, '-f', '10', '-e', 'out=%s' % out, '-e', 'ipam_timeout=%d' % timeout,
                          tmp_path / 'play.yml', cwd=tmp_path, env={'NETPOOL_IPAM_STORE': spec})
    before = None
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, '')))
    reader.start()
    try:
        if fault is not None:
            with psycopg.connect(spec, autocommit=True) as conn:
                wait_until(lambda: proc.poll() is not None or count(conn) >= at, '%d reservations held' % at)
                before = count(conn)
            assert proc.poll() is None, 'the play ended before the fault: %s' % ''.join(lines)
            fault(lines)
        proc.wait(timeout=1200)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join()
    output = ''.join(lines)
    assert proc.returncode == 0, output
    return json.loads(out.read_text()), output, before


def state(spec):
    store = open_store(spec)
    try:
        service = Service(store)
        held = dict((r['owner'], r['address']) for r in service.info(pool='shared')['reservations'])
        history = [(h['action'], h['owner'], h['address'])
                   for h in service.info(pool='shared', history=True)['history'] if h['object'] == 'reservation']
        return held, history, service.verify()['problems']
    finally:
        store.close()


def assert_complete(spec, results, output, hosts):
    failed = dict((h, r) for h, r in results.items() if r.get('failed'))
    assert failed == {}, output
    assert 'failed=0' in output and 'ignored=0' in output
    got = dict((h, r['reservation']['address']) for h, r in results.items())
    assert len(got) == hosts and len(set(got.values())) == hosts
    held, history, problems = state(spec)
    assert held == got
    assert sorted(history) == sorted(('reserve', h, a) for h, a in got.items())    # one entry each, complete
    assert problems == []


def test_a_restart_in_the_middle_of_a_play_fails_no_task(pg, spec, tmp_path):
    results, output, before = play(tmp_path, spec, 120, fault=lambda output: pg.restart())
    assert before < 120
    assert_complete(spec, results, output, 120)
    assert 'database system is shut down' in pg.log_text(tail=None)     # it was restarted


def test_a_server_paused_while_a_task_waits_on_it_fails_no_task(pg, spec, tmp_path):
    def pause(output):
        pg.pause()
        try:    # until a task's request waits on the paused server: the pause is one a task lives through
            wait_until(pg.unanswered, 'a request waiting on the paused server')
        finally:
            pg.resume()
    results, output, before = play(tmp_path, spec, 120, fault=pause)
    assert before < 120
    assert_complete(spec, results, output, 120)


def test_a_server_paused_longer_than_the_timeout_fails_clearly_and_half_writes_nothing(pg, spec, tmp_path):
    def pause(output):
        pg.pause()
        try:    # until a task has given up on the paused server (its failure is in the play's output)
            wait_until(lambda: 'FAILED!' in ''.join(output), 'a task failing at its timeout')
        finally:
            pg.resume()
    results, output, before = play(tmp_path, spec, 30, timeout=3, fault=pause, at=5)
    assert before < 30
    failed = dict((h, r) for h, r in results.items() if r.get('failed'))
    assert failed, output       # the tasks caught by the pause gave up at their timeout
    held, history, problems = state(spec)
    for host, result in failed.items():
        assert result['error'] in ('store_busy', 'store_unavailable'), result
        assert 'Traceback' not in result['msg']
        assert 'timeout of 3 seconds' in result['msg'], result['msg']
        if host in held:    # only a commit whose answer was lost can have been kept: the message says so
            assert 'may or may not have been kept' in result['msg'], result['msg']
    for host, result in results.items():
        if not result.get('failed'):
            assert held[host] == result['reservation']['address']
    # nothing half-written: each reservation whole, with its history entry, free space exact, no address twice
    assert sorted(history) == sorted(('reserve', h, a) for h, a in held.items())
    assert len(set(held.values())) == len(held)
    assert problems == []
    # and the rerun completes the play: what was held stays, the rest is made
    results, output, _before = play(tmp_path, spec, 30, name='rerun')
    assert_complete(spec, results, output, 30)
    assert all(results[h]['reservation']['address'] == a for h, a in held.items())


def test_a_multi_host_url_with_the_first_server_stopped_runs_on_the_second(pg, tmp_path):
    with OwnServer() as second:
        pg.stop()
        try:
            spec = ('postgresql://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?target_session_attrs=read-write'
                    % (pg.port, second.port))
            store = open_store(spec)
            Service(store).pool('shared', subnets=[{'cidr': '10.30.0.0/24'}])
            store.close()
            results, output, _before = play(tmp_path, spec, 10)
            assert_complete(spec, results, output, 10)
            with second.connect() as conn:
                assert count(conn) == 10        # on the second server
        finally:
            pg.start()
