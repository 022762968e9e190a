# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The input checks on their own (``_checks``): no store, no service."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Subnet
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._requests import PoolRequest
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import MODULES


def refused(call, *args):
    with pytest.raises(InvalidArgument) as caught:
        call(*args)
    assert caught.value.code == 'invalid_argument'
    return str(caught.value)


@pytest.mark.parametrize('given, seconds', [
    (90, 90), ('90', 90), ('30m', 1800), (' 12h ', 43200), ('7d', 604800), ('2w', 1209600), (0, 0),
    (_checks.MAX_DURATION, _checks.MAX_DURATION),
])
def test_parse_duration(given, seconds):
    assert _checks.parse_duration(given, 'ttl') == seconds


@pytest.mark.parametrize('given, said', [
    ('soon', "like '30m'"), (True, "like '30m'"), ([1], "like '30m'"), (-1, 'not be negative'),
    (_checks.MAX_DURATION + 1, '100 years'), ('1.5h', "like '30m'"),
])
def test_parse_duration_refuses(given, said):
    assert said in refused(_checks.parse_duration, given, 'reuse_delay')


@pytest.mark.parametrize('given, said', [
    ('', 'non-empty'), ('  ', 'non-empty'), (None, 'non-empty'), (3, 'non-empty'), ('x' * 256, 'at most 255'),
    ('a\nb', 'control characters'),
])
def test_check_name_refuses(given, said):
    assert said in refused(_checks.check_name, given, 'owner')


def test_check_name_keeps_a_name():
    assert _checks.check_name('web-01 éé', 'owner') == 'web-01 éé'
    assert _checks.check_name('x' * 255, 'owner') == 'x' * 255


def test_check_metadata():
    assert _checks.check_metadata(None) is None
    assert _checks.check_metadata({'a': 1, 'b': 'x', 'c': True}) == {'a': 1, 'b': 'x', 'c': True}
    assert 'flatten' in refused(_checks.check_metadata, {'a': {'b': 1}})
    assert 'dict of names' in refused(_checks.check_metadata, ['a'])
    assert 'metadata name' in refused(_checks.check_metadata, {'': 1})


def test_family_address_and_span():
    assert (_checks.family(None), _checks.family('ipv4'), _checks.family('ipv6')) == (None, 4, 6)
    assert "'ipv4' or 'ipv6'" in refused(_checks.family, 'v4')
    assert _checks.address('10.0.0.1') == (4, int(iv.parse_address('10.0.0.1')))
    assert refused(_checks.address, 'nowhere', 'gateway').startswith('gateway: ')
    assert _checks.span('10.0.0.1-10.0.0.3', 'range')[0] == 4
    assert refused(_checks.span, '10.0.0.3-nowhere', 'range').startswith('range: ')


def test_spans_lie_inside_the_subnet():
    subnet = Subnet(iv.parse_network('10.0.0.0/24'))
    assert _checks.spans(subnet, None, 'ranges') is None
    assert len(_checks.spans(subnet, '10.0.0.5', 'ranges')) == 1
    assert 'lies outside the subnet 10.0.0.0/24' in refused(_checks.spans, subnet, ['10.0.1.5'], 'exclude')
    assert 'a string or a list of strings' in refused(_checks.spans, subnet, {'a': 1}, 'exclude')


@pytest.mark.parametrize('spec, said', [
    ('10.0.0.0/24', 'must be a dict'), ({'cidr': '10.0.0.0/24', 'vlan': 3}, 'Unknown subnet option(s) vlan'),
    ({'gateway': '10.0.0.1'}, 'needs a cidr'), ({'cidr': '10.0.0.0/33'}, 'subnet cidr: '),
])
def test_subnet_network_refuses(spec, said):
    assert said in refused(_checks.subnet_network, spec)


def test_gateway_and_dns():
    network = iv.parse_network('10.0.0.0/24')
    assert iv.to_str(4, _checks.gateway('10.0.0.1', network)) == '10.0.0.1'
    assert 'outside the subnet 10.0.0.0/24' in refused(_checks.gateway, '10.0.1.1', network)
    assert _checks.dns('10.0.0.2') == ['10.0.0.2']


def test_timeout():
    assert (_checks.timeout(None), _checks.timeout(5), _checks.timeout(0.5)) == (30, 5, 0.5)
    for bad in (0, -1, True, '5'):
        assert 'positive number of seconds' in refused(_checks.timeout, bad)


def test_option_errors():
    spec = MODULES['reservation']['argument_spec']
    assert _checks.option_errors(spec, {'owner': 'a', 'pool': 'p'}) == []
    errors = _checks.option_errors(spec, {'owner': ['a'], 'pool': '', 'keep_owners': [['x']], 'key': 1})
    assert len(errors) == 3 and any("argument 'owner' must be a string" in e for e in errors)
    assert any("'pool' is an empty string" in e for e in errors)
    assert any('element 1' in e for e in errors)
    nested = _checks.option_errors(MODULES['pool']['argument_spec'], {'subnets': [{'cidr': ['10.0.0.0/24']}]})
    assert nested == ["argument 'cidr' found in 'subnets[0]' must be a string (type str), got a list."]


@pytest.mark.parametrize('kwargs, said', [
    (dict(state='gone'), "'present' or 'absent'"), (dict(strategy='last'), "'first' or 'random'"),
    (dict(description=3), 'description must be a string'), (dict(subnets=[]), 'non-empty list'),
    (dict(parent='p'), 'its own parent'), (dict(parent='q', subnets=[{}]), 'not subnets'),
    (dict(parent='q'), 'needs prefix_length'), (dict(prefix_length=24), 'given with parent'),
    (dict(parent='q', prefix_length=True), 'integer from 0 to 128'), (dict(reuse_delay='x'), 'reuse_delay must'),
    (dict(ranges=['10.0.0.9']), 'give parent with'), (dict(parent='q', ranges=[]), 'at least one range'),
    (dict(parent='q', ranges=['10.0.0.9'], prefix_length=24), 'not both'),
    (dict(parent='q', ranges=['10.0.0.9'], subnets=[{}]), 'give parent with'), (dict(parent='q', ranges=3), 'a string'),
])
def test_pool_arguments_refuse(kwargs, said):
    args = dict(name='p', namespace='default', state='present', subnets=None, parent=None, prefix_length=None,
                strategy=None, reuse_delay=None, description=None, metadata=None)
    args.update(kwargs)
    assert said in refused(lambda: _checks.pool_arguments(PoolRequest(**args)))


def test_pool_arguments_normalise():
    assert _checks.pool_arguments(PoolRequest(name='p', reuse_delay='1h')) == (3600, None, None)
    assert _checks.pool_arguments(PoolRequest(name='p', parent='q', ranges='10.0.0.9')) == (None, None, ['10.0.0.9'])


def test_range_arguments():
    assert _checks.range_arguments('default', 'p', '10.0.0.1', 'excluded', 'absent') == ['10.0.0.1']
    assert "'allocatable' or 'excluded'" in refused(_checks.range_arguments, 'default', 'p', ['x'], 'kept', 'present')
    assert 'at least one range' in refused(_checks.range_arguments, 'default', 'p', [], 'allocatable', 'present')


def test_owner_requests():
    assert _checks.owner_requests(['a', {'owner': 'b', 'address': '10.0.0.9'}], None, {'m': 1}) == [
        ('a', None, {'m': 1}), ('b', '10.0.0.9', {'m': 1})]
    assert 'twice' in refused(_checks.owner_requests, ['a', 'a'], None, None)
    assert 'takes owner, address and metadata only' in refused(_checks.owner_requests, [{'owner': 'a', 'x': 1}],
                                                               None, None)
    assert 'give each its own' in refused(_checks.owner_requests, ['a', 'b'], '10.0.0.1', None)
    assert 'must be a list of owners' in refused(_checks.owner_requests, 'a', None, None)


def test_reserve_arguments():
    version, ttl, requests = _checks.reserve_arguments(
        'default', 'p', [('a', '10.0.0.1', None), ('b', None, None)], 'default', 'ipv4', '1m', False)
    assert (version, ttl) == (4, 60)
    assert requests == [('a', (4, int(iv.parse_address('10.0.0.1'))), None), ('b', None, None)]
    assert 'at least one second' in refused(_checks.reserve_arguments, 'default', 'p', [('a', None, None)],
                                            'default', None, 0, False)
    assert 'not of family ipv6' in refused(_checks.reserve_arguments, 'default', 'p', [('a', '10.0.0.1', None)],
                                           'default', 'ipv6', None, False)
    assert 'reassign needs address' in refused(_checks.reserve_arguments, 'default', 'p', [('a', None, None)],
                                               'default', None, None, True)
    assert 'both ask for 10.0.0.1' in refused(_checks.reserve_arguments, 'default', 'p',
                                              [('a', '10.0.0.1', None), ('b', '10.0.0.1', None)],
                                              'default', None, None, True)


def test_release_arguments():
    assert _checks.release_arguments('default', None, 'a', None, None, None) == ['a']
    assert _checks.release_arguments('default', 'p', None, ['a', {'owner': 'b'}], 'k', None) == ['a', 'b']
    assert _checks.release_arguments('default', 'p', None, None, None, ['keep']) is None
    for args, said in ((('default', 'p', 'a', None, None, ['k']), 'without owner'),
                       (('default', None, None, None, None, ['k']), 'needs pool'),
                       (('default', 'p', None, None, None, 'k'), 'list of owners (strings)'),
                       (('default', None, 'a', ['b'], None, None), 'mutually exclusive'),
                       (('default', None, None, None, None, None), 'Releasing needs owner'),
                       (('default', None, 'a', None, 'k', None), 'key needs pool')):
        assert said in refused(_checks.release_arguments, *args)


def test_reservation_state():
    _checks.reservation_state('absent', ['a'])
    _checks.reservation_state('present', None)
    assert 'state: absent' in refused(_checks.reservation_state, 'present', ['a'])
