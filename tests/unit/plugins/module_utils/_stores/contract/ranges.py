# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Ranges (docs/design.md#editing-ranges): dynamic ranges and exclusions, merged, split and forced."""

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


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
