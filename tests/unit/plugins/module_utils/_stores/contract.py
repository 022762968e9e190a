# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The conformance suite: SPEC §3 as mixins that every store's test class inherits.

A store's test file defines a class inheriting ``StoreContract`` with a pytest
fixture ``spec`` (a ``store`` value that ``open_store`` accepts, naming an empty,
isolated state). Everything here goes through the service, the way modules do.

A store that cannot hold something of the SPEC says ``unsupported`` for it (SPEC §5)
and names it in ``cannot``: the tests marked ``needs`` with it are skipped for that
store, whose own file shows that it says ``unsupported``. What can be named:

- ``random``: the ``random`` strategy;
- ``wide``: a subnet handing out more than 2**32 - 1 addresses (an IPv6 /64 left
  without ranges).
"""

import multiprocessing
import os

import pytest
from netaddr import IPAddress

from ansible_collections.netpool.ipam.plugins.module_utils._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._transfer import export_state
from ansible_collections.netpool.ipam.tests.support.clock import Clock


needs = pytest.mark.needs


class Base(object):

    #: what the store says ``unsupported`` for (see above)
    cannot = frozenset()
    #: processes, and reservations each, of the parallel test (a remote store over HTTP may make it smaller)
    parallel = (20, 50)

    @pytest.fixture(autouse=True)
    def _what_the_store_holds(self, request):
        for mark in request.node.iter_markers('needs'):
            missing = sorted(set(mark.args) & self.cannot)
            if missing:
                pytest.skip('this store cannot hold %s: it says unsupported, which its own tests show'
                            % ' or '.join(missing))

    @property
    def other_strategy(self):
        """A strategy other than the default one, where the store holds one."""
        return 'first' if 'random' in self.cannot else 'random'

    @pytest.fixture
    def clock(self):
        return Clock()

    @pytest.fixture
    def store(self, spec):
        store = open_store(spec)
        yield store
        store.close()

    @pytest.fixture
    def svc(self, store, clock):
        return Service(store, clock=clock)

    @pytest.fixture
    def web(self, svc):
        """A pool of 10.0.0.0/24, gateway .1, dynamic range .10-.20."""
        return svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1',
                                         'ranges': ['10.0.0.10-10.0.0.20']}])

    @staticmethod
    def fails(svc, code, method, *args, **kwargs):
        """Call ``method``: it must fail with SPEC error ``code`` and leave the store exactly as it was."""
        before = export_state(svc.store)
        with pytest.raises(IpamError) as info:
            method(*args, **kwargs)
        assert info.value.code == code, info.value.msg
        assert info.value.msg and 'Traceback' not in info.value.msg
        assert export_state(svc.store) == before
        return info.value

    @staticmethod
    def unchanged(svc, method, *args, **kwargs):
        """Call ``method`` in check mode: it must not change the store."""
        before = export_state(svc.store)
        result = method(*args, check=True, **kwargs)
        assert export_state(svc.store) == before
        return result


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
        """Issue 23, defect 5 (SPEC §3.4): invalid_argument naming the owner and the address, with force too; a
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


class RangeTests(Base):

    def test_remove_from_the_middle_splits(self, svc):
        svc.pool('p', subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.100']}])
        result = svc.range('p', '10.0.0.20-10.0.0.50', state='absent')
        assert result['changed'] is True
        assert result['pool']['subnets'][0]['ranges'] == ['10.0.0.10-10.0.0.19', '10.0.0.51-10.0.0.100']
        assert result['diff']['before']['subnets'][0]['ranges'] == ['10.0.0.10-10.0.0.100']
        assert svc.range('p', '10.0.0.20-10.0.0.50', state='absent')['changed'] is False

    def test_add_merges_adjacent(self, svc, web):
        result = svc.range('web', ['10.0.0.21-10.0.0.30', '10.0.0.40/29'])
        assert result['pool']['subnets'][0]['ranges'] == ['10.0.0.10-10.0.0.30', '10.0.0.40-10.0.0.47']
        assert svc.range('web', '10.0.0.25')['changed'] is False

    def test_edits_start_from_the_implicit_range(self, svc):
        svc.pool('p', subnets=[{'cidr': '10.0.0.0/28'}])
        result = svc.range('p', '10.0.0.5-10.0.0.9', state='absent')
        assert result['pool']['subnets'][0]['ranges'] == ['10.0.0.1-10.0.0.4', '10.0.0.10-10.0.0.14']

    def test_network_and_broadcast_need_force(self, svc):
        svc.pool('p', subnets=[{'cidr': '10.0.0.0/29', 'ranges': ['10.0.0.2-10.0.0.3']}])
        assert svc.range('p', '10.0.0.0/29')['pool']['subnets'][0]['ranges'] == ['10.0.0.1-10.0.0.6']
        assert svc.range('p', '10.0.0.0/29', force=True)['pool']['subnets'][0]['ranges'] == ['10.0.0.0-10.0.0.7']

    def test_exclusions_are_skipped_and_split(self, svc, web):
        svc.range('web', '10.0.0.10-10.0.0.12', kind='excluded')
        assert svc.reserve('web', 'h1')['reservation']['address'] == '10.0.0.13'
        pool = svc.range('web', '10.0.0.11', kind='excluded', state='absent')['pool']
        assert pool['subnets'][0]['exclude'] == ['10.0.0.10-10.0.0.10', '10.0.0.12-10.0.0.12']
        assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.11'

    def test_exclusion_over_a_reservation_keeps_it_and_never_reuses_it(self, svc, web):
        svc.reserve('web', 'h1')
        svc.range('web', '10.0.0.10', kind='excluded')
        assert svc.reserve('web', 'h1')['reservation']['address'] == '10.0.0.10'
        svc.release(owner='h1')
        assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.11'

    def test_errors(self, svc, web):
        self.fails(svc, 'address_out_of_pool', svc.range, 'web', '10.0.1.5')
        self.fails(svc, 'invalid_argument', svc.range, 'web', '10.0.0.9-10.0.0.5')
        self.fails(svc, 'invalid_argument', svc.range, 'web', [])
        self.fails(svc, 'invalid_argument', svc.range, 'web', '10.0.0.5', kind='other')
        self.fails(svc, 'pool_not_found', svc.range, 'nope', '10.0.0.5')


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


class ReleaseTests(Base):

    @pytest.fixture
    def two_pools(self, svc, web):
        svc.pool('db', subnets=[{'cidr': '10.1.0.0/24'}])
        for pool in ('web', 'db'):
            for owner in ('h1', 'h2'):
                for key in ('a', 'b'):
                    svc.reserve(pool, owner, key=key)

    def test_one_key(self, svc, two_pools):
        result = svc.release(pool='web', owner='h1', key='a')
        assert [(r['pool'], r['owner'], r['key'], r['address']) for r in result['released']] == \
            [('web', 'h1', 'a', '10.0.0.10')]
        assert svc.release(pool='web', owner='h1', key='a')['changed'] is False

    def test_every_key_of_an_owner_in_a_pool(self, svc, two_pools):
        result = svc.release(pool='web', owner='h1')
        assert sorted(r['key'] for r in result['released']) == ['a', 'b']
        assert len(svc.info(owner='h1')['reservations']) == 2

    def test_every_reservation_of_an_owner_in_the_namespace(self, svc, two_pools):
        result = svc.release(owner='h2')
        assert sorted((r['pool'], r['key']) for r in result['released']) == \
            [('db', 'a'), ('db', 'b'), ('web', 'a'), ('web', 'b')]
        assert svc.info(owner='h2')['reservations'] == []
        assert svc.release(owner='h2')['changed'] is False

    def test_released_address_is_reused(self, svc, web):
        svc.reserve('web', 'h1')
        svc.reserve('web', 'h2')
        svc.release(owner='h1')
        assert svc.reserve('web', 'h3')['reservation']['address'] == '10.0.0.10'
        released = [e for e in svc.info(history=True)['history'] if e['action'] == 'release']
        assert released[0]['old']['owner'] == 'h1'

    def test_release_errors(self, svc, web):
        self.fails(svc, 'invalid_argument', svc.release, pool='web')
        self.fails(svc, 'invalid_argument', svc.release, key='a', owner='h1')
        self.fails(svc, 'invalid_argument', svc.release, pool='web', owner='h1', keep_owners=['h1'])
        self.fails(svc, 'invalid_argument', svc.release, keep_owners=['h1'])


class CheckModeTests(Base):

    def test_check_mode_writes_nothing(self, svc, web):
        result = self.unchanged(svc, svc.reserve, 'web', 'h1')
        assert result['changed'] is True
        assert result['reservation']['predicted'] is True
        assert result['reservation']['address'] == '10.0.0.10'
        result = self.unchanged(svc, svc.pool, 'new', subnets=[{'cidr': '10.8.0.0/24'}])
        assert result['changed'] is True and result['pool']['size'] == 254
        self.unchanged(svc, svc.range, 'web', '10.0.0.30-10.0.0.40')
        svc.reserve('web', 'h1')
        result = self.unchanged(svc, svc.release, owner='h1')
        assert [r['address'] for r in result['released']] == ['10.0.0.10']
        self.unchanged(svc, svc.pool, 'web', state='absent', force=True)
        static = self.unchanged(svc, svc.reserve, 'web', 'h2', address='10.0.0.50')
        assert 'predicted' not in static['reservation']


class HistoryTests(Base):

    def test_every_change_is_recorded(self, svc, web):
        svc.range('web', '10.0.0.30', kind='excluded')
        svc.reserve('web', 'h1')
        svc.reserve('web', 'h1', address='10.0.0.50')
        svc.release(owner='h1')
        history = svc.info(history=True)['history']
        assert [(e['object'], e['action']) for e in history] == [
            ('pool', 'create'), ('range', 'add'), ('reservation', 'reserve'), ('reservation', 'move'),
            ('reservation', 'release')]
        assert history[3]['old']['address'] == '10.0.0.10' and history[3]['new']['address'] == '10.0.0.50'
        assert all(e['time'] and e['namespace'] == 'default' for e in history)
        by_address = svc.info(history=True, address='10.0.0.10')['history']
        assert [e['action'] for e in by_address] == ['reserve']
        by_owner = svc.info(history=True, owner='h1')['history']
        assert [e['action'] for e in by_owner] == ['reserve', 'move', 'release']


class LeaseTests(Base):

    def test_lease_expires_and_its_address_is_reclaimed(self, svc, web, clock):
        r = svc.reserve('web', 'ci-1', ttl='30m')['reservation']
        assert r['expires_at'] == '2026-11-18T11:36:40Z'
        clock.advance(600)
        renewed = svc.reserve('web', 'ci-1', ttl='30m')
        assert renewed['changed'] is True
        assert renewed['reservation']['expires_at'] == '2026-11-18T11:46:40Z'
        assert svc.info()['pools'][0]['leased'] == 1
        clock.advance(1801)
        assert svc.info()['pools'][0]['expired'] == 1
        assert svc.get('web', 'ci-1') is None
        assert svc.reserve('web', 'other')['reservation']['address'] == '10.0.0.10'
        assert [e['action'] for e in svc.info(history=True)['history']][-2:] == ['expire', 'reserve']
        assert svc.info()['pools'][0]['leased'] == 0

    @pytest.mark.parametrize('ttl, seconds', [(90, 90), ('45s', 45), ('30m', 1800), ('12h', 43200), ('7d', 604800)])
    def test_ttl_forms(self, svc, web, clock, ttl, seconds):
        svc.reserve('web', 'h', ttl=ttl)
        clock.advance(seconds - 1)
        assert svc.get('web', 'h') is not None
        clock.advance(1)
        assert svc.get('web', 'h') is None

    def test_expired_holder_does_not_block_a_static_request(self, svc, web, clock):
        svc.reserve('web', 'ci', address='10.0.0.50', ttl=60)
        clock.advance(61)
        assert svc.reserve('web', 'prod', address='10.0.0.50')['reservation']['owner'] == 'prod'


class ReuseDelayTests(Base):

    def test_released_address_waits_out_the_delay(self, svc, clock):
        svc.pool('p', reuse_delay=300, subnets=[{'cidr': '10.0.0.0/29'}])
        svc.reserve('p', 'h1')
        svc.release(owner='h1')
        assert svc.reserve('p', 'h2')['reservation']['address'] == '10.0.0.2'
        assert svc.info()['pools'][0]['free'] == 4
        clock.advance(299)
        assert svc.reserve('p', 'h3')['reservation']['address'] == '10.0.0.3'
        clock.advance(1)
        assert svc.reserve('p', 'h4')['reservation']['address'] == '10.0.0.1'

    def test_info_reports_an_address_free_once_its_delay_is_over(self, svc, clock):
        """Without an allocation in between (which would settle the delay): a read derives it (issue 23)."""
        svc.pool('p', reuse_delay=300, subnets=[{'cidr': '10.0.0.0/29'}])
        svc.reserve('p', 'h1')
        svc.reserve('p', 'h2')
        svc.release(owner='h1')
        pool = svc.info(map=True)['pools'][0]
        assert (pool['used'], pool['free'], pool['subnets'][0]['map'][0]['map']) == (1, 4, '-X....')
        clock.advance(300)
        pool = svc.info(map=True)['pools'][0]
        assert (pool['used'], pool['free'], pool['subnets'][0]['free']) == (1, 5, 5)
        assert pool['subnets'][0]['map'][0]['map'] == '.X....'
        assert svc.reserve('p', 'h3')['reservation']['address'] == '10.0.0.1'     # allocation agrees

    def test_static_may_take_a_delayed_address(self, svc):
        svc.pool('p', reuse_delay='1h', subnets=[{'cidr': '10.0.0.0/29'}])
        svc.reserve('p', 'h1')
        svc.release(owner='h1')
        assert svc.reserve('p', 'h2', address='10.0.0.1')['reservation']['address'] == '10.0.0.1'


class SweepTests(Base):

    def test_sweep_keeps_exactly_the_listed_owners(self, svc, web):
        for owner in ('a', 'b', 'c', 'd'):
            svc.reserve('web', owner)
        svc.reserve('web', 'b', key='eth1')
        preview = self.unchanged(svc, svc.release, pool='web', keep_owners=['a', 'c'])
        assert sorted((r['owner'], r['key']) for r in preview['released']) == \
            [('b', 'default'), ('b', 'eth1'), ('d', 'default')]
        svc.release(pool='web', keep_owners=['a', 'c'])
        assert sorted(r['owner'] for r in svc.info()['reservations']) == ['a', 'c']
        assert svc.release(pool='web', keep_owners=['a', 'c'])['changed'] is False


class ChildPoolTests(Base):

    def test_children_are_carved_in_order(self, svc):
        svc.pool('site', subnets=[{'cidr': '10.16.0.0/16'}])
        assert svc.pool('a', parent='site', prefix_length=24)['pool']['subnets'][0]['cidr'] == '10.16.0.0/24'
        assert svc.pool('b', parent='site', prefix_length=24)['pool']['subnets'][0]['cidr'] == '10.16.1.0/24'
        result = svc.pool('c', parent='site', prefix_length=20)
        assert result['pool']['subnets'][0]['cidr'] == '10.16.16.0/20'
        assert result['pool']['parent'] == 'site'
        again = svc.pool('c', parent='site', prefix_length=20)
        assert again['changed'] is False and again['pool']['subnets'][0]['cidr'] == '10.16.16.0/20'
        self.fails(svc, 'invalid_argument', svc.pool, 'c', parent='site', prefix_length=21)
        assert svc.info(pool='site')['pools'][0]['children'] == ['a', 'b', 'c']
        assert svc.reserve('a', 'h1')['reservation']['address'] == '10.16.0.1'

    def test_parent_never_hands_out_inside_a_child(self, svc):
        svc.pool('site', subnets=[{'cidr': '10.20.0.0/28'}])
        svc.reserve('site', 'h0')
        svc.pool('kid', parent='site', prefix_length=29)
        assert svc.info(pool='kid')['pools'][0]['subnets'][0]['cidr'] == '10.20.0.8/29'
        got = [svc.reserve('site', 'h%d' % i)['reservation']['address'] for i in range(1, 7)]
        assert got == ['10.20.0.2', '10.20.0.3', '10.20.0.4', '10.20.0.5', '10.20.0.6', '10.20.0.7']
        self.fails(svc, 'pool_exhausted', svc.reserve, 'site', 'h9')
        self.fails(svc, 'address_excluded', svc.reserve, 'site', 'h9', address='10.20.0.9')
        self.fails(svc, 'pool_exhausted', svc.pool, 'kid2', parent='site', prefix_length=29)
        svc.pool('kid', state='absent')
        assert svc.reserve('site', 'h9')['reservation']['address'] == '10.20.0.8'

    def test_a_child_never_hands_out_the_parents_gateway(self, svc):
        svc.pool('site', subnets=[{'cidr': '10.70.0.0/16', 'gateway': '10.70.0.1'}])
        child = svc.pool('kid', parent='site', prefix_length=24)['pool']
        assert child['subnets'][0]['cidr'] == '10.70.0.0/24'
        assert child['subnets'][0]['exclude'] == []             # derived from the parent, never copied
        assert (child['size'], child['free']) == (253, 253)
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.70.0.2'
        self.fails(svc, 'address_excluded', svc.reserve, 'kid', 'h2', address='10.70.0.1')
        assert svc.reserve('kid', 'router', address='10.70.0.1', force=True)['reservation']['static'] is True

    def test_a_child_never_hands_out_the_parents_exclusions(self, svc):
        svc.pool('site', subnets=[{'cidr': '10.71.0.0/24', 'gateway': '10.71.0.1',
                                   'exclude': ['10.71.0.2-10.71.0.5', '10.71.0.40-10.71.0.200']}])
        child = svc.pool('kid', parent='site', prefix_length=28)['pool']
        assert child['subnets'][0]['cidr'] == '10.71.0.0/28'
        assert child['subnets'][0]['exclude'] == []
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.71.0.6'
        wide = svc.pool('wide', parent='site', prefix_length=26)['pool']
        assert wide['subnets'][0]['cidr'] == '10.71.0.64/26'
        assert (wide['size'], wide['free']) == (0, 0)
        self.fails(svc, 'pool_exhausted', svc.reserve, 'wide', 'h2')
        self.fails(svc, 'address_excluded', svc.reserve, 'kid', 'h3', address='10.71.0.3')

    def test_what_a_parent_withholds_later_holds_in_every_pool_below_it_at_once(self, svc):
        """Issue 23, defect 2: a gateway or exclusion the parent gets after carving holds in its children and
        grandchildren at once (derived, not copied), and one it lets go of is handed out there again."""
        svc.pool('site', subnets=[{'cidr': '10.72.0.0/16'}])
        svc.pool('kid', parent='site', prefix_length=24)                      # 10.72.0.0/24
        svc.pool('grandkid', parent='kid', prefix_length=28)                  # 10.72.0.0/28
        svc.pool('site', subnets=[{'cidr': '10.72.0.0/16', 'gateway': '10.72.0.1'}])
        svc.range('site', '10.72.0.2-10.72.0.5', kind='excluded')
        assert svc.reserve('grandkid', 'h1')['reservation']['address'] == '10.72.0.6'
        grandkid = svc.info(pool='grandkid')['pools'][0]
        assert (grandkid['size'], grandkid['used'], grandkid['free']) == (9, 1, 8)
        for address in ('10.72.0.1', '10.72.0.4'):
            self.fails(svc, 'address_excluded', svc.reserve, 'grandkid', 'h2', address=address)
            self.fails(svc, 'address_excluded', svc.reserve, 'kid', 'h2', address=address)
        assert svc.verify()['problems'] == []
        svc.range('site', '10.72.0.2-10.72.0.3', kind='excluded', state='absent')
        assert svc.reserve('grandkid', 'h3')['reservation']['address'] == '10.72.0.2'
        assert svc.verify()['problems'] == []

    def test_a_31_child_never_hands_out_the_parents_network_address(self, svc):
        """Issue 23, defect 2: a /31 child has no network address of its own, but its parent's is not free."""
        svc.pool('site', subnets=[{'cidr': '10.73.0.0/24'}])
        assert svc.pool('kid', parent='site', prefix_length=31)['pool']['subnets'][0]['cidr'] == '10.73.0.0/31'
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.73.0.1'
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'h2')
        self.fails(svc, 'address_excluded', svc.reserve, 'kid', 'h2', address='10.73.0.0')
        assert svc.reserve('kid', 'h2', address='10.73.0.0', force=True)['changed'] is True
        svc.release(owner='h2')
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'h3')         # given back, still withheld
        assert svc.verify()['problems'] == []

    def test_deleting_a_child_leaves_its_resting_addresses_resting_in_its_parent(self, svc, clock):
        """Issue 23, defect 6 (SPEC §3.6): the parent hands them out only once their reuse delay is over; so do
        the addresses force releases with the child."""
        svc.pool('site', subnets=[{'cidr': '10.76.0.0/27'}])
        svc.pool('kid', parent='site', prefix_length=29, reuse_delay=600)     # 10.76.0.0/29
        svc.pool('kid2', parent='site', prefix_length=29, reuse_delay=600)    # 10.76.0.8/29
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.76.0.1'
        assert svc.reserve('kid2', 'h2')['reservation']['address'] == '10.76.0.9'
        svc.release(owner='h1')
        svc.pool('kid', state='absent')
        svc.pool('kid2', state='absent', force=True)
        site = svc.info(pool='site')['pools'][0]
        assert (site['size'], site['free']) == (30, 28)
        got = [svc.reserve('site', 'h%d' % i)['reservation']['address'] for i in range(3, 5)]
        assert got == ['10.76.0.2', '10.76.0.3']
        assert svc.verify()['problems'] == []
        clock.advance(601)
        got = [svc.reserve('site', 'h%d' % i)['reservation']['address'] for i in range(5, 7)]
        assert got == ['10.76.0.1', '10.76.0.4']
        assert svc.reserve('site', 'h9', address='10.76.0.9')['changed'] is True
        assert svc.verify()['problems'] == []

    @needs('wide')
    def test_ipv6_children_out_of_a_48(self, svc):
        svc.pool('v6', subnets=[{'cidr': '2001:db8:100::/48'}])
        assert svc.pool('n1', parent='v6', prefix_length=56)['pool']['subnets'][0]['cidr'] == '2001:db8:100::/56'
        assert svc.pool('n2', parent='v6', prefix_length=64)['pool']['subnets'][0]['cidr'] == '2001:db8:100:100::/64'
        assert svc.pool('n3', parent='v6', prefix_length=56)['pool']['subnets'][0]['cidr'] == '2001:db8:100:200::/56'

    def test_grandchildren_and_forced_addresses_across_a_parent_and_its_child(self, svc):
        svc.pool('site', subnets=[{'cidr': '10.80.0.0/24'}])
        svc.pool('kid', parent='site', prefix_length=28)
        svc.pool('grandkid', parent='kid', prefix_length=30)
        assert svc.pool('site', description='changed')['changed'] is True     # no pool_overlap with a grandchild
        # a forced static address of the parent inside the child is held for the child too
        svc.reserve('site', 'router', address='10.80.0.5', force=True)
        got = [svc.reserve('kid', 'h%d' % i)['reservation']['address'] for i in range(4)]
        assert got == ['10.80.0.4', '10.80.0.6', '10.80.0.7', '10.80.0.8']   # .0/30 is the grandchild's
        # released, it goes back to the pool that allocates it: the child
        svc.release(owner='router')
        kid = svc.info(pool='kid')['pools'][0]
        assert (kid['size'], kid['used'], kid['free']) == (11, 4, 7)
        assert svc.reserve('kid', 'h9')['reservation']['address'] == '10.80.0.5'

    def test_an_address_forced_by_the_parent_during_the_childs_reuse_delay_stays_held(self, svc, clock):
        svc.pool('site', subnets=[{'cidr': '10.81.0.0/24'}])
        svc.pool('kid', parent='site', prefix_length=29, reuse_delay=600)
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.81.0.1'
        svc.release(pool='kid', owner='h1')                     # 10.81.0.1 waits out the child's delay
        svc.reserve('site', 'router', address='10.81.0.1', force=True)
        clock.advance(601)                                      # the delay is over: still held by the parent
        got = [svc.reserve('kid', 'h%d' % i)['reservation']['address'] for i in range(2, 7)]
        assert got == ['10.81.0.2', '10.81.0.3', '10.81.0.4', '10.81.0.5', '10.81.0.6']
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'h9')
        kid = svc.info(pool='kid')['pools'][0]
        assert (kid['used'], kid['free']) == (5, 0)
        svc.release(owner='router')                             # back to the child, which allocates it
        assert svc.reserve('kid', 'h9')['reservation']['address'] == '10.81.0.1'

    def test_children_skip_addresses_resting_under_the_parents_reuse_delay(self, svc):
        svc.pool('site', reuse_delay=600, subnets=[{'cidr': '10.90.0.0/28'}])
        svc.reserve('site', 'gone', address='10.90.0.2')
        svc.release(owner='gone')
        assert svc.pool('kid', parent='site', prefix_length=30)['pool']['subnets'][0]['cidr'] == '10.90.0.4/30'

    def test_deleting_a_parent_with_children(self, svc):
        svc.pool('site', subnets=[{'cidr': '10.30.0.0/16'}])
        svc.pool('kid', parent='site', prefix_length=24)
        svc.reserve('kid', 'h1')
        error = self.fails(svc, 'pool_in_use', svc.pool, 'site', state='absent')
        assert error.details['pools'] == ['kid']
        self.fails(svc, 'pool_not_found', svc.pool, 'orphan', parent='nope', prefix_length=24)
        svc.reserve('site', 'h2')
        released = svc.pool('site', state='absent', force=True)['released']
        assert sorted((r['pool'], r['owner']) for r in released) == [('kid', 'h1'), ('site', 'h2')]
        assert svc.info()['pools'] == [] and svc.info()['reservations'] == []


class FamilyTests(Base):
    """Resting addresses and leases of one pool of a parent/child family count in all of them (issue 12)."""

    def test_a_reuse_delay_holds_across_the_family_after_a_range_edit(self, svc, clock):
        svc.pool('site', reuse_delay=3600, subnets=[{'cidr': '10.82.0.0/24'}])
        svc.pool('kid', parent='site', prefix_length=29)
        svc.reserve('site', 'router', address='10.82.0.1', force=True)
        svc.release(owner='router')                             # rests for an hour, in the parent's books
        svc.range('kid', '10.82.0.6', kind='excluded')          # an edit of the child rebuilds its free space
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.82.0.2'
        assert svc.info(pool='kid', map=True)['pools'][0]['subnets'][0]['map'][0]['map'] == '-X...-'
        clock.advance(3601)                                     # over: the child hands it out
        kid = svc.info(pool='kid', map=True)['pools'][0]        # and says so before any allocation
        assert (kid['free'], kid['subnets'][0]['map'][0]['map']) == (4, '.X...-')
        site = svc.info(pool='site')['pools'][0]
        assert site['free'] == site['size'], site
        assert svc.reserve('kid', 'h2')['reservation']['address'] == '10.82.0.1'

    def test_an_expired_lease_of_the_parent_is_released_for_the_child(self, svc, clock):
        svc.pool('site', subnets=[{'cidr': '10.83.0.0/28'}])
        svc.pool('kid', parent='site', prefix_length=30)        # 10.83.0.0/30: .1 and .2
        svc.reserve('site', 'probe', address='10.83.0.1', force=True, ttl=60)
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.83.0.2'
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'h2')
        clock.advance(61)
        assert svc.reserve('kid', 'h2')['reservation']['address'] == '10.83.0.1'
        assert [e['action'] for e in svc.info(history=True)['history'] if e['owner'] == 'probe'][-1] == 'expire'

    def test_info_never_reports_an_expired_lease_as_held(self, svc, web, clock):
        svc.reserve('web', 'ci', ttl=60)
        svc.reserve('web', 'prod')
        clock.advance(61)
        info = svc.info(map=True)
        assert [r['owner'] for r in info['reservations']] == ['prod']
        assert svc.info(owner='ci')['reservations'] == [] and svc.info(address='10.0.0.10')['reservations'] == []
        pool = info['pools'][0]
        assert (pool['size'], pool['used'], pool['free'], pool['expired']) == (11, 1, 10, 1)
        assert pool['subnets'][0]['map'][0]['map'] == '.X.........'
        assert svc.reserve('web', 'next')['reservation']['address'] == '10.0.0.10'


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


class OwnersTests(Base):
    """``owners``: many reservations in one transaction, in list order (SPEC §4.1)."""

    def test_new_owners_get_the_first_free_addresses_in_list_order(self, svc, web):
        svc.reserve('web', 'web3')
        owners = ['web1', 'web2', 'web3', 'web4']
        result = svc.reserve_owners('web', owners)
        assert result['changed'] is True
        assert [(r['owner'], r['address']) for r in result['reservations']] == [
            ('web1', '10.0.0.11'), ('web2', '10.0.0.12'), ('web3', '10.0.0.10'), ('web4', '10.0.0.13')]
        assert [r['owner'] for r in result['diff']['after']['reservations']] == owners
        assert result['diff']['before']['reservations'][2]['address'] == '10.0.0.10'
        assert result['diff']['before']['reservations'][0] == {}
        again = svc.reserve_owners('web', owners)
        assert again['changed'] is False
        assert again['reservations'] == result['reservations']
        # a host added later gets the next free address; nobody moves
        later = svc.reserve_owners('web', ['web0'] + owners + ['web5'])
        assert [r['address'] for r in later['reservations']] == [
            '10.0.0.14', '10.0.0.11', '10.0.0.12', '10.0.0.10', '10.0.0.13', '10.0.0.15']
        assert [e['owner'] for e in svc.info(history=True)['history'] if e['action'] == 'reserve'] == [
            'web3', 'web1', 'web2', 'web4', 'web0', 'web5']

    def test_check_mode_predicts_distinct_addresses_and_writes_nothing(self, svc, web):
        result = self.unchanged(svc, svc.reserve_owners, 'web', ['a', 'b', 'c'])
        assert [(r['address'], r['predicted']) for r in result['reservations']] == [
            ('10.0.0.10', True), ('10.0.0.11', True), ('10.0.0.12', True)]
        assert svc.reserve_owners('web', ['a', 'b', 'c'])['reservations'][2]['address'] == '10.0.0.12'

    def test_one_failure_reserves_nothing(self, svc):
        svc.pool('tiny', subnets=[{'cidr': '10.9.0.0/30'}])     # two usable addresses
        svc.reserve('tiny', 'first')
        self.fails(svc, 'pool_exhausted', svc.reserve_owners, 'tiny', ['a', 'b'])
        self.fails(svc, 'address_in_use', svc.reserve_owners, 'tiny',
                   ['a', {'owner': 'b', 'address': '10.9.0.1'}])

    def test_per_owner_address_and_metadata(self, svc, web):
        result = svc.reserve_owners('web', [{'owner': 'lb1', 'address': '10.0.0.200'},
                                            {'owner': 'web1', 'metadata': {'mac': '52:54:00:00:00:01'}}, 'web2'],
                                    metadata={'role': 'web'})
        assert [(r['owner'], r['address'], r['static'], r['metadata']) for r in result['reservations']] == [
            ('lb1', '10.0.0.200', True, {'role': 'web'}), ('web1', '10.0.0.10', False, {'mac': '52:54:00:00:00:01'}),
            ('web2', '10.0.0.11', False, {'role': 'web'})]
        changed = svc.reserve_owners('web', [{'owner': 'web1', 'metadata': {'mac': '52:54:00:00:00:02'}}, 'web2'])
        assert changed['changed'] is True
        assert [r['metadata'] for r in changed['reservations']] == [{'mac': '52:54:00:00:00:02'}, {'role': 'web'}]

    @pytest.mark.parametrize('owners, kwargs, says', [
        (['a', 'b', 'a'], {}, 'twice'),
        (['a', 'b'], {'address': '10.0.0.15'}, 'each its own'),
        (['a', ''], {}, 'owners[1]'),
        (['a', ['b']], {}, 'owners[1]'),
        ([{'owner': 'a', 'mac': 'x'}], {}, "'mac'"),
        ([{'address': '10.0.0.15'}], {}, 'owners[0]'),
        ('a', {}, 'must be a list'),
        ([{'owner': 'a', 'address': 'nope'}], {}, 'nope'),
        (['a'], {'reassign': True}, 'reassign needs address'),
    ])
    def test_bad_owners(self, svc, web, owners, kwargs, says):
        error = self.fails(svc, 'invalid_argument', svc.reserve_owners, 'web', owners, **kwargs)
        assert says in error.msg

    def test_release_owners_in_one_task(self, svc, web):
        svc.reserve_owners('web', ['a', 'b', 'c'])
        result = svc.release(pool='web', owners=['c', 'a', 'gone'])
        assert [r['owner'] for r in result['released']] == ['c', 'a']
        assert [r['owner'] for r in svc.info(pool='web')['reservations']] == ['b']
        assert svc.release(pool='web', owners=['c', 'a'])['changed'] is False
        self.fails(svc, 'invalid_argument', svc.release, pool='web', owner='b', owners=['b'])
        self.fails(svc, 'invalid_argument', svc.release, pool='web', owners=['b'], keep_owners=['b'])

    # -- a batch is planned whole, then applied (SPEC §3.1 Batches; issue 23 items 3 and 4)
    @pytest.mark.parametrize('reassign', [False, True])
    def test_two_owners_asking_for_one_address_is_refused(self, svc, web, reassign):
        error = self.fails(svc, 'invalid_argument', svc.reserve_owners, 'web',
                           [{'owner': 'lb1', 'address': '10.0.0.200'}, {'owner': 'lb2', 'address': '10.0.0.200'}],
                           reassign=reassign)
        assert "'lb1'" in error.msg and "'lb2'" in error.msg and '10.0.0.200' in error.msg

    def test_statics_are_placed_before_dynamics_wherever_they_stand(self, svc, web):
        result = svc.reserve_owners('web', ['a', {'owner': 'b', 'address': '10.0.0.10'}, 'c'])
        assert [(r['owner'], r['address'], r['static']) for r in result['reservations']] == [
            ('a', '10.0.0.11', False), ('b', '10.0.0.10', True), ('c', '10.0.0.12', False)]
        assert svc.reserve_owners('web', ['a', {'owner': 'b', 'address': '10.0.0.10'}, 'c'])['changed'] is False

    def test_a_static_may_take_the_address_another_owner_of_the_batch_leaves(self, svc, web):
        svc.reserve_owners('web', ['a', 'b'])       # .10, .11
        result = svc.reserve_owners('web', [{'owner': 'c', 'address': '10.0.0.10'}, {'owner': 'a', 'address':
                                                                                      '10.0.0.30'}])
        assert [(r['owner'], r['address']) for r in result['reservations']] == [('c', '10.0.0.10'), ('a', '10.0.0.30')]

    @staticmethod
    def _held(result):
        return result['changed'], [(r['owner'], r['address'], r['static'], r['metadata'])
                                   for r in result['reservations']]

    @pytest.mark.parametrize('batch, reassign', [
        (['n1', {'owner': 'd', 'address': '10.0.0.11'}, {'owner': 'b', 'address': '10.0.0.12'}, 'n2',
          {'owner': 'a', 'metadata': {'role': 'x'}}], False),
        ([{'owner': 'x', 'address': '10.0.0.10'}, {'owner': 'c', 'address': '10.0.0.16'},
          {'owner': 'y', 'address': '10.0.0.15'}], True),
        (['n1', 'a', {'owner': 'c', 'address': '10.0.0.10'}, 'n2', 'b'], False),
    ])
    def test_check_mode_predicts_exactly_what_the_run_does(self, svc, web, batch, reassign):
        svc.reserve_owners('web', ['a', 'b', {'owner': 'c', 'address': '10.0.0.15'}])    # .10, .11, .15
        if batch[2] == {'owner': 'c', 'address': '10.0.0.10'}:     # a keeps .10: both runs say so
            self.fails(svc, 'address_in_use', svc.reserve_owners, 'web', batch, check=True)
            self.fails(svc, 'address_in_use', svc.reserve_owners, 'web', batch)
            return
        predicted = self.unchanged(svc, svc.reserve_owners, 'web', batch, reassign=reassign)
        done = svc.reserve_owners('web', batch, reassign=reassign)
        assert self._held(predicted) == self._held(done)
        held = dict((r['owner'], r['address']) for r in svc.info(pool='web')['reservations'])
        assert all(held[r['owner']] == r['address'] for r in done['reservations'])
        assert len(set(held.values())) == len(held)

    def test_a_static_move_and_a_failing_dynamic_change_nothing(self, svc):
        svc.pool('tiny', subnets=[{'cidr': '10.9.1.0/29'}])     # .1-.6
        svc.reserve_owners('tiny', ['a', 'b', 'c', 'd', 'e'])
        self.fails(svc, 'pool_exhausted', svc.reserve_owners, 'tiny',
                   [{'owner': 'a', 'address': '10.9.1.6'}, 'f', 'g'])
        self.fails(svc, 'pool_exhausted', svc.reserve_owners, 'tiny',
                   ['f', {'owner': 'b', 'address': '10.9.1.6', 'metadata': {'m': 1}}, 'g'])
        assert [(r['owner'], r['address']) for r in svc.info(pool='tiny')['reservations']] == [
            ('a', '10.9.1.1'), ('b', '10.9.1.2'), ('c', '10.9.1.3'), ('d', '10.9.1.4'), ('e', '10.9.1.5')]

    def test_an_empty_list_changes_nothing(self, svc, web):
        assert svc.reserve_owners('web', []) == {'changed': False, 'reservations': [],
                                                 'diff': {'before': {'reservations': []},
                                                          'after': {'reservations': []}}}


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


def _reserve_many(spec, worker, count, queue):
    from ansible_collections.netpool.ipam.plugins.module_utils._service import Service as S
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store as o
    store = o(spec, timeout=120)
    svc = S(store)
    got, errors = [], []
    for i in range(count):
        try:
            got.append(svc.reserve('big', 'w%d-%d' % (worker, i))['reservation']['address'])
        except IpamError as e:
            errors.append(e.code)
    store.close()
    queue.put((got, errors))


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
                   {'namespace': 'default', 'expires_before': svc._stamp()}, {'owner': 'nobody'}]
        with store.transaction(write=False):
            for where in filters:
                assert store.count_reservations(**where) == len(store.find_reservations(**where)), where
            assert [store.count_reservations(**where) for where in filters] == [10, 9, 8, 1, 3, 3, 5, 3, 3, 3, 2, 0]
        dual = svc.info(pool='dual', namespace='default')['pools'][0]
        # the two expired leases are not held (SPEC 3.5): not used, and free again (the pool has no reuse delay)
        assert [(s['used'], s['free']) for s in dual['subnets']] == [(3, 251), (3, 2 ** 64 - 4)]
        assert (dual['used'], dual['leased'], dual['expired']) == (6, 3, 2)


def _family_worker(spec, worker, count, queue):
    """Odd workers reserve in the child; even ones move a forced address of the parent around the child
    (each move takes an address out of the child's free space and gives the old one back to it)."""
    from ansible_collections.netpool.ipam.plugins.module_utils._service import Service as S
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store as o
    store = o(spec, timeout=120)
    svc = S(store)
    errors = []
    for i in range(count):
        try:
            if worker % 2:
                svc.reserve('kid', 'w%d-%d' % (worker, i))
            else:
                svc.reserve('site', 'forced-%d' % worker, address='10.61.0.%d' % (1 + (7 * worker + 5 * i) % 62),
                            force=True)
        except IpamError as e:
            errors.append(e.code)
    store.close()
    queue.put(errors)


class ConcurrencyTests(Base):

    def test_a_parent_and_its_child_written_at_once_stay_consistent(self, svc, spec):
        """A parent's forced addresses come out of (and go back to) its child's free space while others
        reserve in the child: the family shares one lock, so no free address is ever held."""
        svc.pool('site', subnets=[{'cidr': '10.61.0.0/24'}])
        svc.pool('kid', parent='site', prefix_length=26)
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue()
        workers = [ctx.Process(target=_family_worker, args=(spec, w, 20, queue)) for w in range(4)]
        for w in workers:
            w.start()
        errors = [e for _worker in workers for e in queue.get(timeout=600)]
        for w in workers:
            w.join()
        assert set(errors) <= {'address_in_use', 'pool_exhausted'}, errors
        store = svc.store
        with store.transaction(write=False):
            free = [n for _v, a, b in store.free_space().spans(store.get_pool('default', 'kid'))
                    for n in range(a, b + 1)]
            held = [n for n in range(int(IPAddress('10.61.0.1')), int(IPAddress('10.61.0.62')) + 1)
                    if store.holder('default', 4, n) is not None]
        assert set(free).isdisjoint(held)
        assert len(free) + len(held) == 62

    def test_processes_reserving_at_once_get_distinct_addresses(self, svc, spec):
        processes, each = self.parallel
        svc.pool('big', subnets=[{'cidr': '10.60.0.0/22'}])
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue()
        workers = [ctx.Process(target=_reserve_many, args=(spec, w, each, queue)) for w in range(processes)]
        for w in workers:
            w.start()
        results = [queue.get(timeout=600) for _worker in workers]
        for w in workers:
            w.join()
        addresses = [a for got, _errors in results for a in got]
        assert [e for _got, errors in results for e in errors] == []
        assert len(addresses) == processes * each
        assert len(set(addresses)) == processes * each
        held = svc.info(pool='big')['reservations']
        assert sorted(r['address'] for r in held) == sorted(addresses)


class VerifyTests(Base):

    def test_a_varied_workload_leaves_nothing_for_verify_to_find(self, svc, clock):
        """Dual stack, child pools, reuse delays, leases, static and forced addresses, moves, reassignment,
        sweeps, range edits and resizes in two namespaces: ``verify`` finds nothing, ``repair`` does nothing."""
        svc.pool('lan', subnets=[{'cidr': '10.0.0.0/22', 'gateway': '10.0.0.1'},
                                 {'cidr': '2001:db8::/120', 'ranges': ['2001:db8::10-2001:db8::40']}], reuse_delay=60)
        svc.pool('kid', parent='lan', prefix_length=26)
        svc.pool('grandkid', parent='kid', prefix_length=28)
        svc.pool('rnd', subnets=[{'cidr': '10.9.0.0/28'}], strategy=self.other_strategy)
        svc.pool('lan', namespace='lab', subnets=[{'cidr': '10.0.0.0/24'}])
        for i in range(6):
            svc.reserve('lan', 'h%d' % i, ttl=30 if i % 2 else None)
            svc.reserve('lan', 'h%d' % i, key='v6', family='ipv6')
            svc.reserve('kid', 'k%d' % i, ttl='1m' if i % 3 else None)
            svc.reserve('rnd', 'r%d' % i)
            svc.reserve('lan', 'h%d' % i, namespace='lab')
        svc.reserve('grandkid', 'g1')
        svc.reserve('lan', 'forced', address='10.0.0.5', force=True)       # inside the child carved first
        svc.reserve('lan', 'static', address='10.0.2.7')
        svc.reserve('lan', 'static', address='10.0.2.8')                   # a move
        svc.reserve('lan', 'h0', address='10.0.2.8', reassign=True)         # taken over from 'static'
        svc.release(pool='lan', owner='h2')
        svc.release(pool='lan', owner='forced')                             # rests in the parent, inside kid
        svc.release(pool='kid', owner='k1', key='default')
        svc.release(pool='rnd', keep_owners=['r0', 'r1'])
        svc.range('lan', '10.0.1.0/28', kind='excluded')
        svc.range('kid', '10.0.0.20-10.0.0.30', state='absent')
        svc.pool('rnd', subnets=[{'cidr': '10.9.0.0/27'}])                 # widened
        assert svc.verify() == {'changed': False, 'problems': [], 'repaired': []}
        clock.advance(45)                                                    # leases expire, delays still run
        svc.reserve('kid', 'late')
        svc.reserve('lan', 'late')
        assert svc.verify(namespace='default')['problems'] == []
        clock.advance(120)                                                   # delays over
        svc.reserve('lan', 'later')
        svc.reserve('kid', 'later')
        svc.pool('grandkid', state='absent', force=True)
        assert svc.verify() == {'changed': False, 'problems': [], 'repaired': []}
        assert svc.verify(repair=True) == {'changed': False, 'problems': [], 'repaired': []}
        assert svc.info(namespace='lab', verify=True)['problems'] == []


class InventoryTests(Base):
    """``Service.reservations``: the one read of a namespace the inventory plugin makes (SPEC §4.5)."""

    def test_every_reservation_of_the_namespace_in_one_read(self, svc, web, clock, monkeypatch):
        svc.pool('db', subnets=[{'cidr': '10.1.0.0/24'}])
        svc.pool('other', subnets=[{'cidr': '10.0.0.0/24'}], namespace='elsewhere')
        svc.reserve_owners('web', ['a', 'b'], metadata={'role': 'web'})
        svc.reserve('db', 'a', address='10.1.0.5')
        svc.reserve('db', 'a', key='eth1')
        svc.reserve('db', 'leased', ttl='1h')
        svc.reserve('other', 'x', namespace='elsewhere')
        clock.advance(7200)                     # the lease has expired: not listed
        asked = []
        find = svc.store.find_reservations
        monkeypatch.setattr(svc.store, 'find_reservations', lambda *a, **k: asked.append((a, k)) or find(*a, **k))
        got = svc.reservations('default')
        assert len(asked) == 1, 'one question for the reservations, whatever the number of owners'
        assert got['pools'] == ['db', 'web']
        assert [(r['pool'], r['owner'], r['key'], r['address']) for r in got['reservations']] == [
            ('db', 'a', 'default', '10.1.0.5'), ('db', 'a', 'eth1', '10.1.0.1'),
            ('web', 'a', 'default', '10.0.0.10'), ('web', 'b', 'default', '10.0.0.11')]
        web_a = got['reservations'][2]
        assert web_a == svc.get('web', 'a') and web_a['gateway'] == '10.0.0.1' and web_a['metadata'] == {'role': 'web'}
        # pools in the order given, keys kept
        got = svc.reservations('default', pools=['web', 'db'], keys=['default'])
        assert got['pools'] == ['web', 'db']
        assert [(r['pool'], r['owner']) for r in got['reservations']] == [('web', 'a'), ('web', 'b'), ('db', 'a')]
        assert [r['owner'] for r in svc.reservations('default', pools=['db'])['reservations']] == ['a', 'a']
        assert svc.reservations('elsewhere')['pools'] == ['other']
        assert svc.reservations('nothing-here') == {'pools': [], 'reservations': []}

    def test_a_pool_that_does_not_exist(self, svc, web):
        error = self.fails(svc, 'pool_not_found', svc.reservations, 'default', pools=['web', 'nope'])
        assert "'nope'" in error.msg and 'web' in error.msg


class StoreContract(PoolTests, RangeTests, ReserveTests, ReleaseTests, CheckModeTests, HistoryTests, LeaseTests,
                    ReuseDelayTests, SweepTests, ChildPoolTests, FamilyTests, ReassignTests, OwnersTests, MapTests,
                    CountTests, ConcurrencyTests, VerifyTests, InventoryTests):
    """Every rule of the SPEC that a store must uphold. Inherit it; provide the ``spec`` fixture."""


def file_mode(path):
    return os.stat(path).st_mode & 0o777
