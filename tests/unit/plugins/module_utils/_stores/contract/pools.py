# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Pools and their subnets (docs/design.md#pools-and-ranges): create, edit, resize, split, merge, delete; the map and the counts."""

import pytest
from netaddr import IPAddress

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base, needs


class PoolTests(Base):

    def test_a_change_that_keeps_the_shape_keeps_free_spans_and_reservations(self, svc, web, monkeypatch):
        svc.reserve('web', 'h1')
        store = svc.store
        with store.transaction(write=False):
            spans = store.free_space().spans(store.get_pool('default', 'web'))
        reads = []
        real = store.find_reservations
        monkeypatch.setattr(store, 'find_reservations', lambda *a, **k: reads.append(a) or real(*a, **k))
        changed = svc.pool('web', description='front', metadata={'team': 'web'}, strategy=self.other_strategy,
                           reuse_delay=5)
        assert changed['changed'] is True and changed['released'] == []
        assert reads == []          # no reservation is loaded (nor checked) for a change of that kind
        with store.transaction(write=False):
            assert store.free_space().spans(store.get_pool('default', 'web')) == spans
        assert svc.reserve('web', 'h2')['reservation']['address'] != '10.0.0.10'
        assert (svc.info(pool='web')['pools'][0]['description'], svc.reserve('web', 'h1')['changed']) == ('front', False)

    def test_info_by_address_with_the_other_filters(self, svc, web):
        svc.reserve('web', 'h1')
        assert [r['owner'] for r in svc.info(address='10.0.0.10')['reservations']] == ['h1']
        assert [r['owner'] for r in svc.info(address='10.0.0.10', pool='web', owner='h1', key='default')
                ['reservations']] == ['h1']
        assert svc.info(address='10.0.0.10', owner='h2')['reservations'] == []
        assert svc.info(address='10.0.0.10', key='eth1')['reservations'] == []
        assert svc.info(address='10.0.0.11')['reservations'] == []
        assert svc.info(address='10.0.0.10', namespace='other')['reservations'] == []

    def test_create_reports_implicit_range_and_rerun_is_unchanged(self, svc):
        result = svc.pool('lan', subnets=[{'cidr': '192.168.1.0/24', 'gateway': '192.168.1.1', 'dns': ['192.168.1.2']}])
        assert result['changed'] is True
        pool = result['pool']
        assert pool['subnets'][0]['ranges'] == ['192.168.1.1-192.168.1.254']
        assert pool['subnets'][0]['gateway'] == '192.168.1.1'
        assert pool['subnets'][0]['dns'] == ['192.168.1.2']
        assert (pool['size'], pool['used'], pool['free']) == (253, 0, 253)
        assert result['diff']['before'] == {}
        again = svc.pool('lan', subnets=[{'cidr': '192.168.1.0/24', 'gateway': '192.168.1.1', 'dns': ['192.168.1.2']}])
        assert again['changed'] is False
        assert again['pool'] == pool

    @pytest.mark.parametrize('cidr, ranges, size', [
        ('10.1.0.0/31', ['10.1.0.0-10.1.0.1'], 2),
        ('10.1.0.7/32', ['10.1.0.7-10.1.0.7'], 1),
        ('10.1.0.0/30', ['10.1.0.1-10.1.0.2'], 2),
        pytest.param('2001:db8::/64', ['2001:db8::1-2001:db8::ffff:ffff:ffff:ffff'], 2 ** 64 - 1, marks=needs('wide')),
        ('2001:db8::/127', ['2001:db8::1-2001:db8::1'], 1),
    ])
    def test_usable_hosts(self, svc, cidr, ranges, size):
        pool = svc.pool('p', subnets=[{'cidr': cidr}])['pool']
        assert pool['subnets'][0]['ranges'] == ranges
        assert pool['size'] == size

    def test_ranges_are_merged_and_sorted(self, svc):
        pool = svc.pool('p', subnets=[{'cidr': '10.0.0.0/24', 'ranges': [
            '10.0.0.50-10.0.0.60', '10.0.0.10-10.0.0.20', '10.0.0.15-10.0.0.30', '10.0.0.31', '10.0.0.64/30'],
            'exclude': '10.0.0.12'}])['pool']
        assert pool['subnets'][0]['ranges'] == ['10.0.0.10-10.0.0.31', '10.0.0.50-10.0.0.60', '10.0.0.64-10.0.0.67']
        assert pool['subnets'][0]['exclude'] == ['10.0.0.12-10.0.0.12']

    def test_options_not_given_are_left_as_they_are(self, svc, web):
        result = svc.pool('web', description='front end', metadata={'vlan': 10})
        assert result['changed'] is True
        assert result['pool']['subnets'] == web['pool']['subnets']
        assert result['diff']['before']['description'] == ''
        assert result['diff']['after']['description'] == 'front end'
        same_cidr = svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
        assert same_cidr['changed'] is False
        assert same_cidr['pool']['subnets'][0]['ranges'] == ['10.0.0.10-10.0.0.20']

    def test_overlap_with_another_pool_fails(self, svc, web):
        error = self.fails(svc, 'pool_overlap', svc.pool, 'db', subnets=[{'cidr': '10.0.0.128/25'}])
        assert "'web'" in error.msg
        assert svc.pool('db', namespace='lab', subnets=[{'cidr': '10.0.0.0/24'}])['changed'] is True

    def test_an_overlap_across_two_adjacent_subnets_is_named(self, svc, web):
        """The overlap runs across both new subnets (found by the state machine: it was a StopIteration)."""
        error = self.fails(svc, 'pool_overlap', svc.pool, 'db',
                           subnets=[{'cidr': '10.0.0.0/25'}, {'cidr': '10.0.0.128/25'}])
        assert "subnet 10.0.0.0/25 of pool 'db'" in error.msg and "'web'" in error.msg, error.msg

    @pytest.mark.parametrize('kwargs', [
        dict(subnets=[{'cidr': '10.9.0.0/24'}, {'cidr': '10.9.0.128/25'}]),
        dict(subnets=[{'cidr': '10.9.0.0/24', 'gateway': '10.9.1.1'}]),
        dict(subnets=[{'cidr': '10.9.0.1/24'}]),
        dict(subnets=[{'cidr': '10.9.0.0/24', 'ranges': ['10.9.0.50-10.9.0.10']}]),
        dict(subnets=[{'cidr': '10.9.0.0/24', 'ranges': ['10.9.1.5']}]),
        dict(subnets=[{'cidr': '10.9.0.0/24', 'ranges': ['10.9.0.5-2001:db8::1']}]),
        dict(subnets=[{'cidr': 'not-a-cidr'}]),
        dict(subnets=[]),
        dict(subnets=[{'cidr': '10.9.0.0/24'}], strategy='sideways'),
        dict(subnets=[{'cidr': '10.9.0.0/24'}], metadata={'nested': {'a': 1}}),
        dict(),
    ])
    def test_bad_pool_input(self, svc, kwargs):
        self.fails(svc, 'invalid_argument', svc.pool, 'bad', **kwargs)

    def test_delete(self, svc, web):
        svc.reserve('web', 'h1')
        error = self.fails(svc, 'pool_in_use', svc.pool, 'web', state='absent')
        assert error.details['addresses'] == ['10.0.0.10']
        predicted = svc.pool('web', state='absent', force=True, check=True)
        assert [(r['owner'], r['address']) for r in predicted['released']] == [('h1', '10.0.0.10')]
        deleted = svc.pool('web', state='absent', force=True)
        assert deleted['changed'] is True and deleted['released'] == predicted['released']
        assert deleted['released'][0]['network'] == '10.0.0.0/24'
        assert svc.info()['pools'] == []
        assert svc.info()['reservations'] == []
        assert [e['action'] for e in svc.info(history=True)['history']][-2:] == ['release', 'delete']
        assert svc.pool('web', state='absent')['changed'] is False

    def test_shrinking_subnets_under_reservations(self, svc):
        svc.pool('p', subnets=[{'cidr': '10.2.0.0/24'}, {'cidr': '10.3.0.0/24'}])
        svc.reserve('p', 'h1', address='10.3.0.9')
        error = self.fails(svc, 'pool_in_use', svc.pool, 'p', subnets=[{'cidr': '10.2.0.0/24'}])
        assert error.details['addresses'] == ['10.3.0.9']
        result = svc.pool('p', subnets=[{'cidr': '10.2.0.0/24'}], force=True)
        assert result['changed'] is True
        assert [(r['owner'], r['address'], r['network']) for r in result['released']] == [('h1', '10.3.0.9', '10.3.0.0/24')]
        assert svc.pool('p', subnets=[{'cidr': '10.2.0.0/24'}])['released'] == []
        assert svc.info()['reservations'] == []
        release = svc.info(history=True)['history'][-2]
        assert (release['action'], release['address']) == ('release', '10.3.0.9')

    def test_shrinking_ranges_keeps_reservations(self, svc, web):
        svc.reserve('web', 'h1')
        svc.range('web', '10.0.0.10-10.0.0.15', state='absent')
        assert [r['address'] for r in svc.info()['reservations']] == ['10.0.0.10']
        assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.16'

    ROUTED = {'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.20'], 'exclude': ['10.0.0.12']}

    def test_a_widened_subnet_keeps_its_gateway_ranges_and_exclusions(self, svc):
        svc.pool('r', subnets=[self.ROUTED])
        result = svc.pool('r', subnets=[{'cidr': '10.0.0.0/23'}])
        assert result['changed'] is True
        assert result['diff']['after']['subnets'] == [{'cidr': '10.0.0.0/23', 'gateway': '10.0.0.1', 'dns': [],
                                                       'ranges': ['10.0.0.10-10.0.0.20'],
                                                       'exclude': ['10.0.0.12-10.0.0.12']}]
        taken = [svc.reserve('r', 'h%d' % i)['reservation']['address'] for i in range(10)]
        assert taken == ['10.0.0.10', '10.0.0.11'] + ['10.0.0.%d' % n for n in range(13, 21)]
        self.fails(svc, 'pool_exhausted', svc.reserve, 'r', 'h10')
        assert svc.pool('r', subnets=[{'cidr': '10.0.0.0/23'}])['changed'] is False

    @pytest.mark.parametrize('held, cidr, gateway, what, pool', [
        ('10.74.1.0', '10.74.1.0/24', None, 'the network address of 10.74.1.0/24', 'r'),
        ('10.74.0.255', '10.74.0.0/24', None, 'the broadcast address of 10.74.0.0/24', 'r'),
        ('10.74.0.9', '10.74.0.0/24', '10.74.0.9', 'the gateway of 10.74.0.0/24', 'r'),
        ('10.74.0.255', '10.74.0.0/24', None, 'the broadcast address of 10.74.0.0/24', 'kid'),
    ])
    def test_a_resize_never_leaves_a_reservation_on_a_network_broadcast_or_gateway_address(
            self, svc, held, cidr, gateway, what, pool):
        """(docs/design.md#pools-and-ranges) invalid_argument naming the owner and the address, with force too; a
        reservation of a child pool counts as well."""
        svc.pool('r', subnets=[{'cidr': '10.74.0.0/23'}])
        if pool == 'kid':
            svc.pool('kid', parent='r', prefix_length=24)                  # 10.74.0.0/24: .255 is its broadcast
        svc.reserve(pool, 'h1', address=held, force=True)
        subnet = dict({'cidr': cidr}, **({'gateway': gateway} if gateway else {}))
        error = self.fails(svc, 'invalid_argument', svc.pool, 'r', subnets=[subnet])
        assert "owner 'h1'" in error.msg and held in error.msg and what in error.msg, error.msg
        assert error.details['holder'] == {'pool': pool, 'owner': 'h1', 'key': 'default', 'address': held}
        self.fails(svc, 'invalid_argument', svc.pool, 'r', subnets=[subnet], force=True)

    def test_a_resize_keeps_a_reservation_forced_on_an_address_that_stays_the_network_address(self, svc):
        svc.pool('r', subnets=[{'cidr': '10.75.0.0/24'}])
        svc.reserve('r', 'anycast', address='10.75.0.0', force=True)
        assert svc.pool('r', subnets=[{'cidr': '10.75.0.0/23'}])['changed'] is True
        assert svc.info(owner='anycast')['reservations'][0]['address'] == '10.75.0.0'

    def test_a_resized_subnet_takes_what_is_given_anew(self, svc):
        svc.pool('r', subnets=[self.ROUTED])
        pool = svc.pool('r', subnets=[{'cidr': '10.0.0.0/25', 'gateway': '10.0.0.126', 'ranges': ['10.0.0.30-10.0.0.40'],
                                       'exclude': []}])['pool']
        assert (pool['subnets'][0]['gateway'], pool['subnets'][0]['ranges'], pool['subnets'][0]['exclude']) == (
            '10.0.0.126', ['10.0.0.30-10.0.0.40'], [])

    @pytest.mark.parametrize('given, named', [
        ({'cidr': '10.0.0.0/24', 'gateway': '10.0.0.129'}, 'gateway 10.0.0.129'),
        ({'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.100-10.0.0.140']},
         'range 10.0.0.100-10.0.0.140'),
        ({'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'exclude': ['10.0.0.120-10.0.0.130']},
         'exclusion 10.0.0.120-10.0.0.130'),
    ])
    def test_shrinking_a_subnet_refuses_what_would_fall_outside(self, svc, given, named):
        svc.pool('r', subnets=[given])
        error = self.fails(svc, 'invalid_argument', svc.pool, 'r', subnets=[{'cidr': '10.0.0.0/25'}])
        assert named in error.msg and '10.0.0.0/24' in error.msg and '10.0.0.0/25' in error.msg
        assert 'anew' in error.msg

    def test_a_resized_subnet_without_ranges_gets_its_own_implicit_range(self, svc):
        svc.pool('r', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'dns': ['10.0.0.2']}])
        wide = svc.pool('r', subnets=[{'cidr': '10.0.0.0/23'}])['pool']
        assert wide['subnets'][0]['ranges'] == ['10.0.0.1-10.0.1.254']
        assert (wide['subnets'][0]['gateway'], wide['subnets'][0]['dns'], wide['size']) == ('10.0.0.1', ['10.0.0.2'], 509)
        assert svc.reserve('r', 'h1')['reservation']['address'] == '10.0.0.2'
        narrow = svc.pool('r', subnets=[{'cidr': '10.0.0.0/25'}])['pool']
        assert (narrow['subnets'][0]['ranges'], narrow['subnets'][0]['gateway']) == (['10.0.0.1-10.0.0.126'], '10.0.0.1')

    def test_a_split_subnet_hands_each_half_what_falls_inside_it(self, svc):
        svc.pool('r', subnets=[{'cidr': '10.0.0.0/23', 'gateway': '10.0.0.1', 'dns': ['10.0.0.2'],
                                'ranges': ['10.0.0.200-10.0.1.50'], 'exclude': ['10.0.0.210', '10.0.1.10']}])
        subnets = svc.pool('r', subnets=[{'cidr': '10.0.0.0/24'}, {'cidr': '10.0.1.0/24'}])['diff']['after']['subnets']
        assert subnets == [
            {'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'dns': ['10.0.0.2'], 'ranges': ['10.0.0.200-10.0.0.254'],
             'exclude': ['10.0.0.210-10.0.0.210']},
            {'cidr': '10.0.1.0/24', 'gateway': None, 'dns': ['10.0.0.2'], 'ranges': ['10.0.1.1-10.0.1.50'],
             'exclude': ['10.0.1.10-10.0.1.10']}]

    def test_a_merge_of_subnets_gives_anew_what_they_had(self, svc):
        svc.pool('r', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1'},
                               {'cidr': '10.0.1.0/24', 'gateway': '10.0.1.1', 'exclude': ['10.0.1.5']}])
        error = self.fails(svc, 'invalid_argument', svc.pool, 'r', subnets=[{'cidr': '10.0.0.0/23'}])
        for named in ('10.0.0.0/24', '10.0.1.0/24', 'gateway 10.0.0.1', 'gateway 10.0.1.1', '10.0.1.5-10.0.1.5'):
            assert named in error.msg
        subnets = svc.pool('r', subnets=[{'cidr': '10.0.0.0/23', 'gateway': '10.0.0.1', 'exclude': ['10.0.1.1']}]
                           )['pool']['subnets']
        assert (subnets[0]['gateway'], subnets[0]['ranges'], subnets[0]['exclude']) == (
            '10.0.0.1', ['10.0.0.1-10.0.1.254'], ['10.0.1.1-10.0.1.1'])

    @needs('wide')
    def test_an_ipv6_subnet_is_resized_beside_an_ipv4_one(self, svc):
        v6 = {'cidr': '2001:db8::/64', 'gateway': '2001:db8::1', 'ranges': ['2001:db8::100-2001:db8::1ff'],
              'exclude': ['2001:db8::100']}
        svc.pool('ds', subnets=[self.ROUTED, v6])
        svc.reserve('ds', 'h1', family='ipv6')
        subnets = svc.pool('ds', subnets=[{'cidr': '10.0.0.0/24'}, {'cidr': '2001:db8::/56'}])['pool']['subnets']
        assert [(s['cidr'], s['gateway'], s['ranges'], s['exclude']) for s in subnets] == [
            ('10.0.0.0/24', '10.0.0.1', ['10.0.0.10-10.0.0.20'], ['10.0.0.12-10.0.0.12']),
            ('2001:db8::/56', '2001:db8::1', ['2001:db8::100-2001:db8::1ff'], ['2001:db8::100-2001:db8::100'])]
        assert svc.reserve('ds', 'h2', family='ipv6')['reservation']['address'] == '2001:db8::102'
        error = self.fails(svc, 'invalid_argument', svc.pool, 'ds',
                           subnets=[{'cidr': '10.0.0.0/24'}, {'cidr': '2001:db8::/120'}])
        assert 'range 2001:db8::100-2001:db8::1ff' in error.msg and '2001:db8::/56' in error.msg


class MapTests(Base):

    def test_map_of_a_small_pool(self, svc):
        svc.pool('m', subnets=[{'cidr': '10.40.0.0/28', 'gateway': '10.40.0.1', 'exclude': ['10.40.0.5-10.40.0.6']}])
        svc.reserve('m', 'a')
        svc.reserve('m', 'b')
        svc.reserve('m', 'c', address='10.40.0.10')
        pool = svc.info(map=True)['pools'][0]
        assert pool['subnets'][0]['map'] == [{'range': '10.40.0.1-10.40.0.14', 'map': '-XX.--...X....'}]
        assert (pool['size'], pool['used'], pool['free']) == (11, 3, 8)

    def test_the_map_shows_what_is_free_now(self, svc):
        """. is what dynamic allocation could take now (what free counts): an address resting under
        reuse_delay is not, and a parent's forced address inside a child is held there."""
        svc.pool('rest', reuse_delay=3600, subnets=[{'cidr': '10.41.0.0/29'}])
        svc.reserve('rest', 'a')
        svc.reserve('rest', 'b')
        svc.release(pool='rest', owner='a')
        pool = svc.info(pool='rest', map=True)['pools'][0]
        assert pool['subnets'][0]['map'] == [{'range': '10.41.0.1-10.41.0.6', 'map': '-X....'}]
        assert pool['free'] == pool['subnets'][0]['map'][0]['map'].count('.')
        svc.pool('site', subnets=[{'cidr': '10.42.0.0/24'}])
        svc.pool('kid', parent='site', prefix_length=29)
        svc.reserve('site', 'router', address='10.42.0.3', force=True)
        kid = svc.info(pool='kid', map=True)['pools'][0]
        assert kid['subnets'][0]['map'] == [{'range': '10.42.0.1-10.42.0.6', 'map': '..X...'}]
        assert kid['free'] == 5

    def test_large_ranges_have_no_map(self, svc):
        svc.pool('big', subnets=[{'cidr': '10.50.0.0/16'}])
        assert svc.info(map=True)['pools'][0]['subnets'][0]['map'][0]['map'] is None


class CountTests(Base):

    @needs('wide')
    def test_counts_are_what_find_returns_and_feed_the_pool_figures(self, svc, clock):
        """Pool figures are counted by the store (no reservation is built): every filter counts what it finds."""
        svc.pool('dual', subnets=[{'cidr': '10.2.0.0/24'}, {'cidr': '2001:db8:2::/64'}])
        svc.pool('other', subnets=[{'cidr': '10.3.0.0/24'}])
        svc.pool('dual', namespace='lab', subnets=[{'cidr': '10.2.0.0/24'}])
        for i in range(5):
            svc.reserve('dual', 'v4-%d' % i, family='ipv4', ttl=60 if i < 2 else None)
        for i in range(3):
            svc.reserve('dual', 'v6-%d' % i, family='ipv6', ttl=600 if i == 0 else None)
        svc.reserve('other', 'v4-0')
        svc.reserve('dual', 'v4-0', namespace='lab')
        clock.advance(120)      # the two v4 leases have run out, not yet released: nothing allocated since
        store = svc.store
        filters = [{}, {'namespace': 'default'}, {'namespace': 'default', 'pool': 'dual'},
                   {'namespace': 'lab', 'pool': 'dual'}, {'owner': 'v4-0'}, {'owner': 'v4-0', 'key': 'default'},
                   {'namespace': 'default', 'pool': 'dual', 'version': 4},
                   {'namespace': 'default', 'pool': 'dual', 'version': 6},
                   {'version': 4, 'first': int(IPAddress('10.2.0.2')), 'last': int(IPAddress('10.2.0.4'))},
                   {'namespace': 'default', 'expires_before': '9999-12-31T23:59:59Z'},
                   {'namespace': 'default', 'expires_before': svc.stamp()}, {'owner': 'nobody'}]
        with store.transaction(write=False):
            for where in filters:
                assert store.count_reservations(**where) == len(store.find_reservations(**where)), where
            assert [store.count_reservations(**where) for where in filters] == [10, 9, 8, 1, 3, 3, 5, 3, 3, 3, 2, 0]
        dual = svc.info(pool='dual', namespace='default')['pools'][0]
        # the two expired leases are not held (docs/design.md#leases-and-ttls): not used, and free again (the pool has no reuse delay)
        assert [(s['used'], s['free']) for s in dual['subnets']] == [(3, 251), (3, 2 ** 64 - 4)]
        assert (dual['used'], dual['leased'], dual['expired']) == (6, 3, 2)
