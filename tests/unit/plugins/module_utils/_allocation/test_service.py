# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The service (``_service.py``) on its own, over a real SQLite store in tmp_path.

What the service owes every caller whatever the store: its clock and its random source are the ones it is
given, every write is idempotent, check mode predicts the run and writes nothing, bad input fails with the
code and leaves the store as it was, namespaces hold apart. The rules themselves, on every store, are
the conformance suite (``_stores/contract/``).
"""

import random

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.tests.support.stores import fails

WEB = [{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.20']}]


@pytest.fixture
def svc(tmp_path, clock):
    store = open_store(str(tmp_path / 'ipam.sqlite'))
    yield Service(store, clock=clock)
    store.close()


def test_times_come_from_the_clock_it_is_given(svc, clock):
    created = svc.pool('web', subnets=WEB)['pool']
    assert created['created_at'] == created['updated_at'] == '2026-11-18T11:06:40Z'
    clock.advance(3600)
    lease = svc.reserve('web', 'h1', ttl='30m')['reservation']
    assert (lease['created_at'], lease['expires_at']) == ('2026-11-18T12:06:40Z', '2026-11-18T12:36:40Z')
    assert [e['time'] for e in svc.info(history=True)['history']] == ['2026-11-18T11:06:40Z', '2026-11-18T12:06:40Z']


def test_random_addresses_come_from_the_source_it_is_given(tmp_path, clock):
    def draws(name, seed):
        store = open_store(str(tmp_path / name))
        try:
            svc = Service(store, clock=clock, rng=random.Random(seed))
            svc.pool('web', subnets=[{'cidr': '10.0.0.0/16'}], strategy='random')
            return [svc.reserve('web', 'h%d' % i)['reservation']['address'] for i in range(20)]
        finally:
            store.close()

    first = draws('a.sqlite', 7)
    assert draws('b.sqlite', 7) == first
    assert len(set(first)) == 20 and first != sorted(first, key=lambda a: tuple(int(p) for p in a.split('.')))


WRITES = [
    ('pool', lambda s: s.pool('web', subnets=WEB, description='the web tier')),
    ('range', lambda s: s.range('web', '10.0.0.30-10.0.0.40')),
    ('exclusion', lambda s: s.range('web', '10.0.0.12', kind='excluded')),
    ('reserve', lambda s: s.reserve('web', 'h1', metadata={'role': 'web'})),
    ('static', lambda s: s.reserve('web', 'h2', address='10.0.0.50')),
    ('owners', lambda s: s.reserve_owners('web', ['h3', 'h4'])),
    ('release', lambda s: s.release(owner='h1')),
    ('sweep', lambda s: s.release(pool='web', keep_owners=['h2'])),
    ('delete', lambda s: s.pool('web', state='absent', force=True)),
]


@pytest.mark.parametrize('write', [w for _n, w in WRITES], ids=[n for n, _w in WRITES])
def test_every_write_is_idempotent_and_predicted_by_check_mode(svc, write):
    for _name, earlier in WRITES:
        if earlier is write:
            break
        earlier(svc)
    before = export_document(svc.store)
    predicted = write(_CheckMode(svc))
    assert export_document(svc.store) == before, 'check mode wrote'
    done = write(svc)
    assert predicted['changed'] is done['changed'] is True
    assert _unpredicted(predicted) == _unpredicted(done)
    after = export_document(svc.store)
    again = write(svc)
    assert again['changed'] is False and export_document(svc.store) == after


class _CheckMode(object):
    """The service with ``check=True`` on every call."""

    def __init__(self, svc):
        self.svc = svc

    def __getattr__(self, name):
        method = getattr(self.svc, name)
        return lambda *args, **kwargs: method(*args, check=True, **kwargs)


def _unpredicted(result):
    """A result less ``predicted``, the mark of an address check mode foresaw."""
    if isinstance(result, dict):
        return dict((k, _unpredicted(v)) for k, v in result.items() if k != 'predicted')
    if isinstance(result, list):
        return [_unpredicted(v) for v in result]
    return result


@pytest.mark.parametrize('call, says', [
    (lambda s: s.pool('', subnets=WEB), 'non-empty'),
    (lambda s: s.pool('x' * 256, subnets=WEB), 'at most 255'),
    (lambda s: s.pool('web\n', subnets=WEB), 'control characters'),
    (lambda s: s.pool('web', namespace=7, subnets=WEB), 'namespace'),
    (lambda s: s.pool('other', subnets=WEB, reuse_delay='soon'), "'30m'"),
    (lambda s: s.reserve('web', 'h1', ttl=-1), 'negative'),
    (lambda s: s.reserve('web', 'h1', ttl=101 * 365 * 86400), '100 years'),
    (lambda s: s.reserve('web', 'h1', family='ipx'), "'ipv4', 'ipv6' or 'dual'"),
    (lambda s: s.reserve('web', 'h1', metadata={'a': {'b': 1}}), 'flatten'),
    (lambda s: s.reserve('web', 'h1', metadata=['a']), 'dict'),
    (lambda s: s.reserve('web', 'h1', address='10.0.0.300'), 'address'),
    (lambda s: s.release(owner=''), 'non-empty'),
], ids=['empty-name', 'long-name', 'control', 'namespace-type', 'delay', 'ttl-negative', 'ttl-long', 'family',
        'metadata-nested', 'metadata-list', 'address', 'owner'])
def test_bad_input_says_what_is_wrong_and_writes_nothing(svc, call, says):
    svc.pool('web', subnets=WEB)
    svc.reserve('web', 'h0')
    assert says in fails(svc, 'invalid_argument', call, svc).msg


def test_namespaces_hold_apart(svc):
    svc.pool('web', subnets=WEB)
    svc.pool('web', namespace='lab', subnets=WEB)
    assert svc.reserve('web', 'h1')['reservation']['address'] == '10.0.0.10'
    assert svc.reserve('web', 'h1', namespace='lab')['reservation']['address'] == '10.0.0.10'
    assert [r['address'] for r in svc.release(owner='h1', namespace='lab')['released']] == ['10.0.0.10']
    assert svc.get('web', 'h1')['address'] == '10.0.0.10' and svc.get('web', 'h1', namespace='lab') is None
    assert [p['name'] for p in svc.info(namespace='lab')['pools']] == ['web']


def test_reads_write_nothing_and_a_workload_leaves_nothing_to_verify(svc, clock):
    svc.pool('web', subnets=WEB, reuse_delay='1h')
    svc.reserve_owners('web', ['a', 'b', 'c'])
    svc.reserve('web', 'd', ttl=60)
    svc.release(owner='b')
    clock.advance(120)
    before = export_document(svc.store)
    svc.info(history=True, map=True)
    svc.get('web', 'a')
    svc.reservations('default', pools=['web'])
    assert svc.verify() == {'changed': False, 'problems': [], 'repaired': []}
    assert export_document(svc.store) == before
