# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The pool tree (parent and children): carving, what a parent withholds, resting addresses across it."""

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base, needs


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
        """a gateway or exclusion the parent gets after carving holds in its children and
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
        """a /31 child has no network address of its own, but its parent's is not free."""
        svc.pool('site', subnets=[{'cidr': '10.73.0.0/24'}])
        assert svc.pool('kid', parent='site', prefix_length=31)['pool']['subnets'][0]['cidr'] == '10.73.0.0/31'
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.73.0.1'
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'h2')
        self.fails(svc, 'address_excluded', svc.reserve, 'kid', 'h2', address='10.73.0.0')
        assert svc.reserve('kid', 'h2', address='10.73.0.0', force=True)['changed'] is True
        svc.release(owner='h2')
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'h3')         # given back, still withheld
        assert svc.verify()['problems'] == []

    def test_a_child_as_wide_as_its_parents_subnet(self, svc):
        """docs/design.md#trees: a child may take the whole of its parent's subnet, carved so or left so when the parent is
        narrowed onto it; both pools stay, the parent hands out nothing there, and deleting the child gives the
        subnet back to the parent (on NetBox both pools are on one prefix)."""
        svc.pool('site', subnets=[{'cidr': '10.77.0.0/29', 'gateway': '10.77.0.1'}])
        assert svc.pool('kid', parent='site', prefix_length=29)['pool']['subnets'][0]['cidr'] == '10.77.0.0/29'
        assert [p['name'] for p in svc.info()['pools']] == ['kid', 'site']
        assert svc.info(pool='site')['pools'][0]['children'] == ['kid']
        assert svc.reserve('kid', 'h1')['reservation']['address'] == '10.77.0.2'
        self.fails(svc, 'pool_exhausted', svc.reserve, 'site', 'h2')
        assert svc.verify()['problems'] == []
        svc.release(owner='h1')
        svc.pool('kid', state='absent')
        assert [p['name'] for p in svc.info()['pools']] == ['site']
        assert svc.reserve('site', 'h2')['reservation']['address'] == '10.77.0.2'
        svc.pool('top', subnets=[{'cidr': '10.78.0.0/28'}, {'cidr': '10.78.1.0/30'}])
        assert svc.pool('low', parent='top', prefix_length=29)['pool']['subnets'][0]['cidr'] == '10.78.0.0/29'
        narrowed = svc.pool('top', subnets=[{'cidr': '10.78.0.0/29'}, {'cidr': '10.78.1.0/30'}])
        assert narrowed['changed']
        assert [s['cidr'] for s in narrowed['pool']['subnets']] == ['10.78.0.0/29', '10.78.1.0/30']
        assert [p['name'] for p in svc.info()['pools']] == ['low', 'site', 'top']
        assert svc.reserve('low', 'h3')['reservation']['address'] == '10.78.0.1'
        assert svc.reserve('top', 'h4')['reservation']['address'] == '10.78.1.1'
        assert svc.verify()['problems'] == []
        svc.pool('top', state='absent', force=True)
        assert [p['name'] for p in svc.info()['pools']] == ['site']

    def test_deleting_a_child_leaves_its_resting_addresses_resting_in_its_parent(self, svc, clock):
        """(docs/design.md#trees) the parent hands them out only once their reuse delay is over; so do
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


class TreeTests(Base):
    """Resting addresses and leases of one pool of a pool tree (parent and children) count in all of them."""

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
