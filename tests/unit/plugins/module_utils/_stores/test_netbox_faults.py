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
"""

import json
import subprocess
import threading
import time

import pytest
import requests

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import netbox_server as netbox
from ansible_collections.netpool.ipam.tests.support.http_relay import Relay
from ansible_collections.netpool.ipam.tests.support.reliability import ansible_bin, ansible_env

ALLOCATION = 'POST /api/ipam/ip-ranges/'


@pytest.fixture
def web():
    """The session's NetBox, emptied, with pool ``web`` (a /24); the runner's cached stores dropped after."""
    netbox.wipe()
    store = open_store(netbox.url(), token=netbox.token())
    Service(store).pool('web', subnets=[{'cidr': '10.40.0.0/24'}])
    store.close()
    yield
    _runner.close_all()
    _runner._SERVICES.clear()   # pylint: disable=protected-access


def task(url, work, timeout=60):
    """``work(service)`` on the NetBox at ``url`` as a module runs it (the runner's retries included)."""
    return _runner.with_service({'store': 'netbox+' + url, 'store_token': netbox.token(), 'timeout': timeout},
                                None, work)


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
    store = open_store(netbox.url(), token=netbox.token())
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
    """Connections reset before NetBox gets the request (a server going down, a load balancer's) six times: more
    than the HTTP client's own retries of a read."""
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
    """A DELETE applied by NetBox whose answers are lost (sent again by the HTTP client, then by the task's
    retry): the release is done once, ``changed``, its history entry there."""
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

    - name: Each host's results, in a file of its own
      ansible.builtin.copy:
        content: "{{ ipam.results | to_json }}"
        dest: "{{ out }}/{{ inventory_hostname }}.json"
        mode: "0600"
      delegate_to: localhost
"""


def test_netbox_restarted_in_the_middle_of_a_play_fails_no_task(web, tmp_path):
    """30 hosts x 4 reservations (forks 10); once 20 are held NetBox's gunicorn is stopped, as a service manager
    does, and started again (down for the seconds NetBox takes to start): no task fails, 120 distinct
    addresses, each held once by its owner and key, one history entry each, nothing else. The tasks' timeout is
    long (600 s) so that no verdict depends on how fast a loaded machine starts NetBox."""
    hosts = 30
    (tmp_path / 'play.yml').write_text(PLAYBOOK)
    (tmp_path / 'hosts.ini').write_text('[all]\n' + ''.join('h%02d ansible_connection=local\n' % i
                                                            for i in range(hosts)))
    out = tmp_path / 'results'
    out.mkdir()
    proc = subprocess.Popen(
        [ansible_bin('ansible-playbook'), '-i', str(tmp_path / 'hosts.ini'), '-f', '10', '-e', 'out=%s' % out,
         str(tmp_path / 'play.yml')], cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=ansible_env(NETPOOL_IPAM_STORE=netbox.url(), NETPOOL_IPAM_STORE_TOKEN=netbox.token()),
        universal_newlines=True)
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
    results = dict((path.stem, json.loads(path.read_text())) for path in out.iterdir())
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
