# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The requests (``_vocabulary._requests``): one parser per module's options, a request handed whole to the
service, and the same answer as the fields given as keywords."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _probe
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._requests import (
    InfoRequest, PoolRequest, ReservationRequest)
from ansible_collections.netpool.ipam.tests.support.clock import Clock


def _options(**given):
    """netpool.ipam.reservation's options as Ansible validates them: every option, None or its default."""
    options = dict(state='present', namespace='default', pool=None, owner=None, owners=None, key=None,
                   address=None, family=None, metadata=None, ttl=None, force=False, reassign=False,
                   align_with=None, keep_owners=None, probe='none', probe_timeout=300, probe_tries=16)
    options.update(given)
    return options


def test_a_module_s_options_are_one_request():
    request = ReservationRequest.from_options(_options(pool='lan', owner='web1', ttl='1h'), check=True)
    assert request == ReservationRequest(pool='lan', owner='web1', ttl='1h', check=True)
    assert not request.batch and request.probe is None and request.key == 'default'
    batch = ReservationRequest.from_options(_options(pool='lan', owner='ignored', owners=['a', {'owner': 'b'}],
                                                     probe='icmp', probe_tries=3))
    assert batch.batch and batch.owner is None and batch.probe == ('icmp', 300, 3)
    assert PoolRequest.from_options({'name': 'lan', 'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': None,
                                     'force': False, 'state': 'present', 'namespace': 'default'}) == PoolRequest(
        name='lan', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1'}])
    # ranges without cidr are a child's
    assert PoolRequest.from_options({'name': 'vip', 'parent': 'lan', 'ranges': ['10.0.0.9']}).ranges == ['10.0.0.9']
    assert InfoRequest.from_options({'namespace': 'n', 'pool': 'lan', 'map': True}, check=True).filters == (
        'n', 'lan', None, None, None, False, True)


def test_a_field_that_is_not_one_is_refused_as_a_keyword_argument_is():
    with pytest.raises(TypeError, match='no field adress'):
        ReservationRequest(pool='lan', owner='a', adress='10.0.0.9')
    request = ReservationRequest(pool='lan', owner='a')
    assert request.replace(key='mgmt').key == 'mgmt' and request.key == 'default'
    with pytest.raises(TypeError, match='given whole'):
        ReservationRequest.of(request, {'key': 'mgmt'}, 'pool')


def test_checked_parses_once_and_refuses_what_the_service_refused():
    checked = ReservationRequest(pool='lan', owners=['a', {'owner': 'b', 'address': '10.0.0.9'}], ttl='1m',
                                 family='ipv4').checked()
    assert checked.asked == [('a', None, None), ('b', (4, int(0x0a000009)), None)]
    assert (checked.ttl, checked.version, checked.dual, checked.owners_asked) == (60, 4, False, ['a', 'b'])
    assert ReservationRequest(pool='lan', owner='a', family='dual').checked().dual
    with pytest.raises(InvalidArgument, match='planned takes an address'):
        ReservationRequest(pool='lan', owner='a', planned=True).checked()
    with pytest.raises(InvalidArgument, match='cannot be given with align_with'):
        ReservationRequest(pool='lan', owner='a', align_with='other', force=True).checked()
    with pytest.raises(InvalidArgument, match='probe_tries must be'):
        ReservationRequest.from_options(_options(pool='lan', owner='a', probe='icmp', probe_tries=0))


def test_the_service_takes_a_request_whole_as_it_takes_its_fields(tmp_path):
    """The same task, as a request and as keywords, on two stores: the same results, the same stores after."""
    results, documents = [], []
    for form in ('request', 'keywords'):
        svc = Service(open_store(str(tmp_path / ('%s.sqlite' % form))), clock=Clock())
        try:
            tasks = [
                ('pool', PoolRequest(name='lan', subnets=[{'cidr': '10.0.0.0/24'}], reuse_delay='1h')),
                ('reserve', ReservationRequest(pool='lan', owner='a', metadata={'mac': '02:00:00:00:00:01'})),
                ('reserve', ReservationRequest(pool='lan', owners=['b', {'owner': 'c', 'address': '10.0.0.50'}],
                                               key='k')),
                ('reserve', ReservationRequest(pool='lan', owner='a', address='10.0.0.60', check=True)),
                ('info', InfoRequest(pool='lan', map=True)),
            ]
            for method, request in tasks:
                if form == 'request':
                    results.append(getattr(svc, method)(request))
                else:
                    fields = request.fields()
                    first = fields.pop({'pool': 'name', 'reserve': 'pool', 'info': 'namespace'}[method])
                    if method == 'reserve' and fields['owners'] is not None:
                        method, second = 'reserve_owners', fields.pop('owners')
                        fields.pop('owner')
                        results.append(getattr(svc, method)(first, second, **fields))
                    else:
                        results.append(getattr(svc, method)(first, **fields))
            documents.append(export_document(svc.store))
        finally:
            svc.store.close()
    half = len(results) // 2
    assert results[:half] == results[half:]
    assert documents[0] == documents[1]
    assert results[3]['reservation']['address'] == '10.0.0.60' and results[3]['changed']


def test_a_probe_asked_by_the_options_is_a_new_probe_for_each_task():
    asked = ReservationRequest.from_options(_options(pool='lan', owner='a', probe='icmp')).probe
    first, second = _probe.of(asked), _probe.of(asked)
    assert first is not second and first.report() == second.report() == _probe.Probe('icmp').report()
    given = _probe.Probe('arp')
    assert _probe.of(given) is given and _probe.of(None) is None
