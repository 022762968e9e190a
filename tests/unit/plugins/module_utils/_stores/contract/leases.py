# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Leases and the reuse delay (docs/design.md#leases-and-ttls): what expires, and addresses resting before reuse."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


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

    @pytest.mark.parametrize('batch', [False, True])
    def test_a_rerun_writes_nothing_when_a_lease_beside_it_has_run_out(self, svc, web, clock, batch):
        """A rerun only reads, on every store: what ran out is released by the next change (found by the state
        machine on PostgreSQL, whose locked rerun released it)."""
        svc.reserve('web', 'ci', ttl=30)
        svc.reserve_owners('web', ['h1', 'h2']) if batch else svc.reserve('web', 'h1')
        clock.advance(31)
        before = export_document(svc.store)
        again = svc.reserve_owners('web', ['h1', 'h2']) if batch else svc.reserve('web', 'h1')
        assert again['changed'] is False
        assert export_document(svc.store) == before
        assert svc.reserve('web', 'h3')['reservation']['address'] == '10.0.0.10'     # the next change releases it

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
        """Without an allocation in between (which would end the rest): a read derives it."""
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
