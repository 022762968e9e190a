# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The drift role's comparison (plugin_utils/_drift.py) on a real read of a SQLite store: child pools, both families,
the checks of what a host configured, the table. The role itself runs in test_drift_role.py."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, PoolNotFound
from ansible_collections.netpool.ipam.plugins.plugin_utils import _drift, _reserve
from ansible_collections.netpool.ipam.tests.support.plugins import run_module


@pytest.fixture
def store(tmp_path, capsys):
    path = str(tmp_path / 'ipam.sqlite')

    def run(module, **args):
        result = run_module(module, dict(args, store=path), capsys)
        assert not result.get('failed'), result
        return result
    run('pool', name='net', subnets=[{'cidr': '10.9.0.0/24'}, {'cidr': '2001:db8:9::/64'}])
    run('pool', name='vips', parent='net', ranges=['10.9.0.240-10.9.0.250'])
    run('pool', name='carved', parent='net', prefix_length=26)
    run('reservation', pool='net', owner='h1', address='10.9.0.100')
    run('reservation', pool='net', owner='h1', key='v6', address='2001:db8:9::100')
    run('reservation', pool='vips', owner='h2', address='10.9.0.241')
    return run('info')


def test_missing_unreserved_and_foreign_in_child_pools_and_both_families(store):
    addresses = _drift.configured(['2001:db8:9::7/64', '10.9.0.242', '10.9.0.241/24', '10.9.0.5', '192.0.2.1',
                                   '10.9.0.5'], 'h1')
    assert addresses == ['10.9.0.5', '10.9.0.241', '10.9.0.242', '192.0.2.1', '2001:db8:9::7']
    assert _drift.drift(store, 'h1', addresses) == dict(
        missing=[dict(address='10.9.0.100', pool='net', key='default'),
                 dict(address='2001:db8:9::100', pool='net', key='v6')],
        unreserved=[dict(address='10.9.0.5', pool='carved'), dict(address='10.9.0.242', pool='vips'),
                    dict(address='2001:db8:9::7', pool='net')],
        foreign=[dict(address='10.9.0.241', pool='vips', owner='h2', key='default')])
    # one pool: what the others hold or contain is not compared
    assert _drift.drift(store, 'h1', ['10.9.0.241', '10.9.0.242'], pool='vips') == dict(
        missing=[], unreserved=[dict(address='10.9.0.242', pool='vips')],
        foreign=[dict(address='10.9.0.241', pool='vips', owner='h2', key='default')])
    with pytest.raises(PoolNotFound, match="ipam_pool 'nope'"):
        _drift.drift(store, 'h1', [], pool='nope')


@pytest.mark.parametrize('addresses, message', [
    (None, 'no addresses for h1: gather its facts'),
    ('10.0.0.1', 'ipam_drift_addresses of h1 is not a list'),
    (['10.0.0.1', 'eth0'], "'eth0', an address h1 has configured, is not an IP address"),
])
def test_what_a_host_configured_is_checked(addresses, message):
    with pytest.raises(InvalidArgument, match=message):
        _drift.configured(addresses, 'h1')


def test_the_table_lists_the_hosts_that_drift():
    clean = dict(missing=[], unreserved=[], foreign=[])
    assert _drift.table({'a': clean, 'b': clean}) == [
        'no drift: 2 host(s) configure exactly what the store holds for them']
    drifts = dict(missing=[{'address': '10.0.0.1'}], unreserved=[],
                  foreign=[{'address': '10.0.0.2', 'owner': 'b', 'key': 'k'}])
    assert _drift.table({'a': clean, 'web10': drifts}) == [
        'host   missing   unreserved  foreign',
        'web10  10.0.0.1  -           10.0.0.2 (b/k)']


def test_the_fact_and_the_variables_of_the_role_are_no_misspellings_to_the_reserve_role():
    # the reserve role warns about an ipam_* variable no role reads that looks like one: ipam_drift, the fact this
    # role sets on every host, is close to ipam_drift_key
    assert _reserve.misspelled(['ipam_drift', 'ipam_drift_addresses', 'ipam_drift_adopt', 'ipam_drift_key',
                                'ipam_drift_fail']) == []
    assert _reserve.misspelled(['ipam_drift_adop']) == [('ipam_drift_adop', 'ipam_drift_adopt')]
