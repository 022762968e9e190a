# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Release (docs/design.md#release): by key, owner, pool or namespace, and the sweep of owners not kept."""

import pytest

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


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
