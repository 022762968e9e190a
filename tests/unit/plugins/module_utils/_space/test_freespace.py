# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Free space on its own (``_freespace``): the derivation, pure; the span implementation over a real SQLite
store; and the package sits below the stores (it imports none of them)."""

import random
import subprocess
import sys

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space._derive import derive, expected
from ansible_collections.netpool.ipam.plugins.module_utils._space._interface import FreeSpace
from ansible_collections.netpool.ipam.plugins.module_utils._space._spans import Spans
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool, Reservation, Subnet
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store


def n(address):
    return int(iv.parse_address(address))


def pool(name, cidr, parent=None, **kw):
    return Pool('default', name, subnets=[Subnet(iv.parse_network(cidr))], parent=parent, **kw)


def nothing_held(version, first, last):
    return []


def test_derive_is_what_a_subnet_may_hand_out():
    web = pool('web', '10.0.0.0/29')
    assert derive(web, [web], nothing_held, {}) == [(4, n('10.0.0.1'), n('10.0.0.6'))]


def test_derive_leaves_out_held_and_resting_addresses():
    web = pool('web', '10.0.0.0/29')

    def held(version, first, last):
        return [a for a in (n('10.0.0.2'),) if first <= a <= last]

    resting = {4: [n('10.0.0.4'), n('10.1.0.4')]}       # an address outside the subnet changes nothing
    assert derive(web, [web], held, resting) == [
        (4, n('10.0.0.1'), n('10.0.0.1')), (4, n('10.0.0.3'), n('10.0.0.3')), (4, n('10.0.0.5'), n('10.0.0.6'))]


def test_derive_carves_a_child_out_of_its_parent():
    parent = pool('parent', '10.0.0.0/24')
    child = pool('child', '10.0.0.0/28', parent='parent')
    pools = [parent, child]
    assert derive(parent, pools, nothing_held, {}) == [(4, n('10.0.0.16'), n('10.0.0.254'))]
    # the child's own usable addresses: its network and broadcast addresses are not handed out
    assert derive(child, pools, nothing_held, {}) == [(4, n('10.0.0.1'), n('10.0.0.14'))]


def test_an_ipv6_64_is_derived_without_enumerating_it():
    big = pool('big', '2001:db8::/64')
    assert derive(big, [big], nothing_held, {}) == [(6, n('2001:db8::1'), n('2001:db8::ffff:ffff:ffff:ffff'))]


def test_the_package_imports_no_store():
    code = ('import sys\n'
            'from ansible_collections.netpool.ipam.plugins.module_utils._space import _derive, _interface, _spans\n'
            'print(sorted(m for m in sys.modules if "._stores" in m))\n')
    out = subprocess.check_output([sys.executable, '-c', code], env=_env(), universal_newlines=True)
    assert out.strip() == '[]'


def _env():
    import os
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(p for p in sys.path if p)
    return env


@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / 'ipam.sqlite'))
    yield s
    s.close()


def _reservation(owner, address=None):
    return Reservation('default', 'web', owner, 'default', 4 if address else None, address,
                       created_at='2026-01-01T00:00:00Z', updated_at='2026-01-01T00:00:00Z')


def test_spans_allocate_take_give_back_and_end_rests(store):
    web = pool('web', '10.0.0.0/29', reuse_delay=60)
    with store.transaction():
        store.save_pool(web)
        free = store.free_space()
        assert isinstance(free, Spans) and isinstance(free, FreeSpace)
        free.rebuild(web)
        assert free.spans(web) == [(4, n('10.0.0.1'), n('10.0.0.6'))]
        first = free.allocate(web, web.subnets[0], _reservation('a'), random.Random(1))
        assert first == n('10.0.0.1')
        free.take(web, 4, n('10.0.0.4'))
        assert free.spans(web) == [(4, n('10.0.0.2'), n('10.0.0.3')), (4, n('10.0.0.5'), n('10.0.0.6'))]
        assert free.count(web, 4, n('10.0.0.3'), n('10.0.0.5')) == 2
        assert free.spans(web, 4, n('10.0.0.3'), n('10.0.0.5')) == [
            (4, n('10.0.0.3'), n('10.0.0.3')), (4, n('10.0.0.5'), n('10.0.0.5'))]
        free.give_back(web, 4, n('10.0.0.4'), until='2026-01-01T00:01:00Z')     # rests: not free yet
        assert free.resting(web) == [(4, n('10.0.0.4'), '2026-01-01T00:01:00Z')]
        free.end_rests(web, '2026-01-01T00:00:59Z')
        assert free.resting(web) == [(4, n('10.0.0.4'), '2026-01-01T00:01:00Z')]
        free.end_rests(web, '2026-01-01T00:01:00Z')
        assert free.resting(web) == []
        assert free.spans(web) == [(4, n('10.0.0.2'), n('10.0.0.6'))]
        free.give_back(web, 4, first)
        assert free.spans(web) == [(4, n('10.0.0.1'), n('10.0.0.6'))]


def test_rebuild_is_what_expected_derives(store):
    web = pool('web', '10.0.0.0/29')
    with store.transaction():
        store.save_pool(web)
        free = store.free_space()
        free.rebuild(web)
        r = _reservation('a', n('10.0.0.3'))
        free.take(web, 4, r.address)
        store.save_reservation(r)
        store.clear_free('default', 'web')          # a cache gone wrong
        assert free.spans(web) == []
        free.rebuild(web)
        assert free.spans(web) == expected(store, web) == [
            (4, n('10.0.0.1'), n('10.0.0.2')), (4, n('10.0.0.4'), n('10.0.0.6'))]


def test_random_draws_only_free_addresses(store):
    web = pool('web', '10.0.0.0/29', strategy='random')
    with store.transaction():
        store.save_pool(web)
        free = store.free_space()
        free.rebuild(web)
        rng = random.Random(7)
        found = [free.allocate(web, web.subnets[0], _reservation(str(i)), rng) for i in range(7)]
        assert sorted(found[:6]) == list(range(n('10.0.0.1'), n('10.0.0.7'))) and found[6] is None


@pytest.mark.parametrize('spec, kind', [('ipam.sqlite', Spans), ('ipam.json', Spans)])
def test_the_registry_hands_each_store_its_free_space(tmp_path, spec, kind):
    store = open_store(str(tmp_path / spec))
    try:
        assert isinstance(store.free_space(), kind) and store.free_space().store is store
    finally:
        store.close()


def test_the_registry_hands_netbox_its_own_free_space():
    """No request is sent: opening the NetBox store only parses its URL."""
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._freespace import NetboxFreeSpace
    store = open_store('netbox+https://netbox.example.org', token='0123456789abcdef0123456789abcdef01234567')
    try:
        free = store.free_space()
        assert isinstance(free, NetboxFreeSpace) and free.store is store and free.client is store.client
    finally:
        store.close()


def test_the_service_asks_no_store_what_it_can_do():
    """How a store runs a reservation task at least cost (a rerun read first, the owners' reservations fetched with
    the lock) is its own, behind ``Store.reservation_transaction``: the service reads no capability of a store."""
    import inspect
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _align, _dual, _service
    from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base
    assert not hasattr(_base.Store, 'capabilities')
    for module in (_service, _align, _dual):
        assert 'capabilit' not in inspect.getsource(module)
