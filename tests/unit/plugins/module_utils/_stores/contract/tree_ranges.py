# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Child pools by ranges (docs/design.md#trees): a child holding exactly some ranges of its parent's subnets (VIPs
beside nodes in one /24), a child in every other respect."""

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base, needs


def addresses(svc, pool, owners):
    return [svc.reserve(pool, owner)['reservation']['address'] for owner in owners]


class RangesChildTests(Base):
    """Each test needs 'ranges' (a mark on the class would reach every test of a store's class)."""

    @staticmethod
    def lan(svc, cidr='10.0.0.0/24', **subnet):
        subnet = dict({'cidr': cidr}, **subnet)
        return svc.pool('lan', subnets=[subnet])

    @needs('ranges')
    def test_vips_beside_nodes_in_one_24(self, svc):
        self.lan(svc, gateway='10.0.0.1', dns=['10.0.0.53'], ranges=['10.0.0.10-10.0.0.200'])
        result = svc.pool('vips', parent='lan', ranges=['10.0.0.240-10.0.0.250'])
        assert result['changed'] is True
        vips = result['pool']
        assert (vips['parent'], vips['by_ranges'], vips['size'], vips['free']) == ('lan', True, 11, 11)
        subnet = vips['subnets'][0]
        assert [s['cidr'] for s in vips['subnets']] == ['10.0.0.0/24']
        # the parent's gateway and dns, derived; the child's own ranges, and no exclusion copied
        assert (subnet['gateway'], subnet['dns'], subnet['ranges'], subnet['exclude']) == (
            '10.0.0.1', ['10.0.0.53'], ['10.0.0.240-10.0.0.250'], [])
        again = svc.pool('vips', parent='lan', ranges='10.0.0.240-10.0.0.250')
        assert again['changed'] is False and again['pool']['subnets'][0]['ranges'] == ['10.0.0.240-10.0.0.250']
        vip = svc.reserve('vips', 'api')['reservation']
        assert (vip['address'], vip['cidr'], vip['gateway'], vip['dns'], vip['network']) == (
            '10.0.0.240', '10.0.0.240/24', '10.0.0.1', ['10.0.0.53'], '10.0.0.0/24')
        assert addresses(svc, 'lan', ['n1', 'n2']) == ['10.0.0.10', '10.0.0.11']
        lan = svc.info(pool='lan')['pools'][0]
        assert (lan['children'], lan['by_ranges'], lan['size'], lan['used']) == (['vips'], False, 191, 2)
        assert svc.get('vips', 'api')['address'] == '10.0.0.240'
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_the_parent_never_hands_out_inside_it(self, svc):
        self.lan(svc, cidr='10.40.0.0/28')                                     # .1-.14
        svc.pool('kid', parent='lan', ranges=['10.40.0.5-10.40.0.8'])
        got = addresses(svc, 'lan', ['h%d' % i for i in range(10)])
        assert got == ['10.40.0.%d' % n for n in (1, 2, 3, 4, 9, 10, 11, 12, 13, 14)]
        self.fails(svc, 'pool_exhausted', svc.reserve, 'lan', 'h10')
        self.fails(svc, 'address_excluded', svc.reserve, 'lan', 'h10', address='10.40.0.6')
        assert addresses(svc, 'kid', ['k%d' % i for i in range(4)]) == ['10.40.0.%d' % n for n in range(5, 9)]
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'k4')
        # the child holds exactly its ranges: an address of the /28 outside them is not in it
        error = self.fails(svc, 'address_out_of_pool', svc.reserve, 'kid', 'k4', address='10.40.0.3')
        assert '10.40.0.5-10.40.0.8' in error.msg
        assert svc.verify()['problems'] == []
        svc.release(pool='kid', owner='k0')
        svc.pool('kid', state='absent', force=True)
        assert addresses(svc, 'lan', ['h10']) == ['10.40.0.5']
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_ranges_on_two_subnets_of_either_family(self, svc):
        svc.pool('lan', subnets=[{'cidr': '10.41.0.0/24', 'gateway': '10.41.0.1'},
                                 {'cidr': '2001:db8:41::/120', 'gateway': '2001:db8:41::1'}])
        vips = svc.pool('vips', parent='lan', ranges=['2001:db8:41::f0-2001:db8:41::ff', '10.41.0.240-10.41.0.250',
                                                      '10.41.0.251'])['pool']
        assert [(s['cidr'], s['gateway'], s['ranges']) for s in vips['subnets']] == [
            ('10.41.0.0/24', '10.41.0.1', ['10.41.0.240-10.41.0.251']),
            ('2001:db8:41::/120', '2001:db8:41::1', ['2001:db8:41::f0-2001:db8:41::ff'])]
        assert vips['size'] == 12 + 16
        six = svc.reserve('vips', 'api', family='ipv6')['reservation']
        assert (six['address'], six['gateway'], six['prefix_length']) == ('2001:db8:41::f0', '2001:db8:41::1', 120)
        assert svc.reserve('vips', 'api', key='v4', family='ipv4')['reservation']['address'] == '10.41.0.240'
        lan = svc.info(pool='lan')['pools'][0]
        assert [s['size'] for s in lan['subnets']] == [253 - 12, 255 - 1 - 16]
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_what_the_parent_withholds_later_holds_in_it(self, svc):
        self.lan(svc, cidr='10.42.0.0/24')
        vips = svc.pool('vips', parent='lan', ranges=['10.42.0.1-10.42.0.6'])['pool']
        assert (vips['size'], vips['subnets'][0]['gateway']) == (6, None)
        svc.pool('lan', subnets=[{'cidr': '10.42.0.0/24', 'gateway': '10.42.0.1', 'dns': ['10.42.0.53']}])
        svc.range('lan', '10.42.0.2-10.42.0.3', kind='excluded')
        vips = svc.info(pool='vips')['pools'][0]
        assert (vips['size'], vips['free'], vips['subnets'][0]['gateway'], vips['subnets'][0]['dns']) == (
            3, 3, '10.42.0.1', ['10.42.0.53'])
        assert vips['subnets'][0]['exclude'] == []                             # derived, never copied
        vip = svc.reserve('vips', 'api')['reservation']
        assert (vip['address'], vip['gateway'], vip['dns']) == ('10.42.0.4', '10.42.0.1', ['10.42.0.53'])
        for address in ('10.42.0.1', '10.42.0.2'):
            self.fails(svc, 'address_excluded', svc.reserve, 'vips', 'other', address=address)
        assert svc.verify()['problems'] == []
        svc.range('lan', '10.42.0.2-10.42.0.3', kind='excluded', state='absent')
        assert addresses(svc, 'vips', ['b']) == ['10.42.0.2']
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_a_reuse_delay_counts_across_the_family(self, svc, clock):
        self.lan(svc, cidr='10.43.0.0/28')
        svc.pool('lan', reuse_delay=600)
        svc.reserve('lan', 'old', address='10.43.0.10')
        svc.release(owner='old')                                               # rests in the parent
        svc.pool('kid', parent='lan', ranges=['10.43.0.9-10.43.0.11'], reuse_delay=600)
        assert addresses(svc, 'kid', ['a', 'b']) == ['10.43.0.9', '10.43.0.11']
        self.fails(svc, 'pool_exhausted', svc.reserve, 'kid', 'c')
        svc.release(owner='a')                                                 # rests in the child
        clock.advance(601)
        assert addresses(svc, 'kid', ['c', 'd']) == ['10.43.0.9', '10.43.0.10']
        svc.release(owner='c')
        assert addresses(svc, 'lan', ['n%d' % i for i in range(11)])[-1] == '10.43.0.14'
        self.fails(svc, 'pool_exhausted', svc.reserve, 'lan', 'n11')
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_deleting_it_leaves_its_resting_addresses_resting_in_its_parent(self, svc, clock):
        self.lan(svc, cidr='10.44.0.0/28')
        svc.pool('kid', parent='lan', ranges=['10.44.0.1-10.44.0.3'], reuse_delay=600)
        assert addresses(svc, 'kid', ['a', 'b']) == ['10.44.0.1', '10.44.0.2']
        svc.release(owner='a')
        error = self.fails(svc, 'pool_in_use', svc.pool, 'kid', state='absent')
        assert error.details['addresses'] == ['10.44.0.2']
        released = svc.pool('kid', state='absent', force=True)['released']
        assert [(r['owner'], r['address']) for r in released] == [('b', '10.44.0.2')]
        assert svc.info(pool='lan')['pools'][0]['children'] == []
        assert addresses(svc, 'lan', ['n1', 'n2']) == ['10.44.0.3', '10.44.0.4']
        assert svc.verify()['problems'] == []
        clock.advance(601)
        assert addresses(svc, 'lan', ['n3', 'n4']) == ['10.44.0.1', '10.44.0.2']
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_refusals(self, svc):
        svc.pool('lan', subnets=[{'cidr': '10.45.0.0/24'}, {'cidr': '10.46.0.0/24'}])
        svc.pool('vips', parent='lan', ranges=['10.45.0.240-10.45.0.250'])
        svc.pool('carved', parent='lan', prefix_length=28)                    # 10.45.0.0/28
        svc.reserve('lan', 'node', address='10.45.0.100')
        error = self.fails(svc, 'address_out_of_pool', svc.pool, 'b', parent='lan', ranges=['10.47.0.1-10.47.0.9'])
        assert '10.45.0.0/24' in error.msg
        self.fails(svc, 'address_out_of_pool', svc.pool, 'b', parent='lan', ranges=['10.45.0.250-10.46.0.5'])
        error = self.fails(svc, 'pool_overlap', svc.pool, 'b', parent='lan', ranges=['10.45.0.230-10.45.0.240'])
        assert error.details['other_pool'] == 'vips'
        error = self.fails(svc, 'pool_overlap', svc.pool, 'b', parent='lan', ranges=['10.45.0.15-10.45.0.20'])
        assert error.details['other_pool'] == 'carved'
        error = self.fails(svc, 'address_in_use', svc.pool, 'b', parent='lan', ranges=['10.45.0.90-10.45.0.110'])
        assert error.details['holder'] == {'pool': 'lan', 'owner': 'node', 'key': 'default', 'address': '10.45.0.100'}
        assert 'node' in error.msg
        self.fails(svc, 'pool_not_found', svc.pool, 'b', parent='nope', ranges=['10.45.0.90'])
        self.fails(svc, 'invalid_argument', svc.pool, 'b', parent='lan', ranges=['10.45.0.90'], prefix_length=28)
        self.fails(svc, 'invalid_argument', svc.pool, 'b', ranges=['10.45.0.90'])
        self.fails(svc, 'invalid_argument', svc.pool, 'b', parent='lan', ranges=[])
        self.fails(svc, 'invalid_argument', svc.pool, 'b', parent='lan', ranges=['10.45.0.900'])
        self.fails(svc, 'invalid_argument', svc.pool, 'carved', parent='lan', ranges=['10.45.0.1-10.45.0.5'])
        self.fails(svc, 'invalid_argument', svc.pool, 'vips', parent='lan', prefix_length=28)
        self.fails(svc, 'invalid_argument', svc.pool, 'vips', subnets=[{'cidr': '10.45.0.0/24'}])
        self.fails(svc, 'invalid_argument', svc.pool, 'lan', parent='vips', ranges=['10.45.0.241'])
        svc.pool('other', subnets=[{'cidr': '10.48.0.0/24'}])
        self.fails(svc, 'invalid_argument', svc.pool, 'vips', parent='other', ranges=['10.48.0.1'])
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_other_ranges_resize_it_under_the_same_rules(self, svc):
        self.lan(svc, cidr='10.49.0.0/24')
        svc.pool('vips', parent='lan', ranges=['10.49.0.240-10.49.0.250'])
        svc.reserve('lan', 'node', address='10.49.0.230')
        assert svc.reserve('vips', 'api', address='10.49.0.245')['changed'] is True
        grown = svc.pool('vips', parent='lan', ranges=['10.49.0.235-10.49.0.239', '10.49.0.240-10.49.0.254'])
        assert grown['changed'] is True and grown['pool']['subnets'][0]['ranges'] == ['10.49.0.235-10.49.0.254']
        assert grown['diff']['before']['subnets'][0]['ranges'] == ['10.49.0.240-10.49.0.250']
        error = self.fails(svc, 'address_in_use', svc.pool, 'vips', parent='lan', ranges=['10.49.0.230-10.49.0.254'])
        assert error.details['holder']['owner'] == 'node'
        error = self.fails(svc, 'pool_in_use', svc.pool, 'vips', parent='lan', ranges=['10.49.0.250-10.49.0.254'])
        assert error.details['addresses'] == ['10.49.0.245'] and 'api' in error.msg
        shrunk = svc.pool('vips', parent='lan', ranges=['10.49.0.250-10.49.0.254'], force=True)
        assert [(r['owner'], r['address']) for r in shrunk['released']] == [('api', '10.49.0.245')]
        assert shrunk['pool']['size'] == 5
        assert addresses(svc, 'lan', ['n1'])[0] == '10.49.0.1'
        assert svc.reserve('lan', 'n2', address='10.49.0.245')['changed'] is True     # the parent's again
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_the_range_module_edits_what_it_holds(self, svc):
        self.lan(svc, cidr='10.50.0.0/24')
        svc.pool('vips', parent='lan', ranges=['10.50.0.240-10.50.0.250'])
        svc.pool('dns', parent='lan', ranges=['10.50.0.252-10.50.0.253'])
        svc.reserve('lan', 'node', address='10.50.0.230')
        result = svc.range('vips', '10.50.0.251')
        assert result['changed'] is True and result['pool']['subnets'][0]['ranges'] == ['10.50.0.240-10.50.0.251']
        self.fails(svc, 'address_excluded', svc.reserve, 'lan', 'h', address='10.50.0.251')
        self.fails(svc, 'pool_overlap', svc.range, 'vips', '10.50.0.252')
        self.fails(svc, 'address_in_use', svc.range, 'vips', '10.50.0.230')
        self.fails(svc, 'address_out_of_pool', svc.range, 'vips', '10.51.0.1')
        svc.reserve('vips', 'api', address='10.50.0.241')
        error = self.fails(svc, 'pool_in_use', svc.range, 'vips', '10.50.0.240-10.50.0.245', state='absent')
        assert error.details['addresses'] == ['10.50.0.241']
        assert svc.range('vips', '10.50.0.242-10.50.0.245', state='absent')['pool']['subnets'][0]['ranges'] == [
            '10.50.0.240-10.50.0.241', '10.50.0.246-10.50.0.251']
        assert svc.reserve('lan', 'h', address='10.50.0.243')['changed'] is True       # given back to the parent
        self.fails(svc, 'invalid_argument', svc.range, 'dns', '10.50.0.252-10.50.0.253', state='absent')
        assert svc.range('vips', '10.50.0.240', kind='excluded')['pool']['subnets'][0]['exclude'] == [
            '10.50.0.240-10.50.0.240']
        assert addresses(svc, 'vips', ['a']) == ['10.50.0.246']
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_children_of_a_child_by_ranges_lie_inside_its_ranges(self, svc):
        self.lan(svc, cidr='10.52.0.0/24')
        svc.pool('kid', parent='lan', ranges=['10.52.0.100-10.52.0.199'])
        assert svc.pool('sub', parent='kid', prefix_length=28)['pool']['subnets'][0]['cidr'] == '10.52.0.112/28'
        inner = svc.pool('inner', parent='kid', ranges=['10.52.0.100-10.52.0.104'])['pool']
        assert (inner['size'], inner['subnets'][0]['ranges']) == (5, ['10.52.0.100-10.52.0.104'])
        self.fails(svc, 'address_out_of_pool', svc.pool, 'out', parent='kid', ranges=['10.52.0.90-10.52.0.100'])
        assert addresses(svc, 'kid', ['a']) == ['10.52.0.105']
        assert addresses(svc, 'sub', ['b']) == ['10.52.0.113']
        assert addresses(svc, 'inner', ['c']) == ['10.52.0.100']
        self.fails(svc, 'pool_in_use', svc.pool, 'kid', parent='lan', ranges=['10.52.0.100-10.52.0.111'])
        assert svc.verify()['problems'] == []

    @needs('ranges')
    def test_check_mode_predicts_it(self, svc):
        self.lan(svc, cidr='10.53.0.0/24', gateway='10.53.0.1')
        predicted = self.unchanged(svc, svc.pool, 'vips', parent='lan', ranges=['10.53.0.240-10.53.0.250'])
        assert svc.info()['pools'][0]['children'] == []
        made = svc.pool('vips', parent='lan', ranges=['10.53.0.240-10.53.0.250'])
        assert predicted['changed'] is True and predicted['pool'] == made['pool']
        assert predicted['diff'] == made['diff'] and made['diff']['before'] == {}
        resized = self.unchanged(svc, svc.pool, 'vips', parent='lan', ranges=['10.53.0.240-10.53.0.245'])
        assert resized['changed'] is True and resized['pool']['size'] == 6
        assert resized['diff']['after']['subnets'][0]['ranges'] == ['10.53.0.240-10.53.0.245']
        edited = self.unchanged(svc, svc.range, 'vips', '10.53.0.251')
        assert edited['pool']['subnets'][0]['ranges'] == ['10.53.0.240-10.53.0.251']
        gone = self.unchanged(svc, svc.pool, 'vips', state='absent')
        assert gone['changed'] is True and gone['diff']['before']['by_ranges'] is True
        assert svc.info(pool='vips')['pools'][0]['size'] == 11

    @needs('ranges')
    def test_verify_finds_a_broken_child_by_ranges_and_repair_leaves_it_to_a_human(self, svc, store):
        svc.pool('lan', subnets=[{'cidr': '10.54.0.0/24'}, {'cidr': '10.55.0.0/24'}])
        svc.pool('a', parent='lan', ranges=['10.55.0.240-10.55.0.250'])
        svc.reserve('a', 'h1')
        assert svc.verify()['problems'] == []
        with store.transaction():               # damaged by hand: the parent lost the subnet a's ranges are on
            lan = store.get_pool('default', 'lan').copy()
            lan.subnets = lan.subnets[:1]
            store.save_pool(lan)
        problems = [p for p in svc.verify()['problems'] if p['code'] == 'child_outside_parent']
        assert len(problems) == 1 and problems[0]['pools'] == ['a', 'lan']
        assert problems[0]['addresses'] == ['10.55.0.240-10.55.0.250']
        assert 'range 10.55.0.240-10.55.0.250' in problems[0]['message']
        repaired = svc.verify(repair=True)
        assert [p['code'] for p in repaired['problems'] if not p['repaired']] == ['child_outside_parent']
        svc.pool('lan', subnets=[{'cidr': '10.54.0.0/24'}, {'cidr': '10.55.0.0/24'}])     # a pool task mends it
        assert svc.verify()['problems'] == []
        assert svc.reserve('a', 'h2')['reservation']['address'] == '10.55.0.241'

    @needs('ranges')
    def test_it_follows_a_resize_of_its_parents_subnet(self, svc):
        self.lan(svc, cidr='10.56.0.0/25', gateway='10.56.0.1')
        svc.pool('vips', parent='lan', ranges=['10.56.0.100-10.56.0.110'])
        svc.range('vips', '10.56.0.105', kind='excluded')
        svc.reserve('vips', 'api')
        svc.pool('lan', subnets=[{'cidr': '10.56.0.0/24'}])                  # widened
        vips = svc.info(pool='vips')['pools'][0]
        assert [(s['cidr'], s['gateway'], s['ranges'], s['exclude']) for s in vips['subnets']] == [
            ('10.56.0.0/24', '10.56.0.1', ['10.56.0.100-10.56.0.110'], ['10.56.0.105-10.56.0.105'])]
        assert svc.get('vips', 'api')['cidr'] == '10.56.0.100/24'
        history = [e for e in svc.info(pool='vips', history=True)['history'] if e['object'] == 'pool']
        assert history[-1]['action'] == 'update' and history[-1]['new']['subnets'][0]['cidr'] == '10.56.0.0/24'
        assert svc.verify()['problems'] == []
        error = self.fails(svc, 'invalid_argument', svc.pool, 'lan', subnets=[
            {'cidr': '10.56.0.96/29', 'gateway': '10.56.0.97'}, {'cidr': '10.56.0.104/29', 'gateway': '10.56.0.105'}])
        assert "child pool 'vips'" in error.msg and '10.56.0.100-10.56.0.110' in error.msg
        self.fails(svc, 'pool_in_use', svc.pool, 'lan', subnets=[{'cidr': '10.56.0.0/26'}])
        svc.pool('lan', subnets=[{'cidr': '10.56.0.64/26', 'gateway': '10.56.0.65'}])   # narrowed around it
        api = svc.get('vips', 'api')
        assert (api['cidr'], api['gateway']) == ('10.56.0.100/26', '10.56.0.65')
        assert addresses(svc, 'vips', ['b']) == ['10.56.0.101']
        assert svc.verify()['problems'] == []
