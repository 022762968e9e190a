# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The NetBox store against a real NetBox (netbox_server.py). Skipped with the reason where NetBox cannot
run, unless NETPOOL_IPAM_TEST_NETBOX=required (CI)."""

import functools
import json
import multiprocessing

import netaddr
import pytest
import requests

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _registry
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract import suite as contract
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract import _base as contract_base
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract import probe as probe_contract
from ansible_collections.netpool.ipam.tests.support import netbox_server as netbox


@pytest.fixture
def spec(monkeypatch):
    """The session's NetBox, emptied; every store the contract opens (forked workers too) gets the token."""
    netbox.wipe()
    with_token = functools.partial(open_store, token=netbox.token(), timeout=netbox.PATIENT)
    monkeypatch.setattr(contract_base, 'open_store', with_token)
    monkeypatch.setattr(_registry, 'open_store', with_token)
    return netbox.url()


@pytest.fixture
def sent(monkeypatch):
    """Every request this test's stores send to NetBox, in order, as they hand it to requests: ``(method, URL,
    parameters)`` (a next page's URL carries its query; ``path`` gives what a URL asks for)."""
    sent = []
    real = requests.Session.request
    monkeypatch.setattr(requests.Session, 'request', lambda self, method, url, *a, **k: (
        sent.append((method, url, k.get('params') or {})) or real(self, method, url, *a, **k)))
    return sent


def path(url):
    """What a URL asks for: its path under ``/api/`` (``ipam/ip-ranges/``), or the URL without its query."""
    return url.split('?')[0].split('/api/')[-1]


@pytest.fixture
def svc(spec):
    store = netbox.open_store()
    yield Service(store)
    store.close()


class TestNetboxStore(contract.StoreContract):
    """The whole conformance suite, but for what NetBox cannot hold (``unsupported``, shown below by
    test_what_netbox_cannot_hold_is_unsupported_and_nothing_is_written). The parallel test is smaller than on
    the other stores (8 processes of 10: each reservation is a few HTTP requests to a two-worker NetBox); the
    test of parallel owners below asks each owner from two processes."""

    cannot = frozenset(['random', 'wide', 'ranges'])
    parallel = (8, 10)


def api(path, token=None, **params):
    """A GET on the session's NetBox, outside the store."""
    response = requests.get(netbox.server()['url'] + '/api' + path, params=params, timeout=30,
                            headers={'Authorization': 'Token ' + (token or netbox.token())})
    response.raise_for_status()
    return response.json()


def addresses(**params):
    found = api('/ipam/ip-addresses/', limit=1000, **params)['results']
    return sorted((a['address'], a['status']['value']) for a in found)


def fails(code, method, *args, **kwargs):
    """``method`` fails with ``code``, and NetBox holds the same addresses, prefixes and ranges as before."""
    before = (addresses(), api('/ipam/prefixes/')['count'], api('/ipam/ip-ranges/')['count'])
    with pytest.raises(IpamError) as info:
        method(*args, **kwargs)
    assert info.value.code == code, info.value.msg
    assert (addresses(), api('/ipam/prefixes/')['count'], api('/ipam/ip-ranges/')['count']) == before
    return info.value


def test_reservations_are_ip_addresses_and_a_rerun_moves_nothing(svc):
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.30'],
                              'exclude': ['10.0.0.12']}])
    first = [svc.reserve('web', 'h%d' % i)['reservation']['address'] for i in range(4)]
    assert first == ['10.0.0.10', '10.0.0.11', '10.0.0.13', '10.0.0.14']
    again = [svc.reserve('web', 'h%d' % i) for i in range(4)]
    assert [r['reservation']['address'] for r in again] == first
    assert not any(r['changed'] for r in again)
    assert addresses() == [('10.0.0.%d/24' % n, 'active') for n in (10, 11, 13, 14)]
    held = api('/ipam/ip-addresses/', address='10.0.0.10')['results'][0]
    assert held['dns_name'] == 'h0' and held['custom_fields']['netpool_claim'] == 'default/web/h0/default'
    ranges = sorted((r['start_address'], r['end_address']) for r in api('/ipam/ip-ranges/')['results'])
    assert ranges == [('10.0.0.10/24', '10.0.0.11/24'), ('10.0.0.13/24', '10.0.0.30/24')]
    static = svc.reserve('web', 'db', address='10.0.0.200')
    assert static['changed'] and static['reservation']['static']
    assert svc.info(pool='web')['pools'][0]['used'] == 5


def test_release_reuse_delay_and_history(svc):
    svc.pool('web', subnets=[{'cidr': '10.1.0.0/28'}], reuse_delay=3600)
    a = svc.reserve('web', 'a')['reservation']['address']
    assert svc.release(pool='web', owner='a')['changed']
    assert addresses() == [('%s/28' % a, 'deprecated')]         # resting: NetBox hands it to nobody
    assert svc.reserve('web', 'b')['reservation']['address'] != a
    actions = [(e['action'], e['owner']) for e in svc.info(pool='web', history=True)['history']
               if e['object'] == 'reservation']
    assert ('reserve', 'a') in actions and ('reserve', 'b') in actions
    messages = [c['message'] for c in api('/core/object-changes/', limit=200)['results']]
    assert messages and all(m.startswith('netpool:') for m in messages)


def test_check_mode_sends_no_write_and_predicts(svc):
    svc.pool('web', subnets=[{'cidr': '10.2.0.0/24'}])
    before = api('/core/object-changes/')['count']
    result = svc.reserve('web', 'h1', check=True)
    assert result['changed'] and result['reservation']['address'] == '10.2.0.1' and result['reservation']['predicted']
    assert addresses() == [] and api('/core/object-changes/')['count'] == before


def test_what_netbox_cannot_hold_is_unsupported_and_nothing_is_written(svc):
    fails('unsupported', svc.pool, 'rnd', subnets=[{'cidr': '10.3.0.0/24'}], strategy='random')
    error = fails('unsupported', svc.pool, 'v6', subnets=[{'cidr': '2001:db8::/64'}])
    assert 'ranges' in error.msg
    svc.pool('v6', subnets=[{'cidr': '2001:db8::/64', 'ranges': ['2001:db8::100-2001:db8::1ff']}])
    assert svc.reserve('v6', 'h1')['reservation']['address'] == '2001:db8::100'
    svc.pool('lan', subnets=[{'cidr': '10.5.0.0/24'}])
    before = api('/core/object-changes/')['count']
    for check in (True, False):
        error = fails('unsupported', svc.pool, 'vips', parent='lan', ranges=['10.5.0.240-10.5.0.250'], check=check)
        assert "child of 'lan' by ranges" in error.msg and 'prefix_length' in error.msg
    assert [p['prefix'] for p in api('/ipam/prefixes/', cf_netpool_pool='vips')['results']] == []
    assert api('/core/object-changes/')['count'] == before


def test_a_failed_task_leaves_nothing_behind(svc):
    svc.pool('tiny', subnets=[{'cidr': '10.4.0.0/30'}])
    svc.reserve('tiny', 'a')
    svc.reserve('tiny', 'b')
    fails('pool_exhausted', svc.reserve, 'tiny', 'c')
    fails('address_in_use', svc.reserve, 'tiny', 'c', address='10.4.0.1')


def _claimer(spec, token, worker, queue):
    # NetBox answers every available-ips request one at a time (one advisory lock, ipam/api/views.py), so 8
    # processes queue on it: on a loaded machine a request may wait its turn longer than the default 30 seconds.
    # What is tested is that they never share an address, not how fast: a timeout no queue here reaches.
    store = open_store(spec, token=token, timeout=600)
    svc = Service(store)
    got, errors = {}, []
    for i in range(20):
        owner = 'h%02d' % ((i + 10 * worker) % 80)      # every owner is asked by two processes
        try:
            got[owner] = svc.reserve('par', owner)['reservation']['address']
        except IpamError as e:
            errors.append('%s: %s' % (e.code, e.msg))
    store.close()
    queue.put((got, errors))


def test_parallel_processes_get_exactly_one_address_per_owner(svc, spec):
    svc.pool('par', subnets=[{'cidr': '10.5.0.0/24'}])
    ctx = multiprocessing.get_context('fork')
    queue = ctx.Queue()
    workers = [ctx.Process(target=_claimer, args=(spec, netbox.token(), w, queue)) for w in range(8)]
    for w in workers:
        w.start()
    results = [queue.get(timeout=900) for _w in workers]
    for w in workers:
        w.join()
    assert [e for _got, errors in results for e in errors] == []
    by_owner = {}
    for got, _errors in results:
        for owner, address in got.items():
            by_owner.setdefault(owner, set()).add(address)
    assert len(by_owner) == 80 and all(len(a) == 1 for a in by_owner.values()), by_owner
    held = addresses()
    assert len(held) == 80 and len(set(held)) == 80


def test_errors_a_user_meets(spec):
    url, token = netbox.server()['url'], netbox.token()
    for store, secret, code, words in (
            (spec, 'f' * 40, 'store_unavailable', 'store_token'),
            ('netbox+' + url + '/nothing-here', token, 'store_unavailable', 'not a NetBox API'),
            ('netbox+http://127.0.0.1:9', token, 'store_unavailable', 'Cannot reach NetBox')):
        with pytest.raises(IpamError) as info:
            Service(open_store(store, token=secret, timeout=5)).info()
        assert info.value.code == code and words in info.value.msg, info.value.msg
        assert secret not in info.value.msg
    readonly = Service(open_store(spec, token=netbox.token('read')))
    with pytest.raises(IpamError) as info:
        readonly.pool('web', subnets=[{'cidr': '10.6.0.0/24'}])
    assert info.value.code == 'store_unavailable' and 'permission' in info.value.msg, info.value.msg
    assert addresses() == [] and api('/ipam/prefixes/')['count'] == 0
    v2 = Service(open_store(spec, token=netbox.server()['v2_token']))
    assert v2.pool('web', subnets=[{'cidr': '10.6.0.0/24'}])['changed']


def test_a_prefix_deleted_in_netbox(svc):
    """Someone deletes a pool's only prefix in NetBox's UI: the pool is gone (pool_not_found, nothing written);
    declared again, it finds its IP ranges and reservations where they were."""
    svc.pool('gone', subnets=[{'cidr': '10.7.0.0/24'}])
    held = svc.reserve('gone', 'h1')['reservation']['address']
    prefix = api('/ipam/prefixes/', prefix='10.7.0.0/24')['results'][0]
    requests.delete(prefix['url'], headers={'Authorization': 'Token ' + netbox.token()}, timeout=30).raise_for_status()
    error = fails('pool_not_found', svc.reserve, 'gone', 'h2')
    assert "'gone'" in error.msg and 'netpool.ipam.pool' in error.msg
    svc.pool('gone', subnets=[{'cidr': '10.7.0.0/24'}])
    again = svc.reserve('gone', 'h1')
    assert (again['changed'], again['reservation']['address']) == (False, held)
    assert svc.reserve('gone', 'h2')['reservation']['address'] != held


def test_what_a_task_sends(spec, sent):
    """Requests per task, counted as a module's store sends them: a rerun that changes nothing is one GET, a new
    reservation one GET and the allocation's POST (GraphQL: the claim, the pools, the ranges and what is due, read
    at once). Where GraphQL cannot be used the REST API answers the same, in more GETs."""
    def task(work, graphql=True):
        store = open_store(spec, token=netbox.token())
        if not graphql:
            store.client.graphql = netbox.server()['url'] + '/no-graphql-here/'
        del sent[:]
        result = work(Service(store))
        store.close()
        return result, [method for method, _url, _params in sent]

    task(lambda s: s.pool('web', subnets=[{'cidr': '10.8.0.0/24'}]))
    task(lambda s: s.reserve('web', 'warm'))
    new, methods = task(lambda s: s.reserve('web', 'h1'))
    # once six GETs and the POST
    assert new['changed'] and methods == ['GET', 'POST'], methods
    rerun, methods = task(lambda s: s.reserve('web', 'h1'))
    assert methods == ['GET'] and not rerun['changed'] and rerun['reservation'] == new['reservation']
    rest, methods = task(lambda s: s.reserve('web', 'h1'), graphql=False)
    # one GET finds GraphQL off (once per store), then the REST API: the pools, the claim (a rerun does not ask
    # what is due: it only reads, and what ran out is released by the next change)
    assert methods == ['GET'] * 3 and rest['reservation'] == new['reservation'], sent


def _counting(spec, sent):
    """``task(work)``: run ``work(service)`` on a store of its own, as a module does; its result and the methods
    of the requests it sent."""

    def task(work):
        store = open_store(spec, token=netbox.token())
        del sent[:]
        result = work(Service(store))
        store.close()
        return result, [method for method, _url, _params in sent]
    return task


def test_a_batch_costs_what_one_reservation_does(spec, sent):
    """A batch of new owners is one read (GraphQL: the claims, the pools, the ranges, what is due) and
    one POST per IP range (NetBox's available-ips takes a list and allocates it whole)."""
    task = _counting(spec, sent)
    task(lambda s: s.pool('web', subnets=[{'cidr': '10.12.0.0/24',
                                           'ranges': ['10.12.0.10-10.12.0.39', '10.12.0.100-10.12.0.199']}]))
    one, methods = task(lambda s: s.reserve_owners('web', ['h0']))
    assert methods == ['GET', 'POST'], methods
    many, methods = task(lambda s: s.reserve_owners('web', ['h%d' % i for i in range(1, 21)]))
    assert methods == ['GET', 'POST'], methods
    assert [r['address'] for r in many['reservations']] == ['10.12.0.%d' % (11 + i) for i in range(20)]
    # nine left in the first range: NetBox answers 409 for twenty, says it has nine, takes them; the rest next
    over, methods = task(lambda s: s.reserve_owners('web', ['g%d' % i for i in range(20)]))
    assert methods == ['GET', 'POST', 'GET', 'POST', 'POST'], methods
    assert [r['address'] for r in over['reservations']][8:10] == ['10.12.0.39', '10.12.0.100']
    rerun, methods = task(lambda s: s.reserve_owners('web', ['g%d' % i for i in range(20)]))
    assert methods == ['GET'] and rerun['changed'] is False
    check, methods = task(lambda s: s.reserve_owners('web', ['n%d' % i for i in range(5)], check=True))
    assert methods == ['GET', 'GET', 'GET'], methods       # the read, then NetBox asked per range what it hands out
    assert [r['address'] for r in check['reservations']] == ['10.12.0.%d' % n for n in range(111, 116)]


def test_a_read_asks_netbox_each_question_once(spec, sent):
    """In a transaction that writes nothing (``verify``, an export, ``info``), a question asked twice is sent
    once; a transaction that writes asks again; each caller gets an answer of its own to change."""
    setup = Service(netbox.open_store())
    setup.pool('web', subnets=[{'cidr': '10.14.0.0/24'}])
    setup.pool('lab', namespace='lab', subnets=[{'cidr': '10.15.0.0/24'}])
    setup.reserve('web', 'h1')
    setup.store.close()

    store = netbox.open_store()
    del sent[:]
    assert Service(store).verify() == {'changed': False, 'problems': [], 'repaired': []}
    gets = [(url, json.dumps(params, sort_keys=True)) for method, url, params in sent if method == 'GET']
    assert gets and len(gets) == len(set(gets)), sorted(gets)
    with store.transaction(write=False):
        first = [r.address for r in store.find_reservations()]
        del sent[:]
        assert [r.address for r in store.find_reservations()] == first == [int(netaddr.IPAddress('10.14.0.1'))]
        assert sent == []
        answer = store.client.get('/ipam/vrfs/', {'tag': 'netpool'})
        answer['results'] = []
        del sent[:]
        assert store.client.get('/ipam/vrfs/', {'tag': 'netpool'})['results'] and sent == []
    with store.transaction():
        store.find_reservations()
        del sent[:]
        store.find_reservations()
        assert sent and all(method == 'GET' for method, _url, _params in sent)
    store.close()


def test_an_export_asks_per_namespace_not_per_pool(spec, sent):
    """A read of every pool of the store (an export, ``verify``) asks NetBox for the namespace's IP ranges, its
    resting addresses and the IP addresses inside its pools' subnets once each, whatever the number of pools; a read
    of one pool asks of that pool alone. What it reads is what the questions per pool read."""
    setup = Service(netbox.open_store())
    for n in range(4):
        setup.pool('p%d' % n, subnets=[{'cidr': '10.16.%d.0/24' % n}], reuse_delay=3600)
        setup.reserve('p%d' % n, 'h1')
        setup.reserve('p%d' % n, 'h2')
        setup.release(pool='p%d' % n, owner='h2')
    setup.store.close()
    store = netbox.open_store()
    del sent[:]
    document = export_document(store)
    asked = [(method, path(url), params) for method, url, params in sent]
    ranges = [a for a in asked if a[1] == 'ipam/ip-ranges/']
    rests = [a for a in asked if a[1] == 'ipam/ip-addresses/' and a[2].get('status') == 'deprecated']
    inside = [a for a in asked if a[1] == 'ipam/ip-addresses/' and 'parent' in a[2]]
    assert (len(ranges), len(rests), len(inside)) == (1, 1, 1), asked
    assert inside[0][2]['parent'] == ['10.16.%d.0/24' % n for n in range(4)]
    assert [len(p['released']) for p in document['pools']] == [1] * 4
    assert [p['free'] for p in document['pools']] == [['10.16.%d.3-10.16.%d.254' % (n, n)] for n in range(4)]
    del sent[:]
    assert len(Service(store).info(pool='p2')['reservations']) == 1
    asked = [(method, path(url), params) for method, url, params in sent]
    assert all(a[2].get('cf_netpool_pool', 'p2') == 'p2' for a in asked if a[1] == 'ipam/ip-ranges/'), asked
    assert all(a[2].get('parent', '10.16.2.0/24') == '10.16.2.0/24' for a in asked), asked
    store.close()


def test_a_static_move_then_a_failing_dynamic_loses_nothing(svc):
    """The old address of a moved static was deleted and its new one undone."""
    svc.pool('tiny', subnets=[{'cidr': '10.13.0.0/29'}])
    svc.reserve_owners('tiny', ['a', 'b', 'c', 'd', 'e'])
    fails('pool_exhausted', svc.reserve_owners, 'tiny', [{'owner': 'a', 'address': '10.13.0.6'}, 'f', 'g'])
    assert [(r['owner'], r['address']) for r in svc.info(pool='tiny')['reservations']][0] == ('a', '10.13.0.1')
    assert svc.verify()['problems'] == []


def claims():
    """``{address: netpool_claim}`` of every IP address NetBox holds."""
    return dict((a['address'], a['custom_fields'].get('netpool_claim')) for a in api('/ipam/ip-addresses/',
                                                                                     limit=1000)['results'])


def address_changes(after=0):
    """``{IP address id: [(action, address, claim, message)]}`` of NetBox's change log, from change id ``after``
    on, oldest first."""
    found = {}
    for c in sorted(api('/core/object-changes/', limit=1000)['results'], key=lambda c: c['id']):
        if c['id'] > after and c['changed_object_type'] == 'ipam.ipaddress':
            data = c['postchange_data'] or c['prechange_data']
            found.setdefault(c['changed_object_id'], []).append(
                (c['action']['value'], data['address'], (data.get('custom_fields') or {}).get('netpool_claim'),
                 c['message']))
    return found


def last_change():
    return max([c['id'] for c in api('/core/object-changes/', limit=1000)['results']] or [0])


def test_a_probe_that_finds_addresses_live_leaves_no_candidate_behind(svc):
    """A candidate NetBox allocated and a probe found answering is deleted as never handed out: a task that then
    fails leaves NetBox as it was, every IP address it made deleted again in the change log, each creation read as
    undone (no history); one that succeeds leaves the probe's holder and the reservation, and history says only
    that."""
    svc.pool('lan', subnets=[{'cidr': '10.6.0.0/24', 'ranges': ['10.6.0.10-10.6.0.20']}])
    start = last_change()
    network = probe_contract.Network(['10.6.0.10', '10.6.0.11'], tries=2)
    error = fails('address_in_use', svc.reserve, 'lan', 'a', probe=network)
    assert error.details['answered'] == ['10.6.0.10', '10.6.0.11'] and network.asked == [['10.6.0.10'], ['10.6.0.11']]
    made = address_changes(start)
    # the candidates 10.6.0.10 and .11, and the probe's holder of .10: each made and deleted once
    assert sorted((changes[0][1], changes[0][2]) for changes in made.values()) == [
        ('10.6.0.10/24', 'default/lan/a/default'), ('10.6.0.10/24', 'default/lan/netpool.ipam.probe/10.6.0.10'),
        ('10.6.0.11/24', 'default/lan/a/default')], made
    assert all([action for action, _a, _c, _m in changes] == ['create', 'delete'] for changes in made.values()), made
    assert all(changes[1][3].startswith('netpool: undo ') for changes in made.values()), made
    assert [e for e in svc.info(pool='lan', history=True)['history'] if e['object'] == 'reservation'] == []

    start = last_change()
    result = svc.reserve('lan', 'a', probe=probe_contract.Network(['10.6.0.10']))
    assert result['reservation']['address'] == '10.6.0.11' and result['probed']['answered'] == ['10.6.0.10']
    assert claims() == {'10.6.0.10/24': 'default/lan/netpool.ipam.probe/10.6.0.10',
                        '10.6.0.11/24': 'default/lan/a/default'}
    made = address_changes(start)
    assert sorted([(action, address, claim) for action, address, claim, _m in changes] for changes in made.values()) \
        == [[('create', '10.6.0.10/24', 'default/lan/a/default'), ('delete', '10.6.0.10/24', 'default/lan/a/default')],
            [('create', '10.6.0.10/24', 'default/lan/netpool.ipam.probe/10.6.0.10')],
            [('create', '10.6.0.11/24', 'default/lan/a/default')]], made
    history = [(e['action'], e['owner'], e['address']) for e in svc.info(pool='lan', history=True)['history']
               if e['object'] == 'reservation']
    assert history == [('reserve', 'netpool.ipam.probe', '10.6.0.10'), ('reserve', 'a', '10.6.0.11')]
    assert svc.verify()['problems'] == []


def test_family_dual_is_two_ip_addresses_and_a_claim_of_1_0_keeps_working(svc):
    """family: dual is two IP addresses carrying one owner and key, the IPv6 one's claim ending in /ipv6. An IPv6
    reservation made by 1.0.0 holds the claim without it: it is read as the IPv6 half, and a dual reservation of
    its owner and key keeps it, gives it its /ipv6 claim and adds the IPv4 one (undone if the task fails)."""
    svc.pool('dual', subnets=[{'cidr': '10.15.0.0/24', 'ranges': ['10.15.0.10-10.15.0.11']},
                              {'cidr': '2001:db8:15::/64', 'ranges': ['2001:db8:15::10-2001:db8:15::20']}])
    svc.reserve('dual', 'h1', family='dual')
    assert claims() == {'10.15.0.10/24': 'default/dual/h1/default', '2001:db8:15::10/64': 'default/dual/h1/default/ipv6'}
    # what 1.0.0 wrote: h2's IPv6 reservation under the claim without a family
    svc.reserve('dual', 'h2', family='ipv6')
    made = api('/ipam/ip-addresses/', address='2001:db8:15::11/64')['results'][0]
    requests.patch(made['url'], json={'custom_fields': {'netpool_claim': 'default/dual/h2/default'}},
                   headers={'Authorization': 'Token ' + netbox.token()}, timeout=30).raise_for_status()
    assert svc.get('dual', 'h2', family='ipv6')['address'] == '2001:db8:15::11'
    assert svc.reserve('dual', 'h2', family='ipv6')['changed'] is False
    # the IPv4 half cannot be had (h3 takes the last IPv4 address in the same task): nothing changes
    fails('pool_exhausted', svc.reserve_owners, 'dual', ['h2', 'h3'], family='dual')
    assert claims()['2001:db8:15::11/64'] == 'default/dual/h2/default'
    result = svc.reserve('dual', 'h2', family='dual')
    assert (result['changed'], result['reservation']['address'], result['reservation6']['address']) == (
        True, '10.15.0.11', '2001:db8:15::11')
    assert claims() == {'10.15.0.10/24': 'default/dual/h1/default', '2001:db8:15::10/64': 'default/dual/h1/default/ipv6',
                        '10.15.0.11/24': 'default/dual/h2/default', '2001:db8:15::11/64': 'default/dual/h2/default/ipv6'}
    assert svc.reserve('dual', 'h2', family='dual')['changed'] is False
    assert svc.verify()['problems'] == []


def test_verify_sees_hand_edits_in_netbox(svc):
    """Verify compares what NetBox holds (its IP ranges and IP addresses) with what the pool derives; repair makes
    the ranges what they should be, and an address made in NetBox is reported as not ours, never as a mismatch
    repair would fix (it said it rebuilt the ranges, and verify failed the same way on every run)."""
    svc.pool('web', subnets=[{'cidr': '10.14.0.0/24', 'gateway': '10.14.0.1', 'ranges': ['10.14.0.10-10.14.0.20']}])
    svc.reserve('web', 'h1')
    assert svc.verify()['problems'] == []
    headers = {'Authorization': 'Token ' + netbox.token()}
    found = api('/ipam/ip-ranges/')['results']
    assert len(found) == 1
    requests.patch(found[0]['url'], json={'end_address': '10.14.0.30/24'}, headers=headers,
                   timeout=30).raise_for_status()
    problems = svc.verify()['problems']
    assert [(p['code'], p['pools']) for p in problems] == [('free_space_mismatch', ['web'])], problems
    repaired = svc.verify(repair=True)
    assert repaired['changed'] and all(p['repaired'] for p in repaired['problems']), repaired
    assert svc.verify()['problems'] == []
    assert [(r['start_address'], r['end_address']) for r in api('/ipam/ip-ranges/')['results']] == [
        ('10.14.0.10/24', '10.14.0.20/24')]
    # an address made through NetBox's API inside a range (and one on the gateway, outside every range): NetBox will
    # not hand the first out, and no repair can change that. It is reported as not ours, how to adopt it; repair
    # changes nothing and says so; once it is deleted in NetBox, verify is clean
    made = [requests.post(netbox.server()['url'] + '/api/ipam/ip-addresses/', json={'address': address},
                          headers=headers, timeout=30) for address in ('10.14.0.15/24', '10.14.0.1/24')]
    for response in made:
        response.raise_for_status()
    for run in (svc.verify(), svc.verify(repair=True), svc.verify()):
        assert [(p['code'], p['addresses'], p['repairable'], p['repaired']) for p in run['problems']] == [
            ('unmanaged_address', ['10.14.0.15'], False, False)], run
        assert 'not ours' in run['problems'][0]['message'] and 'repair: true' not in run['problems'][0]['message']
        assert 'adopt it with netpool.ipam.adopt, or delete it in NetBox' in run['problems'][0]['message']
        assert run.get('repaired', []) == [] and run['changed'] is False, run
    requests.delete(made[0].json()['url'], headers=headers, timeout=30).raise_for_status()
    assert svc.verify()['problems'] == []


def test_a_child_as_wide_as_its_parent(svc, spec):
    """A child carved as the whole of its parent's subnet (``prefix_length`` = the subnet's), and a parent narrowed
    onto its child's cidr: both pools stay, as on every other store. NetBox keeps one prefix per cidr in a VRF (and
    in the global table): the prefix is the parent's, the child nested in its data; the child's own subnets are
    its own prefixes. The child is found when its pool is read alone, its history names it, and deleting it gives
    the prefix back to the parent alone."""
    svc.pool('a', subnets=[{'cidr': '10.0.0.0/29', 'gateway': '10.0.0.1'}])
    assert svc.pool('k1', parent='a', prefix_length=29)['changed']
    assert sorted(p['name'] for p in svc.info()['pools']) == ['a', 'k1']
    assert svc.range('a', '10.0.0.0-10.0.0.0', kind='excluded')['changed']
    prefixes = api('/ipam/prefixes/')['results']
    assert [(p['prefix'], p['custom_fields']['netpool_pool']) for p in prefixes] == [('10.0.0.0/29', 'a')]
    assert [e['name'] for e in prefixes[0]['custom_fields']['netpool']['nested']] == ['k1']
    # a store that reads k1 alone (a rerun: one pool, one claim) finds it whole
    assert svc.reserve('k1', 'h1')['reservation']['address'] == '10.0.0.2'
    fresh = Service(open_store(spec, token=netbox.token()))
    again = fresh.reserve('k1', 'h1')
    assert (again['changed'], again['reservation']['address']) == (False, '10.0.0.2')
    assert fresh.info(pool='k1')['pools'][0]['subnets'][0]['cidr'] == '10.0.0.0/29'
    assert [e['action'] for e in fresh.info(pool='k1', history=True)['history'] if e['object'] == 'pool'] == ['create']
    assert svc.verify()['problems'] == []
    svc.release(pool='k1', owner='h1')
    assert svc.pool('k1', state='absent')['changed']
    assert [p['name'] for p in svc.info()['pools']] == ['a']
    prefixes = api('/ipam/prefixes/')['results']
    assert [(p['prefix'], p['custom_fields']['netpool_pool'], p['custom_fields']['netpool'].get('nested'))
            for p in prefixes] == [('10.0.0.0/29', 'a', None)]
    # in a VRF: a parent of two subnets narrowed onto its child's cidr
    svc.pool('b', namespace='lab', subnets=[{'cidr': '10.1.0.0/28'}, {'cidr': '10.2.0.0/30'}])
    svc.pool('k2', namespace='lab', parent='b', prefix_length=29)
    assert svc.pool('b', namespace='lab', subnets=[{'cidr': '10.1.0.0/29'}, {'cidr': '10.2.0.0/30'}])['changed']
    assert sorted(p['name'] for p in svc.info(namespace='lab')['pools']) == ['b', 'k2']
    lab = api('/ipam/vrfs/', name='lab')['results'][0]['id']
    assert [(p['prefix'], p['custom_fields']['netpool_pool']) for p in api('/ipam/prefixes/', vrf_id=lab)['results']] \
        == [('10.1.0.0/29', 'b'), ('10.2.0.0/30', 'b')]
    assert fresh.reserve('k2', 'h1', namespace='lab')['reservation']['address'] == '10.1.0.1'
    assert svc.verify(namespace='lab')['problems'] == []
    svc.pool('b', namespace='lab', state='absent', force=True)
    assert svc.info(namespace='lab')['pools'] == [] and api('/ipam/prefixes/', vrf_id=lab)['count'] == 0


def test_adopting_an_address_netbox_keeps_without_a_claim_claims_that_ip_address(svc):
    """An IP address made in NetBox by hand (no claim of this collection) is claimed by its adoption: the same
    object, now the reservation; a rerun is unchanged."""
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _adopt
    from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _sources
    svc.pool('web', subnets=[{'cidr': '10.20.0.0/24'}])
    made = requests.post(netbox.server()['url'] + '/api/ipam/ip-addresses/', timeout=30,
                         json={'address': '10.20.0.5/24', 'description': 'the printer'},
                         headers={'Authorization': 'Token ' + netbox.token()})
    made.raise_for_status()
    entries = _sources.from_entries([{'address': '10.20.0.5', 'owner': 'printer'},
                                     {'address': '10.20.0.6', 'owner': 'nas'}])
    result = _adopt.adopt(svc, entries)
    assert [e['address'] for e in result['adopted']] == ['10.20.0.5', '10.20.0.6']
    found = api('/ipam/ip-addresses/', address='10.20.0.5')['results']
    assert [(o['id'], o['custom_fields']['netpool_owner'], o['status']['value']) for o in found] == [
        (made.json()['id'], 'printer', 'active')]
    again = _adopt.adopt(Service(svc.store), entries)
    assert again['changed'] is False and [e['owner'] for e in again['unchanged']] == ['printer', 'nas']
    assert [(r['owner'], r['address']) for r in svc.info(pool='web')['reservations']] == [
        ('printer', '10.20.0.5'), ('nas', '10.20.0.6')]


def test_netbox_runs_on_its_own_bytecode():
    """NetBox's gunicorn gets no PYTHONPYCACHEPREFIX from the test run (make sets one for pytest): Python would look
    for NetBox's bytecode there instead of in its virtualenv, and every worker compile Django and NetBox at start."""
    with open('/proc/%d/environ' % netbox.server()['pid'], 'rb') as f:
        names = [entry.split(b'=', 1)[0] for entry in f.read().split(b'\0') if entry]
    assert b'NETPOOL_NETBOX_DB' in names and b'PYTHONPYCACHEPREFIX' not in names
