# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Aligned host parts (``align_with``, docs/design.md#aligned-host-parts): the same host part in every network, on every store."""

import pytest

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base

#: the management pool the others align with, and two pools that follow it (a /24 and a larger /23)
MGMT = [{'cidr': '10.1.0.0/24', 'gateway': '10.1.0.1', 'ranges': ['10.1.0.10-10.1.0.200']},
        {'cidr': '2001:db8:1::/64', 'ranges': ['2001:db8:1::10-2001:db8:1::200']}]
STORAGE = [{'cidr': '10.2.0.0/24', 'gateway': '10.2.0.1', 'ranges': ['10.2.0.10-10.2.0.100'],
            'exclude': ['10.2.0.50-10.2.0.50']},
           {'cidr': '2001:db8:2::/64', 'ranges': ['2001:db8:2::10-2001:db8:2::200']}]
BACKEND = [{'cidr': '10.4.0.0/23', 'ranges': ['10.4.0.10-10.4.1.200']}]


def held(svc, pool):
    """``(owner, key, address, static)`` of every reservation of the pool, sorted."""
    return sorted((r['owner'], r['key'], r['address'], r['static']) for r in svc.info(pool=pool)['reservations'])


class AlignTests(Base):
    """``align_with`` on every store."""

    @pytest.fixture
    def pools(self, svc):
        svc.pool('mgmt', subnets=MGMT)
        svc.pool('storage', subnets=STORAGE)
        svc.pool('backend', subnets=BACKEND)
        svc.reserve('mgmt', 'web1', address='10.1.0.23')
        svc.reserve('mgmt', 'web2', address='10.1.0.24')
        svc.reserve('mgmt', 'web3', address='10.1.0.60')
        return svc

    def test_align_takes_the_same_host_part_and_a_rerun_changes_nothing(self, svc, pools):
        result = svc.reserve('storage', 'web1', align_with='mgmt')
        assert result['changed'] is True
        r = result['reservation']
        assert (r['address'], r['cidr'], r['gateway'], r['static']) == ('10.2.0.23', '10.2.0.23/24', '10.2.0.1', True)
        assert result['diff'] == {'before': {}, 'after': r}
        assert svc.reserve('backend', 'web1', align_with='mgmt')['reservation']['address'] == '10.4.0.23'
        again = svc.reserve('storage', 'web1', align_with='mgmt')
        assert again == {'changed': False, 'reservation': r, 'diff': {'before': r, 'after': r}}
        # the history records the alignment with the write
        entry = [e for e in svc.info(history=True)['history'] if e['pool'] == 'storage'][-1]
        assert (entry['action'], entry['address'], entry['new']['align_with']) == ('reserve', '10.2.0.23', 'mgmt')
        assert svc.verify()['problems'] == []

    def test_align_moves_an_address_the_owner_holds_and_follows_a_move_in_the_pool_aligned_with(self, svc, pools):
        assert svc.reserve('storage', 'web1')['reservation']['address'] == '10.2.0.10'
        moved = svc.reserve('storage', 'web1', align_with='mgmt')
        assert moved['changed'] is True
        assert (moved['diff']['before']['address'], moved['reservation']['address']) == ('10.2.0.10', '10.2.0.23')
        assert [e['action'] for e in svc.info(pool='storage', history=True)['history']][-1] == 'move'
        # web1 moves in mgmt: verify reports the aligned reservation; a rerun realigns it
        svc.reserve('mgmt', 'web1', address='10.1.0.30')
        problems = svc.verify()['problems']
        assert [(p['code'], p['pools'], p['addresses'], p['repairable']) for p in problems] == [
            ('alignment_mismatch', ['storage', 'mgmt'], ['10.2.0.23'], False)]
        assert '10.2.0.30' in problems[0]['message'] and 'align_with: mgmt' in problems[0]['message']
        assert svc.reserve('storage', 'web1', align_with='mgmt')['reservation']['address'] == '10.2.0.30'
        assert svc.verify()['problems'] == []
        # released in mgmt: reported too; a later write without align_with forgets the alignment
        svc.release(pool='mgmt', owner='web1')
        assert [p['code'] for p in svc.verify()['problems']] == ['alignment_mismatch']
        svc.reserve('storage', 'web1', metadata={'rack': 'r1'})
        assert svc.verify()['problems'] == []

    def test_align_a_batch_aligns_every_owner_in_one_transaction(self, svc, pools):
        svc.reserve('storage', 'web2', address='10.2.0.30')
        result = svc.reserve_owners('storage', ['web1', {'owner': 'web2', 'metadata': {'rack': 'r2'}}, 'web3'],
                                    align_with='mgmt')
        assert result['changed'] is True
        assert [(r['owner'], r['address']) for r in result['reservations']] == [
            ('web1', '10.2.0.23'), ('web2', '10.2.0.24'), ('web3', '10.2.0.60')]
        assert result['reservations'][1]['metadata'] == {'rack': 'r2'}
        assert [r.get('address') for r in result['diff']['before']['reservations']] == [None, '10.2.0.30', None]
        assert svc.reserve_owners('storage', ['web1', 'web2', 'web3'], align_with='mgmt')['changed'] is False

    def test_align_an_owner_taking_the_host_part_another_of_the_batch_leaves_goes_after_it(self, svc, pools):
        svc.reserve_owners('storage', ['web1', 'web2'], align_with='mgmt')
        svc.reserve('mgmt', 'web2', address='10.1.0.99')
        svc.reserve('mgmt', 'web1', address='10.1.0.24')
        result = svc.reserve_owners('storage', ['web1', 'web2'], align_with='mgmt')
        assert [r['address'] for r in result['reservations']] == ['10.2.0.24', '10.2.0.99']
        assert svc.verify()['problems'] == []
        # two owners swapping host parts are a cycle, as two statics swapping are: address_in_use
        svc.reserve('mgmt', 'web1', address='10.1.0.98')
        svc.reserve('mgmt', 'web2', address='10.1.0.24')
        svc.reserve('mgmt', 'web1', address='10.1.0.99')
        self.fails(svc, 'address_in_use', svc.reserve_owners, 'storage', ['web1', 'web2'], align_with='mgmt')

    def test_align_dual_aligns_each_family_with_its_own(self, svc, pools):
        svc.reserve('mgmt', 'web1', family='dual')     # keeps 10.1.0.23, adds 2001:db8:1::10
        result = svc.reserve('storage', 'web1', family='dual', align_with='mgmt')
        assert (result['reservation']['address'], result['reservation6']['address']) == ('10.2.0.23', '2001:db8:2::10')
        assert svc.reserve('storage', 'web1', family='dual', align_with='mgmt')['changed'] is False
        batch = svc.reserve_owners('storage', ['web1'], family='dual', align_with='mgmt')
        assert (batch['changed'], batch['reservations6'][0]['address']) == (False, '2001:db8:2::10')
        # an owner with no IPv6 address in mgmt: not_reserved, nothing written
        error = self.fails(svc, 'not_reserved', svc.reserve_owners, 'storage', ['web2'], family='dual',
                           align_with='mgmt')
        assert 'IPv6' in error.msg and "'mgmt'" in error.msg
        # a pool of one family: invalid_argument
        self.fails(svc, 'invalid_argument', svc.reserve, 'backend', 'web1', family='dual', align_with='mgmt')

    def test_align_failures_write_nothing_for_any_owner(self, svc, pools):
        svc.reserve('storage', 'other', address='10.2.0.24')
        svc.reserve('mgmt', 'web4', address='10.1.0.50')       # storage excludes .50
        svc.reserve('mgmt', 'web5', address='10.1.0.150')      # storage's ranges end at .100
        svc.reserve('mgmt', 'web6', address='10.1.0.1', force=True)     # storage's gateway
        svc.pool('small', subnets=[{'cidr': '10.3.0.0/27'}])
        error = self.fails(svc, 'address_in_use', svc.reserve_owners, 'storage', ['web1', 'web2'], align_with='mgmt')
        assert error.details['holder'] == {'pool': 'storage', 'owner': 'other', 'key': 'default'}
        assert "'other'" in error.msg and '10.2.0.24' in error.msg and 'mgmt' in error.msg
        for owner in ('web4', 'web5', 'web6'):
            error = self.fails(svc, 'address_out_of_pool', svc.reserve_owners, 'storage', ['web1', owner],
                               align_with='mgmt')
            assert 'netpool.ipam.range' in error.msg
        error = self.fails(svc, 'address_out_of_pool', svc.reserve, 'small', 'web3', align_with='mgmt')
        assert '10.3.0.0/27' in error.msg and 'offset 60' in error.msg
        error = self.fails(svc, 'not_reserved', svc.reserve_owners, 'storage', ['web1', 'nobody'], align_with='mgmt')
        assert "'nobody'" in error.msg and 'netpool.ipam.reservation' in error.msg
        self.fails(svc, 'not_reserved', svc.reserve, 'storage', 'web1', key='eth1', align_with='mgmt')
        self.fails(svc, 'pool_not_found', svc.reserve, 'storage', 'web1', align_with='mgnt')
        self.fails(svc, 'invalid_argument', svc.reserve, 'storage', 'web1', align_with='storage')
        self.fails(svc, 'invalid_argument', svc.reserve, 'storage', 'web1', address='10.2.0.23', align_with='mgmt')
        self.fails(svc, 'invalid_argument', svc.reserve_owners, 'storage', [{'owner': 'web1', 'address': '10.2.0.23'}],
                   align_with='mgmt')
        self.fails(svc, 'invalid_argument', svc.reserve, 'storage', 'web1', force=True, align_with='mgmt')
        assert held(svc, 'storage') == [('other', 'default', '10.2.0.24', True)]

    def test_align_check_mode_predicts_and_writes_nothing(self, svc, pools):
        svc.reserve('storage', 'web2')
        result = self.unchanged(svc, svc.reserve_owners, 'storage', ['web1', 'web2'], align_with='mgmt')
        assert result['changed'] is True
        assert [r['address'] for r in result['reservations']] == ['10.2.0.23', '10.2.0.24']
        assert [r.get('address') for r in result['diff']['before']['reservations']] == [None, '10.2.0.10']
        self.fails(svc, 'not_reserved', svc.reserve, 'storage', 'nobody', align_with='mgmt', check=True)
        real = svc.reserve_owners('storage', ['web1', 'web2'], align_with='mgmt')
        assert real['reservations'] == result['reservations']
