# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""NetBox going away under a task: retried until the task's ``timeout``, as PostgreSQL is (docs/reliability.md,
"Servers that go away"), against the session's real NetBox (netbox_server.py).

One failure at a time, through a loopback relay in front of NetBox (http_relay.py): connections refused for a
while, reset, a proxy answering 502/503/504, and a write whose answer is lost after NetBox applied it (or before
it reached NetBox). Each task runs as a module runs it (``_runner.with_service``, its retries included) and
ends with one reservation, one history entry, ``verify`` clean; a reservation's ``POST`` reaches NetBox once.
Then a play restarted under: NetBox's gunicorn stopped and started again in the middle of a play of 30 hosts x 4
reservations, no task fails, every address distinct, nothing left over. Skipped with the reason where NetBox
cannot run, unless NETPOOL_IPAM_TEST_NETBOX=required (CI).

The task's ``timeout`` as a whole, against loopback servers that are not NetBox (http_relay.Canned): one that
accepts and never answers, one that resets every connection, one answering 429 with a Retry-After, a plain HTTP
server named by ``netbox+https``. What is counted, not timed: the connections each server saw, the attempts, the
socket timeout each request was given against what was left (a clock that moves only when slept on).
"""

import json
import re
import threading
import time

import pytest
import requests

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreBusy, StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import netbox_server as netbox
from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.support.http_relay import Canned, Relay, page
from ansible_collections.netpool.ipam.tests.support.playbook import start_playbook

ALLOCATION = 'POST /api/ipam/ip-ranges/'

#: the API token given to a server that is not NetBox (it never reads it)
TOKEN = '0123456789abcdef0123456789abcdef01234567'


@pytest.fixture
def web():
    """The session's NetBox, emptied, with pool ``web`` (a /24)."""
    netbox.wipe()
    store = netbox.open_store()
    Service(store).pool('web', subnets=[{'cidr': '10.40.0.0/24'}])
    store.close()


def task(url, work, timeout=60, token=None):
    """``work(service)`` on the NetBox at ``url`` as a module runs it (the runner's retries included)."""
    return _runner.with_service({'store': 'netbox+' + url, 'store_token': token or netbox.token(), 'timeout': timeout},
                                None, work)


def fails_against(server, error, timeout, url=None):
    """The error a reservation on ``server`` (no NetBox) fails with, as a module runs it."""
    with pytest.raises(error) as failed:
        task(url or server.url, lambda service: service.reserve('web', 'a'), timeout, TOKEN)
    assert TOKEN not in failed.value.msg
    return failed.value


def reserve(url, owner, timeout=60):
    return task(url, lambda service: service.reserve('web', owner), timeout)


def api(path, **params):
    response = requests.get(netbox.server()['url'] + '/api' + path, params=dict({'limit': 1000}, **params), timeout=60,
                            headers={'Authorization': 'Token ' + netbox.token()})
    response.raise_for_status()
    return response.json()


def state():
    """What NetBox holds: ``{address: claim}`` of its IP addresses, the reservation history ``(action, owner,
    key, address)``, and verify's problems."""
    claims = dict((a['address'].split('/')[0], a['custom_fields'].get('netpool_claim'))
                  for a in api('/ipam/ip-addresses/')['results'])
    store = netbox.open_store()
    try:
        service = Service(store)
        history = sorted((h['action'], h['owner'], h['key'], h['address']) for h in service.info(
            pool='web', history=True)['history'] if h['object'] == 'reservation')
        return claims, history, service.verify()['problems']
    finally:
        store.close()


def assert_reserved_once(result, owner, address):
    assert result['changed'] and result['reservation']['address'] == address, result
    claims, history, problems = state()
    assert claims == {address: 'default/web/%s/default' % owner}
    assert history == [('reserve', owner, 'default', address)]
    assert problems == []


def test_connections_refused_for_a_while_then_served(web):
    """NetBox not listening (stopped, or not started yet) when the task begins, then up: the task waits for it."""
    with Relay(netbox.server()['url'], listening=False) as relay:
        threading.Timer(4, relay.listen).start()
        result = reserve(relay.url, 'a')
    assert_reserved_once(result, 'a', '10.40.0.1')


def test_connections_reset_then_served(web):
    """Connections reset before NetBox gets the request (a server going down, a load balancer's) six times: each
    one an attempt of the task's retry (the HTTP client retries nothing of its own)."""
    with Relay(netbox.server()['url']) as relay:
        relay.reset(6)
        result = reserve(relay.url, 'a')
    assert_reserved_once(result, 'a', '10.40.0.1')
    assert len(relay.seen) > len(relay.forwarded) == 2      # the read, the allocation


@pytest.mark.parametrize('status', [502, 503, 504])
def test_a_proxy_whose_netbox_is_away(web, status):
    """A reverse proxy answering 502/503/504 itself, to reads and to the allocation: retried, made once."""
    with Relay(netbox.server()['url']) as relay:
        relay.answer(6, status)
        relay.answer(2, status, match=ALLOCATION)
        result = reserve(relay.url, 'a')
    assert_reserved_once(result, 'a', '10.40.0.1')
    assert len([r for r in relay.seen if r[0] == 'POST']) == 3
    assert len([r for r in relay.forwarded if r[0] == 'POST']) == 1


def test_an_allocation_whose_answer_is_lost_is_read_not_sent_again(web):
    """NetBox applies the allocation, then the connection drops before its answer: the next attempt reads the
    change log and the claim; the address NetBox made is the task's, ``changed``, and the POST reached NetBox
    once. The next owner gets the next address."""
    with Relay(netbox.server()['url']) as relay:
        relay.lose(1, match=ALLOCATION)
        result = reserve(relay.url, 'a')
        assert [r for r in relay.forwarded if r[0] == 'POST'] == [r for r in relay.seen if r[0] == 'POST']
        assert len([r for r in relay.seen if r[0] == 'POST']) == 1
    assert_reserved_once(result, 'a', '10.40.0.1')
    assert reserve(netbox.server()['url'], 'b')['reservation']['address'] == '10.40.0.2'


def test_an_allocation_lost_before_netbox_got_it_is_made_once(web):
    """The connection drops after the client sent the allocation, before NetBox got it: the change log shows
    nothing of it, so the next attempt allocates; one address."""
    with Relay(netbox.server()['url']) as relay:
        relay.reset(1, match=ALLOCATION)
        result = reserve(relay.url, 'a')
        assert len([r for r in relay.seen if r[0] == 'POST']) == 2
        assert len([r for r in relay.forwarded if r[0] == 'POST']) == 1
    assert_reserved_once(result, 'a', '10.40.0.1')


def test_a_release_whose_answer_is_lost(web):
    """A DELETE applied by NetBox whose answer is lost (the relay would lose two more): the task's retry reads
    NetBox's change log, the release is done once, ``changed``, its history entry there."""
    reserve(netbox.server()['url'], 'a')
    with Relay(netbox.server()['url']) as relay:
        relay.lose(3, match='DELETE ')
        result = task(relay.url, lambda service: service.release(pool='web', owner='a'))
    assert result['changed'], result
    claims, history, problems = state()
    assert claims == {} and problems == []
    assert history == [('release', 'a', 'default', '10.40.0.1'), ('reserve', 'a', 'default', '10.40.0.1')]


def test_netbox_away_past_the_timeout_says_what_was_tried(web):
    with Relay(netbox.server()['url'], listening=False) as relay:
        with pytest.raises(StoreUnavailable) as failed:
            reserve(relay.url, 'a', timeout=2)
    assert 'Cannot reach NetBox' in failed.value.msg and 'timeout of 2 seconds' in failed.value.msg, failed.value.msg
    assert 'could not connect' in failed.value.msg and netbox.token() not in failed.value.msg
    assert state()[0] == {}


PLAYBOOK = """
- name: Reserve four addresses for every host
  hosts: all
  gather_facts: false
  tasks:
    - name: Reserve
      netpool.ipam.reservation:
        pool: web
        owner: "{{ inventory_hostname }}"
        key: "{{ item }}"
        timeout: 600
      loop: [a, b, c, d]
      register: ipam
      ignore_errors: true

    - name: Every host's results, in one file (one module run, not one per host)
      ansible.builtin.copy:
        content: "{{ dict(ansible_play_hosts_all | zip(ansible_play_hosts_all | map('extract', hostvars, ['ipam', 'results'])))
                     | to_json }}"
        dest: "{{ out }}"
        mode: "0600"
      delegate_to: localhost
      run_once: true
"""


def test_netbox_restarted_in_the_middle_of_a_play_fails_no_task(web, tmp_path):
    """20 hosts x 4 reservations (forks 10); once 20 are held NetBox's gunicorn is stopped, as a service manager
    does, and started again (down for the seconds NetBox takes to start): no task fails, 80 distinct
    addresses, each held once by its owner and key, one history entry each, nothing else. The tasks' timeout is
    long (600 s) so that no verdict depends on how fast a loaded machine starts NetBox."""
    hosts = 20
    (tmp_path / 'play.yml').write_text(PLAYBOOK)
    (tmp_path / 'hosts.ini').write_text('[all]\n' + ''.join('h%02d ansible_connection=local\n' % i
                                                            for i in range(hosts)))
    out = tmp_path / 'results.json'
    proc = start_playbook('-i', tmp_path / 'hosts.ini', '-f', '10', '-e', 'out=%s' % out, tmp_path / 'play.yml',
                          cwd=tmp_path, env={'NETPOOL_IPAM_STORE': netbox.url(),
                                             'NETPOOL_IPAM_STORE_TOKEN': netbox.token()})
    try:
        while proc.poll() is None and api('/ipam/ip-addresses/', limit=1)['count'] < 20:
            time.sleep(0.2)
        before = api('/ipam/ip-addresses/')['count']
        assert proc.poll() is None, 'the play ended before the restart: %s' % proc.communicate()[0]
        netbox.stop()       # returns once gunicorn has exited: from here connections are refused
        netbox.start()      # returns once NetBox answers again, seconds later (its start)
        output = proc.communicate(timeout=1800)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert before < hosts * 4
    assert proc.returncode == 0, output
    with open(netbox.server()['log']) as log:
        assert 'Handling signal: term' in log.read()       # it was stopped
    results = json.loads(out.read_text())
    assert len(results) == hosts, output
    failed = [(h, r.get('msg')) for h, run in results.items() for r in run if r.get('failed')]
    assert failed == [], output
    assert 'failed=0' in output and 'ignored=0' in output
    got = dict(((h, r['item']), r['reservation']['address']) for h, run in results.items() for r in run)
    assert len(got) == hosts * 4 and len(set(got.values())) == hosts * 4
    claims, history, problems = state()
    assert claims == dict((a, 'default/web/%s/%s' % hk) for hk, a in got.items())     # nothing leaked
    assert history == sorted(('reserve', h, k, a) for (h, k), a in got.items())
    assert problems == []


def test_a_server_that_accepts_and_never_answers_is_given_up_at_the_timeout():
    """The first request waits what is left of the task's timeout, then the task fails, saying so: one connection
    (the HTTP client sends nothing again of its own: before, three, each waiting the whole timeout, and 'transaction
    rolled back by a lost connection')."""
    with Canned(None) as server:
        failed = fails_against(server, StoreBusy, timeout=1)
    assert server.connections == 1, failed.msg
    assert failed.code == 'store_busy' and 'did not answer GET' in failed.msg, failed.msg
    assert 'Tried 1 time within the task\'s timeout of 1 seconds (no answer in time)' in failed.msg, failed.msg
    assert 'rolled back' not in failed.msg


def test_each_request_is_given_what_is_left_of_the_timeout():
    """Connections reset until the deadline: the store's retry is the only one (each attempt one connection), and
    each request's socket timeout (connecting and answering together) is exactly what is left of the deadline."""
    clock, given = Clock(0.0), []
    with Canned('reset') as server:
        store = open_store('netbox+' + server.url, token=TOKEN, timeout=5)
        send = store.client._session.request     # pylint: disable=protected-access

        def sent(method, url, **kwargs):
            given.append((kwargs['timeout'], _retry.remaining()))
            return send(method, url, **kwargs)
        store.client._session.request = sent     # pylint: disable=protected-access
        try:
            with pytest.raises(StoreUnavailable) as failed:
                _retry.call(lambda: Service(store).reserve('web', 'a'), 5, store.commit_landed, sleep=clock.sleep,
                            rng=lambda: 0.5, clock=clock)
        finally:
            store.close()
    tried = int(re.search(r'Tried (\d+) times', failed.value.msg).group(1))
    assert server.connections == len(given) == tried > 5, failed.value.msg
    assert '(connection lost before NetBox answered)' in failed.value.msg
    assert given[0][1] == 5 and [t.total for t, left in given] == [left for t, left in given]
    assert all(t.connect_timeout <= left and 0 < left <= 5 for t, left in given), given


def test_a_429_asking_for_longer_than_is_left_fails_at_once():
    """NetBox (or a proxy) asks for 20 seconds, 5 are left: waiting could not help, the task fails at once after
    one request (before: the HTTP client's own retries slept 20 seconds each, 120 seconds in all)."""
    with Canned(page(429, {'Retry-After': '20'})) as server:
        failed = fails_against(server, StoreBusy, timeout=5)
    assert server.connections == 1, failed.msg
    assert '429 Too Many Requests' in failed.msg and 'asking for 20 seconds' in failed.msg, failed.msg
    assert 'Tried 1 time' in failed.msg


def test_netbox_https_against_a_plain_http_server_says_to_check_the_scheme():
    with Canned(page(400)) as server:
        failed = fails_against(server, StoreUnavailable, timeout=5, url=server.url.replace('http:', 'https:'))
    assert 'answered in plain HTTP' in failed.msg and 'Check the scheme' in failed.msg, failed.msg
    assert 'certificate' not in failed.msg and 'Tried' not in failed.msg     # not retried: waiting changes nothing


def test_a_429_on_the_allocation_is_retried_after_what_netbox_asks(web):
    """NetBox processed nothing of a request it answered 429: the allocation is sent again once the seconds of its
    Retry-After have passed (the retry's wait, counted), and the reservation is made once."""
    waits = []
    with Relay(netbox.server()['url']) as relay:
        relay.answer(2, 429, match=ALLOCATION, headers={'Retry-After': '1'})
        store = open_store('netbox+' + relay.url, token=netbox.token(), timeout=60)
        try:
            result = _retry.call(lambda: Service(store).reserve('web', 'a'), 60, store.commit_landed,
                                 sleep=waits.append)
        finally:
            store.close()
    assert waits == [1.0, 1.0]
    assert len([r for r in relay.seen if r[0] == 'POST']) == 3
    assert len([r for r in relay.forwarded if r[0] == 'POST']) == 1
    assert_reserved_once(result, 'a', '10.40.0.1')
