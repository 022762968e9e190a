# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Subnet reshaping on its own (``_reshape``): a pool's subnets given anew, resized, split or merged."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _reshape
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store


def subnet(spec, old=None, force=False):
    return _reshape.subnet(spec, old, force)


def spans(subnet_, what):
    return [iv.format_span(subnet_.version, a, b) for a, b in getattr(subnet_, what)]


def test_a_new_subnet_gets_its_usable_hosts_as_range():
    s = subnet({'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'dns': '10.0.0.2', 'exclude': ['10.0.0.9']})
    assert (spans(s, 'ranges'), spans(s, 'exclude'), s.dns) == (
        ['10.0.0.1-10.0.0.254'], ['10.0.0.9-10.0.0.9'], ['10.0.0.2'])
    assert _reshape.implicit_ranges(s)


def test_ranges_keep_to_usable_hosts_unless_forced():
    assert spans(subnet({'cidr': '10.0.0.0/29', 'ranges': ['10.0.0.0-10.0.0.7']}), 'ranges') == ['10.0.0.1-10.0.0.6']
    assert spans(subnet({'cidr': '10.0.0.0/29', 'ranges': ['10.0.0.0-10.0.0.7']}, force=True),
                 'ranges') == ['10.0.0.0-10.0.0.7']


def test_keys_not_given_keep_the_old_values():
    old = subnet({'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'dns': ['10.0.0.2'], 'ranges': ['10.0.0.10-10.0.0.20']})
    new = subnet({'cidr': '10.0.0.0/24', 'dns': []}, old)
    assert (new.gateway, new.dns, spans(new, 'ranges')) == (old.gateway, [], ['10.0.0.10-10.0.0.20'])
    assert not _reshape.implicit_ranges(new)


def test_sources_same_resized_split_and_merged():
    a = subnet({'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1'})
    b = subnet({'cidr': '10.0.1.0/24'})
    same = _reshape.sources('p', [{'cidr': '10.0.0.0/24'}, {'cidr': '10.9.0.0/24'}], [a, b], False)
    assert same[0] is a and same[1] is None
    grown = _reshape.sources('p', [{'cidr': '10.0.0.0/23'}], [a], False)[0]
    assert (grown.cidr, grown.gateway) == ('10.0.0.0/23', a.gateway)
    halves = _reshape.sources('p', [{'cidr': '10.0.0.0/25'}, {'cidr': '10.0.0.128/25'}], [a], False)
    assert [h.cidr for h in halves] == ['10.0.0.0/25', '10.0.0.128/25']
    assert (halves[0].gateway, halves[1].gateway) == (a.gateway, None)
    with pytest.raises(InvalidArgument) as caught:
        _reshape.sources('p', [{'cidr': '10.0.0.0/23'}], [a, b], False)
    assert 'merges its subnets 10.0.0.0/24 and 10.0.1.0/24' in str(caught.value) and 'gateway' in str(caught.value)
    assert _reshape.sources('p', [{'cidr': '10.0.0.0/23', 'gateway': '10.0.0.1'}], [a, b], False) == [None]


def test_carry_refuses_what_falls_outside_the_new_cidr():
    old = subnet({'cidr': '10.0.0.0/24', 'gateway': '10.0.0.200', 'exclude': ['10.0.0.150']})
    with pytest.raises(InvalidArgument) as caught:
        _reshape.sources('p', [{'cidr': '10.0.0.0/25'}], [old], False)
    assert 'The gateway 10.0.0.200 of subnet 10.0.0.0/24' in str(caught.value)
    with pytest.raises(InvalidArgument) as caught:
        _reshape.sources('p', [{'cidr': '10.0.0.0/25', 'gateway': '10.0.0.1'}], [old], False)
    assert 'The exclusion 10.0.0.150-10.0.0.150' in str(caught.value)


def test_landmarks():
    s = subnet({'cidr': '10.0.0.0/30', 'gateway': '10.0.0.1'})
    assert sorted(_reshape.landmarks(s).values()) == ['broadcast address', 'gateway', 'network address']
    assert list(_reshape.landmarks(subnet({'cidr': '2001:db8::/64'})).values()) == ['subnet-router address']
    assert _reshape.landmarks(subnet({'cidr': '10.0.0.0/31'})) == {}


def test_check_resized_names_the_holder(tmp_path):
    store = open_store(str(tmp_path / 'ipam.sqlite'))
    try:
        svc = Service(store)
        svc.pool('p', subnets=[{'cidr': '10.0.0.0/23'}])
        svc.reserve('p', 'h1', address='10.0.1.0', force=True)
        old = store.get_pool('default', 'p')
        new = old.copy()
        new.subnets = [subnet({'cidr': '10.0.1.0/24'})]
        with store.transaction(write=False):
            with pytest.raises(InvalidArgument) as caught:
                _reshape.check_resized(store, svc.stamp(), old, new)
            assert caught.value.details['holder']['owner'] == 'h1'
            new.subnets = [subnet({'cidr': '10.0.0.0/24'})]
            _reshape.check_resized(store, svc.stamp(), old, new)
    finally:
        store.close()
