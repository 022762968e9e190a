# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``family: dual``: one IPv4 and one IPv6 address for one owner and key, in one transaction (docs/design.md#dynamic-reservations)."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base

#: a dual-stack pool whose IPv6 subnet lists its range (a store that cannot hand out a whole /64 holds it too)
DUAL = [{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.20']},
        {'cidr': '2001:db8::/64', 'gateway': '2001:db8::1', 'ranges': ['2001:db8::10-2001:db8::20']}]


def held(svc, pool='dual'):
    """``(owner, key, address)`` of every reservation of the pool, sorted."""
    return sorted((r['owner'], r['key'], r['address']) for r in svc.info(pool=pool)['reservations'])


class DualTests(Base):
    """``family: dual`` on every store."""

    @pytest.fixture
    def dual(self, svc):
        return svc.pool('dual', subnets=DUAL)

    def test_dual_one_call_reserves_one_address_of_each_family_and_a_rerun_changes_nothing(self, svc, dual):
        result = svc.reserve('dual', 'web1', family='dual', metadata={'mac': '52:54:00:00:00:01'})
        assert result['changed'] is True
        four, six = result['reservation'], result['reservation6']
        assert (four['address'], four['cidr'], four['gateway'], four['key']) == (
            '10.0.0.10', '10.0.0.10/24', '10.0.0.1', 'default')
        assert (six['address'], six['cidr'], six['gateway'], six['key']) == (
            '2001:db8::10', '2001:db8::10/64', '2001:db8::1', 'default')
        assert four['metadata'] == six['metadata'] == {'mac': '52:54:00:00:00:01'}
        assert result['diff'] == {'before': {'reservation': {}, 'reservation6': {}},
                                  'after': {'reservation': four, 'reservation6': six}}
        again = svc.reserve('dual', 'web1', family='dual')
        assert again['changed'] is False
        assert (again['reservation'], again['reservation6']) == (four, six)
        assert held(svc) == [('web1', 'default', '10.0.0.10'), ('web1', 'default', '2001:db8::10')]
        # the next owner gets the next addresses of both families; the history says each one
        assert svc.reserve('dual', 'web2', family='dual')['reservation6']['address'] == '2001:db8::11'
        assert [(e['owner'], e['address']) for e in svc.info(history=True)['history'] if e['action'] == 'reserve'] \
            == [('web1', '10.0.0.10'), ('web1', '2001:db8::10'), ('web2', '10.0.0.11'), ('web2', '2001:db8::11')]

    def test_dual_a_single_family_request_acts_on_its_own_family_of_the_pair(self, svc, dual):
        svc.reserve('dual', 'web1', family='dual')
        assert svc.reserve('dual', 'web1')['reservation']['address'] == '10.0.0.10'     # no family: the IPv4 one
        assert svc.reserve('dual', 'web1', family='ipv6')['changed'] is False
        assert svc.reserve('dual', 'web1', family='ipv6')['reservation']['address'] == '2001:db8::10'
        assert svc.get('dual', 'web1')['address'] == '10.0.0.10'
        moved = svc.reserve('dual', 'web1', address='2001:db8::99')       # a static address moves its family's
        assert moved['diff']['before']['address'] == '2001:db8::10'
        assert held(svc) == [('web1', 'default', '10.0.0.10'), ('web1', 'default', '2001:db8::99')]
        assert svc.reserve('dual', 'web1', family='dual')['changed'] is False
        assert svc.reserve('dual', 'web1', family='dual')['reservation6']['static'] is True

    def test_dual_an_existing_reservation_of_one_family_is_kept_and_the_other_added(self, svc, dual):
        single = svc.reserve('dual', 'web1', address='10.0.0.200')['reservation']
        result = svc.reserve('dual', 'web1', family='dual')
        assert result['changed'] is True
        assert result['reservation'] == single
        assert result['diff']['before'] == {'reservation': single, 'reservation6': {}}
        assert result['reservation6']['address'] == '2001:db8::10'
        assert svc.reserve('dual', 'web1', family='dual')['changed'] is False
        six = svc.reserve('dual', 'web2', family='ipv6')['reservation']
        result = svc.reserve('dual', 'web2', family='dual')
        assert (result['reservation']['address'], result['reservation6']) == ('10.0.0.10', six)
        assert held(svc) == [('web1', 'default', '10.0.0.200'), ('web1', 'default', '2001:db8::10'),
                             ('web2', 'default', '10.0.0.10'), ('web2', 'default', '2001:db8::11')]

    def test_dual_owners_get_both_lists_in_their_order(self, svc, dual):
        svc.reserve('dual', 'web2', family='dual')
        owners = ['web1', 'web2', {'owner': 'web3', 'metadata': {'mac': '52:54:00:00:00:03'}}]
        result = svc.reserve_owners('dual', owners, family='dual')
        assert result['changed'] is True
        assert [(r['owner'], r['address']) for r in result['reservations']] == [
            ('web1', '10.0.0.11'), ('web2', '10.0.0.10'), ('web3', '10.0.0.12')]
        assert [(r['owner'], r['address']) for r in result['reservations6']] == [
            ('web1', '2001:db8::11'), ('web2', '2001:db8::10'), ('web3', '2001:db8::12')]
        assert result['reservations6'][2]['metadata'] == {'mac': '52:54:00:00:00:03'}
        assert [r.get('address') for r in result['diff']['before']['reservations6']] == [None, '2001:db8::10', None]
        again = svc.reserve_owners('dual', owners, family='dual')
        assert again['changed'] is False
        assert (again['reservations'], again['reservations6']) == (result['reservations'], result['reservations6'])

    def test_dual_one_family_exhausted_reserves_nothing_of_either(self, svc):
        svc.pool('tight', subnets=[{'cidr': '10.9.0.0/24', 'ranges': ['10.9.0.10-10.9.0.20']},
                                   {'cidr': '2001:db8:9::/64', 'ranges': ['2001:db8:9::10-2001:db8:9::11']}])
        svc.reserve('tight', 'first', family='ipv6')
        error = self.fails(svc, 'pool_exhausted', svc.reserve_owners, 'tight', ['a', 'b'], family='dual')
        assert 'IPv6' in error.msg
        assert held(svc, 'tight') == [('first', 'default', '2001:db8:9::10')]
        assert svc.reserve_owners('tight', ['a'], family='dual')['reservations6'][0]['address'] == '2001:db8:9::11'

    def test_dual_release_releases_both_and_a_family_releases_its_own(self, svc, dual):
        svc.reserve_owners('dual', ['web1', 'web2'], family='dual')
        released = svc.release(pool='dual', owner='web1', key='default', family='dual')
        assert released['changed'] is True
        assert [r['address'] for r in released['released']] == ['10.0.0.10', '2001:db8::10']
        assert svc.release(pool='dual', owner='web1', key='default', family='dual')['changed'] is False
        only = svc.release(pool='dual', owner='web2', family='ipv6')
        assert [r['address'] for r in only['released']] == ['2001:db8::11']
        assert held(svc) == [('web2', 'default', '10.0.0.11')]

    def test_dual_check_mode_predicts_both_and_writes_nothing(self, svc, dual):
        svc.reserve('dual', 'web2', family='ipv4')
        result = self.unchanged(svc, svc.reserve_owners, 'dual', ['web1', 'web2'], family='dual')
        assert [(r['address'], r.get('predicted')) for r in result['reservations']] == [
            ('10.0.0.11', True), ('10.0.0.10', None)]
        assert [(r['address'], r.get('predicted')) for r in result['reservations6']] == [
            ('2001:db8::10', True), ('2001:db8::11', True)]
        real = svc.reserve_owners('dual', ['web1', 'web2'], family='dual')
        assert [r['address'] for r in real['reservations'] + real['reservations6']] == [
            '10.0.0.11', '10.0.0.10', '2001:db8::10', '2001:db8::11']
        released = self.unchanged(svc, svc.release, pool='dual', owner='web1', family='dual')
        assert len(released['released']) == 2

    @pytest.mark.parametrize('subnets, missing', [
        ([{'cidr': '10.8.0.0/24'}], 'IPv6'),
        ([{'cidr': '2001:db8:8::/64', 'ranges': ['2001:db8:8::10-2001:db8:8::20']}], 'IPv4'),
    ], ids=['ipv4-only', 'ipv6-only'])
    def test_dual_a_pool_of_one_family_fails_naming_the_missing_one(self, svc, subnets, missing):
        svc.pool('single', subnets=subnets)
        error = self.fails(svc, 'invalid_argument', svc.reserve, 'single', 'web1', family='dual')
        assert "Pool 'single' has no %s subnet" % missing in error.msg
        self.fails(svc, 'invalid_argument', svc.reserve_owners, 'single', ['web1', 'web2'], family='dual')

    def test_dual_refuses_a_static_address(self, svc, dual):
        error = self.fails(svc, 'invalid_argument', svc.reserve, 'dual', 'web1', family='dual', address='10.0.0.200')
        assert 'family ipv4 or ipv6' in error.msg
        self.fails(svc, 'invalid_argument', svc.reserve_owners, 'dual', [{'owner': 'web1', 'address': '10.0.0.200'}],
                   family='dual')
        assert export_document(svc.store)['reservations'] == []
