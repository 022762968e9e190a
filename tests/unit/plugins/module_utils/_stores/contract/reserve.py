# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Reservations (docs/design.md#reservations): dynamic and static, strategies, moves, metadata, reassign."""

import pytest

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base, needs


class ReserveTests(Base):

    def test_dynamic_takes_the_lowest_free_and_never_moves(self, svc, web):
        first = svc.reserve('web', 'h1')
        assert first['changed'] is True
        r = first['reservation']
        assert (r['address'], r['cidr'], r['netmask'], r['network'], r['gateway'], r['static']) == \
            ('10.0.0.10', '10.0.0.10/24', '255.255.255.0', '10.0.0.0/24', '10.0.0.1', False)
        assert first['diff'] == {'before': {}, 'after': r}
        again = svc.reserve('web', 'h1')
        assert again['changed'] is False
        assert again['reservation'] == r
        assert svc.reserve('web', 'h1', key='eth1')['reservation']['address'] == '10.0.0.11'
        assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.12'

    def test_gateway_is_never_handed_out(self, svc):
        svc.pool('p', subnets=[{'cidr': '10.0.0.0/29', 'gateway': '10.0.0.1'}])
        assert [svc.reserve('p', 'h%d' % i)['reservation']['address'] for i in range(5)] == \
            ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']
        self.fails(svc, 'pool_exhausted', svc.reserve, 'p', 'h9')

    @needs('wide')
    def test_dual_stack_and_family(self, svc):
        svc.pool('ds', subnets=[{'cidr': '2001:db8:1::/64'}, {'cidr': '10.4.0.0/24'}])
        assert svc.reserve('ds', 'h1')['reservation']['address'] == '2001:db8:1::1'
        v4 = svc.reserve('ds', 'h1', key='v4', family='ipv4')['reservation']
        assert (v4['address'], v4['netmask']) == ('10.4.0.1', '255.255.255.0')
        v6 = svc.reserve('ds', 'h2', family='ipv6')['reservation']
        assert (v6['address'], v6['prefix_length'], v6['netmask']) == ('2001:db8:1::2', 64, None)
        self.fails(svc, 'invalid_argument', svc.reserve, 'ds', 'h1', family='ipv4')
        self.fails(svc, 'invalid_argument', svc.reserve, 'ds', 'h3', family='ipx')
        svc.pool('v4only', subnets=[{'cidr': '10.5.0.0/24'}])
        self.fails(svc, 'pool_exhausted', svc.reserve, 'v4only', 'h1', family='ipv6')

    def test_exhausted_changes_nothing(self, svc):
        svc.pool('tiny', subnets=[{'cidr': '10.6.0.0/30'}])
        svc.reserve('tiny', 'a')
        svc.reserve('tiny', 'b')
        error = self.fails(svc, 'pool_exhausted', svc.reserve, 'tiny', 'c')
        assert "'tiny'" in error.msg

    @needs('random')
    def test_random_strategy_is_distinct_and_fills_the_pool(self, svc):
        svc.pool('r', strategy='random', subnets=[{'cidr': '10.7.0.0/28'}])
        got = [svc.reserve('r', 'h%d' % i)['reservation']['address'] for i in range(14)]
        assert sorted(got, key=lambda a: int(a.split('.')[-1])) == ['10.7.0.%d' % i for i in range(1, 15)]
        self.fails(svc, 'pool_exhausted', svc.reserve, 'r', 'h99')

    @needs('random')
    def test_random_strategy_draws_only_what_the_pool_hands_out(self, svc, monkeypatch):
        """A parent carved into children (or with wide exclusions) is drawn from what is left of it: draws
        land, and the free spans are never listed (they would be, after 32 draws that all missed)."""
        svc.pool('r', strategy='random', subnets=[{'cidr': '10.9.0.0/20', 'exclude': ['10.9.15.0-10.9.15.127']}])
        for i in range(14):
            svc.pool('kid%d' % i, parent='r', prefix_length=24)
        listed = []
        free = svc.store.free_space()
        real = free.spans
        monkeypatch.setattr(free, 'spans', lambda *a, **k: listed.append(a) or real(*a, **k))
        got = [svc.reserve('r', 'h%d' % i)['reservation']['address'] for i in range(40)]
        assert len(set(got)) == 40 and all(a.startswith('10.9.14.') or a.startswith('10.9.15.') for a in got)
        assert not [a for a in got if a.startswith('10.9.15.') and int(a.split('.')[-1]) < 128]
        assert listed == []

    @needs('random', 'wide')
    def test_random_strategy_in_an_ipv6_64(self, svc):
        svc.pool('r6', strategy='random', subnets=[{'cidr': '2001:db8:2::/64'}])
        got = set(svc.reserve('r6', 'h%d' % i)['reservation']['address'] for i in range(100))
        assert len(got) == 100
        assert all(a.startswith('2001:db8:2:0:') or a.startswith('2001:db8:2::') for a in got)

    def test_static(self, svc, web):
        r = svc.reserve('web', 'h1', address='10.0.0.100', metadata={'mac': '52:54:00:00:00:01'})['reservation']
        assert (r['address'], r['static'], r['metadata']) == ('10.0.0.100', True, {'mac': '52:54:00:00:00:01'})
        assert svc.reserve('web', 'h1', address='10.0.0.100')['changed'] is False
        error = self.fails(svc, 'address_in_use', svc.reserve, 'web', 'h2', address='10.0.0.100')
        assert "'h1'" in error.msg and "'web'" in error.msg
        assert error.details['holder'] == {'pool': 'web', 'owner': 'h1', 'key': 'default'}
        self.fails(svc, 'address_out_of_pool', svc.reserve, 'web', 'h2', address='10.0.1.1')
        self.fails(svc, 'address_out_of_pool', svc.reserve, 'web', 'h2', address='2001:db8::1')
        self.fails(svc, 'invalid_argument', svc.reserve, 'web', 'h2', address='10.0.0.256')

    @pytest.mark.parametrize('address', ['10.0.0.1', '10.0.0.0', '10.0.0.255', '10.0.0.30'])
    def test_excluded_addresses_need_force(self, svc, web, address):
        svc.range('web', '10.0.0.30', kind='excluded')
        self.fails(svc, 'address_excluded', svc.reserve, 'web', 'h1', address=address)
        assert svc.reserve('web', 'h1', address=address, force=True)['reservation']['address'] == address

    def test_static_inside_the_dynamic_range_is_skipped_by_dynamic(self, svc, web):
        svc.reserve('web', 's', address='10.0.0.10')
        svc.reserve('web', 's2', address='10.0.0.12')
        assert [svc.reserve('web', 'h%d' % i)['reservation']['address'] for i in range(3)] == \
            ['10.0.0.11', '10.0.0.13', '10.0.0.14']

    def test_move(self, svc, web):
        old = svc.reserve('web', 'h1')['reservation']
        moved = svc.reserve('web', 'h1', address='10.0.0.15')
        assert moved['changed'] is True
        assert (moved['diff']['before']['address'], moved['diff']['after']['address']) == ('10.0.0.10', '10.0.0.15')
        assert moved['reservation']['created_at'] == old['created_at']
        assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.10'
        assert svc.info(history=True)['history'][-2]['action'] == 'move'

    def test_metadata_update(self, svc, web):
        svc.reserve('web', 'h1', metadata={'rack': 'a'})
        result = svc.reserve('web', 'h1', metadata={'rack': 'b'})
        assert result['changed'] is True
        assert result['reservation']['metadata'] == {'rack': 'b'}
        assert result['reservation']['address'] == '10.0.0.10'
        assert svc.reserve('web', 'h1', metadata={'rack': 'b'})['changed'] is False
        assert svc.reserve('web', 'h1')['reservation']['metadata'] == {'rack': 'b'}

    @pytest.mark.parametrize('kwargs', [
        dict(owner=''), dict(owner='x' * 256), dict(owner='a\nb'), dict(key=''), dict(owner=5),
        dict(metadata={'a': [1]}), dict(metadata={'a': None}), dict(metadata='mac'),
        dict(ttl='soon'), dict(ttl=-5), dict(ttl=0), dict(ttl=True), dict(namespace=''),
        dict(reassign=True), dict(address='10.0.0.5', family='ipv6'), dict(address='::ffff:10.0.0.5'),
    ])
    def test_bad_reservation_input(self, svc, web, kwargs):
        args = dict(owner='h1')
        args.update(kwargs)
        self.fails(svc, 'invalid_argument', svc.reserve, 'web', **args)

    def test_unknown_pool(self, svc):
        self.fails(svc, 'pool_not_found', svc.reserve, 'nope', 'h1')
        self.fails(svc, 'pool_not_found', svc.reserve, 'nope', 'h1', address='10.0.0.5')

    def test_namespaces_hold_the_same_address_apart(self, svc):
        for ns in ('a', 'b'):
            svc.pool('p', namespace=ns, subnets=[{'cidr': '10.0.0.0/24'}])
        assert svc.reserve('p', 'h', namespace='a')['reservation']['address'] == '10.0.0.1'
        assert svc.reserve('p', 'h', namespace='b')['reservation']['address'] == '10.0.0.1'


class ReassignTests(Base):

    def test_reassign_moves_an_address_between_owners(self, svc, web):
        svc.reserve('web', 'primary', address='10.0.0.200')
        self.fails(svc, 'address_in_use', svc.reserve, 'web', 'standby', address='10.0.0.200')
        result = svc.reserve('web', 'standby', address='10.0.0.200', reassign=True)
        assert result['changed'] is True
        assert [r['owner'] for r in svc.info(address='10.0.0.200')['reservations']] == ['standby']
        entry = [e for e in svc.info(history=True)['history'] if e['action'] == 'reassign'][0]
        assert (entry['owner'], entry['new']['owner']) == ('primary', 'standby')
        assert svc.reserve('web', 'standby', address='10.0.0.200', reassign=True)['changed'] is False
