# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the modules return (``_results.py``) on its own, over a real SQLite store in tmp_path.

The state is made through the service; ``Results`` is then asked directly, at the clock's time: its figures
and maps are what allocation would see now (an expired lease is not held; an address whose reuse delay is
over is free), and it only reads.
"""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._results import MAP_LIMIT, Results, percent
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document


@pytest.fixture
def store(tmp_path):
    store = open_store(str(tmp_path / 'ipam.sqlite'))
    yield store
    store.close()


@pytest.fixture
def svc(store, clock):
    return Service(store, clock=clock)


@pytest.fixture
def results(svc):
    return Results(svc.store, svc.stamp)


def pool_of(svc, name, namespace='default'):
    return svc.store.get_pool(namespace, name)


def small(svc, reuse_delay=None):
    """web: 10.0.0.0/28, gateway .1, dynamic .2-.9 but .5 excluded (7 addresses to hand out)."""
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/28', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.2-10.0.0.9']}],
             reuse_delay=reuse_delay)
    svc.range('web', '10.0.0.5', kind='excluded')


def test_percent():
    assert percent(0, 0) == 0.0
    assert percent(1, 3) == 33.33
    assert percent(7, 7) == 100.0


def test_figures_and_map_as_allocation_sees_them_now(svc, results, clock):
    small(svc, reuse_delay='1h')
    svc.reserve('web', 'held')                          # .2
    svc.reserve('web', 'lease', ttl=60)                 # .3, expires, then rests for the pool's delay
    svc.reserve('web', 'gone')                          # .4, released: resting
    svc.release(owner='gone')
    clock.advance(120)
    pool = results.pool(pool_of(svc, 'web'), with_map=True)
    assert (pool['size'], pool['used'], pool['free'], pool['utilization']) == (7, 1, 4, 42.86)
    assert (pool['leased'], pool['expired'], pool['children']) == (1, 1, [])
    subnet = pool['subnets'][0]
    assert (subnet['size'], subnet['used'], subnet['free']) == (7, 1, 4)
    assert subnet['map'] == [{'range': '10.0.0.2-10.0.0.9', 'map': 'X---....'}]


def test_an_expired_lease_without_reuse_delay_is_free_at_once(svc, results, clock):
    small(svc)
    svc.reserve('web', 'lease', ttl=60)
    assert results.pool(pool_of(svc, 'web'), with_map=True)['subnets'][0]['map'][0]['map'] == 'X..-....'
    clock.advance(61)
    pool = results.pool(pool_of(svc, 'web'), with_map=True)
    assert (pool['used'], pool['free'], pool['expired']) == (0, 7, 1)
    assert pool['subnets'][0]['map'][0]['map'] == '...-....'


def test_a_resting_address_is_free_once_its_delay_is_over(svc, results, clock):
    small(svc, reuse_delay='1h')
    svc.reserve('web', 'gone')
    svc.release(owner='gone')
    assert results.pool(pool_of(svc, 'web'))['free'] == 6
    clock.advance(3601)
    pool = results.pool(pool_of(svc, 'web'), with_map=True)
    assert pool['free'] == 7 and pool['subnets'][0]['map'][0]['map'] == '...-....'


def test_results_only_read(svc, results, clock):
    small(svc, reuse_delay='1h')
    svc.reserve('web', 'lease', ttl=60)
    svc.reserve('web', 'gone')
    svc.release(owner='gone')
    clock.advance(7200)                                 # the lease expired and both delays are over
    before = export_document(svc.store)
    pool = pool_of(svc, 'web')
    results.pool(pool, with_map=True)
    results.stats(pool)
    assert export_document(svc.store) == before


def test_a_range_gets_a_map_up_to_the_limit(svc, results):
    last = '10.0.%d.%d' % divmod(MAP_LIMIT, 256)                # .0.1 + MAP_LIMIT - 1
    svc.pool('big', subnets=[{'cidr': '10.0.0.0/16', 'ranges': ['10.0.0.1-' + last]}])
    assert results.pool(pool_of(svc, 'big'), with_map=True)['subnets'][0]['map'][0]['map'] == '.' * MAP_LIMIT
    svc.range('big', '10.0.%d.%d' % divmod(MAP_LIMIT + 1, 256))
    maps = results.pool(pool_of(svc, 'big'), with_map=True)['subnets'][0]['map']
    assert [m['map'] for m in maps] == [None]


def test_a_parent_counts_without_its_children(svc, results):
    """What the children hold is neither free nor used in the parent: its size leaves it out."""
    svc.pool('site', subnets=[{'cidr': '10.1.0.0/24'}])
    svc.pool('b', parent='site', prefix_length=26)
    svc.pool('a', parent='site', prefix_length=26)
    site = results.pool(pool_of(svc, 'site'), with_map=True)
    assert site['children'] == ['a', 'b']
    # the children hold .0-.127: the parent hands out (and counts) .128-.254 only
    assert (site['size'], site['used'], site['free']) == (127, 0, 127)
    assert site['subnets'][0]['map'] == [{'range': '10.1.0.1-10.1.0.254', 'map': '-' * 127 + '.' * 127}]


def test_a_reservation_carries_its_subnet(svc, results):
    small(svc)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/28', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.2-10.0.0.9'],
                              'dns': ['10.0.0.53']}])
    svc.reserve('web', 'h1')
    r = svc.store.find_reservations('default')[0]
    shaped = results.reservation(r)
    assert shaped == results.reservation(r, pool_of(svc, 'web'))
    assert (shaped['address'], shaped['cidr'], shaped['network'], shaped['netmask'], shaped['prefix_length']) == \
        ('10.0.0.2', '10.0.0.2/28', '10.0.0.0/28', '255.255.255.240', 28)
    assert (shaped['gateway'], shaped['dns'], shaped['owner'], shaped['key']) == \
        ('10.0.0.1', ['10.0.0.53'], 'h1', 'default')


def test_a_pool_result_has_its_diff_and_lists_released_only_when_given(svc, results):
    small(svc)
    pool = pool_of(svc, 'web')
    created = results.pool_result(True, None, pool)
    assert created['changed'] is True and created['diff']['before'] == {}
    assert created['diff']['after'] == pool.to_data() and 'released' not in created
    assert created['pool']['free'] == 7
    deleted = results.pool_result(True, pool, pool, released=[])
    assert deleted['diff']['before'] == pool.to_data() and deleted['released'] == []
