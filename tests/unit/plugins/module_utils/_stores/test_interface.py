# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every registered store implements the whole store interface, and nothing else is public; every free-space
component implements the whole ``FreeSpace`` interface."""

import importlib
import inspect

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._space._interface import FreeSpace
from ansible_collections.netpool.ipam.plugins.module_utils._space._spans import Spans
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import SpanStore, Store
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import (
    STORES, open_store, redact, store_kind)
from ansible_collections.netpool.ipam.tests.support import stores

PACKAGE = 'ansible_collections.netpool.ipam.plugins.module_utils._stores.'


def _public(cls):
    return set(n for n, _m in inspect.getmembers(cls, inspect.isfunction) if not n.startswith('_'))


@pytest.mark.parametrize('kind', sorted(STORES))
def test_store_implements_the_whole_interface(kind):
    """A store that keeps free spans implements the span primitives too (``SpanStore``), and nothing more."""
    module, name = STORES[kind]
    cls = getattr(importlib.import_module(PACKAGE + module), name)
    assert issubclass(cls, Store)
    assert not cls.__abstractmethods__
    interface = _public(SpanStore if issubclass(cls, SpanStore) else Store)
    assert 'free_space' in interface and 'free_first' not in _public(Store)
    public = _public(cls)
    assert public == interface, 'public methods beyond the interface: %s' % (public - interface)


def test_the_span_free_space_implements_the_whole_interface():
    assert issubclass(Spans, FreeSpace) and not Spans.__abstractmethods__
    assert _public(Spans) == _public(FreeSpace)
    assert _public(FreeSpace) == set(('allocate', 'allocate_many', 'take', 'give_back', 'end_rests', 'rebuild',
                                      'spans', 'resting', 'rests', 'count', 'unmanaged'))


@pytest.mark.parametrize('kind', stores.FILES)
def test_a_span_store_has_one_span_free_space(kind, tmp_path):
    store = open_store(str(tmp_path / ('ipam.' + kind)))
    try:
        free = store.free_space()
        assert isinstance(free, Spans) and free.store is store and store.free_space() is free
    finally:
        store.close()


@pytest.mark.parametrize('spec, kind', [
    ('ipam.sqlite', 'sqlite'), ('/var/lib/ipam.db', 'sqlite'), ('state/ipam.json', 'json'),
    ('postgresql://u:p@db/ipam', 'postgresql'), ('postgres://db/ipam', 'postgresql'),
    ('netbox+https://netbox.example.org', 'netbox'), ('netbox+http://127.0.0.1:8000', 'netbox'),
])
def test_store_kind(spec, kind):
    assert store_kind(spec) == kind


def test_unknown_scheme_and_netbox_without_a_token_are_clear_errors():
    with pytest.raises(IpamError) as info:
        open_store('mysql://root:hunter2@db/ipam')
    assert info.value.code == 'invalid_argument' and 'hunter2' not in info.value.msg
    with pytest.raises(IpamError) as info:
        open_store('netbox+https://netbox.example.org')
    assert info.value.code == 'invalid_argument' and 'store_token' in info.value.msg
    with pytest.raises(IpamError) as info:
        open_store('netbox+https://admin:hunter2@netbox.example.org', token='t')
    assert info.value.code == 'invalid_argument' and 'hunter2' not in info.value.msg


def test_redact():
    assert redact('postgresql://ipam:s3cret@db:5432/ipam') == 'postgresql://ipam:********@db:5432/ipam'
    assert 's3cret' not in redact('postgresql://db/ipam?user=ipam&password=s3cret')


#: what ``Store``/``SpanStore`` derive from the other methods, for a store that cannot do better
DERIVED = ('get_pool', 'get_reservation', 'holder', 'count_reservations', 'free_first', 'free_at', 'clear_free')


@pytest.mark.parametrize('spec', stores.FILE_NAMES)
def test_what_the_interface_derives_is_what_each_store_answers(spec, tmp_path):
    """A new store may leave out the methods the interface derives from the others: they answer as the stores'
    own, which every store keeps (it asks in fewer statements)."""
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
    store = open_store(str(tmp_path / spec))
    try:
        svc = Service(store)
        svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.40']},
                                 {'cidr': 'fd00::/120', 'ranges': ['fd00::10-fd00::30']}])
        svc.pool('kid', parent='web', prefix_length=28)
        svc.reserve('web', 'a', family='dual')
        svc.reserve('web', 'b', address='10.0.0.20')
        svc.reserve('web', 'c', address='10.0.0.25', ttl=60)
        svc.reserve('kid', 'd')
        base = dict((name, getattr(SpanStore, name)) for name in DERIVED)
        asked = [('get_pool', ('default', 'web')), ('get_pool', ('default', 'nope')),
                 ('get_reservation', ('default', 'web', 'a', 'default')),
                 ('get_reservation', ('default', 'web', 'a', 'default', 6)),
                 ('get_reservation', ('default', 'web', 'z', 'default')),
                 ('count_reservations', ()), ('count_reservations', ('default', 'web')),
                 ('count_reservations', ('default', None, None, None, None, None, None, '9999-01-01T00:00:00Z'))]
        with store.transaction(write=False):
            for r in store.find_reservations():
                asked.append(('holder', (r.namespace, r.version, r.address)))
            asked.append(('holder', ('default', 4, 1)))
            for version, first, last in store.free_spans('default', 'web'):
                asked += [('free_at', ('default', 'web', version, first)),
                          ('free_at', ('default', 'web', version, last)),
                          ('free_at', ('default', 'web', version, first - 1)),
                          ('free_first', ('default', 'web', version, first, last)),
                          ('free_first', ('default', 'web', version, first + 1, last + 1000))]
            for name, args in asked:
                own, derived = getattr(store, name)(*args), base[name](store, *args)
                if name in ('get_pool', 'get_reservation', 'holder'):
                    own, derived = [x and x.to_data() for x in (own, derived)]
                assert own == derived, (name, args)
        with store.transaction(commit=False):
            base['clear_free'](store, 'default', 'web')
            assert store.free_spans('default', 'web') == []
            assert store.free_first('default', 'web', 4, 0, (1 << 32) - 1) is None
    finally:
        store.close()
