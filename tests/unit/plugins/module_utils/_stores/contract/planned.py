# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Planned addresses: ``free_addresses`` reads what dynamic allocation would hand out (a plan: the Terraform
provider's), and ``reserve(planned=True)`` takes exactly that address as a dynamic reservation, or fails and
writes nothing when it is no longer free."""

from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


class PlannedTests(Base):

    def test_free_addresses_reads_in_allocation_order(self, svc, web):
        svc.reserve('web', 'h1')
        svc.reserve('web', 'h2', address='10.0.0.12')
        before = export_document(svc.store)
        found = svc.free_addresses('web', count=3)
        assert export_document(svc.store) == before
        assert [f['address'] for f in found] == ['10.0.0.11', '10.0.0.13', '10.0.0.14']
        assert found[0] == dict((k, v) for k, v in svc.reserve('web', 'h3')['reservation'].items()
                                if k in found[0])
        assert set(found[0]) == set(['namespace', 'pool', 'address', 'static', 'prefix_length', 'cidr', 'netmask',
                                     'network', 'gateway', 'dns'])
        assert [f['address'] for f in svc.free_addresses('web', count=2, skip=['10.0.0.13'])] == \
            ['10.0.0.14', '10.0.0.15']
        assert [f['address'] for f in svc.free_addresses('web', count=99)][-1] == '10.0.0.20'
        assert len(svc.free_addresses('web', count=99)) == 8
        assert svc.free_addresses('web', at='10.0.0.14')[0]['address'] == '10.0.0.14'
        assert svc.free_addresses('web', at='10.0.0.12') == []          # held
        assert svc.free_addresses('web', at='10.0.0.1') == []           # the gateway
        assert svc.free_addresses('web', family='ipv6') == []
        self.fails(svc, 'pool_not_found', svc.free_addresses, 'nope')

    def test_planned_takes_exactly_that_address_as_dynamic(self, svc, web):
        planned = svc.free_addresses('web', count=2)[1]['address']
        r = svc.reserve('web', 'h1', address=planned, planned=True)['reservation']
        assert (r['address'], r['static']) == ('10.0.0.11', False)
        again = svc.reserve('web', 'h1', address=planned, planned=True)
        assert again['changed'] is False and again['reservation'] == r
        assert [e['action'] for e in svc.info(history=True)['history'] if e['object'] == 'reservation'] == ['reserve']
        assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.10'
        assert svc.reserve('web', 'h3')['reservation']['address'] == '10.0.0.12'

    def test_planned_no_longer_free_fails_and_writes_nothing(self, svc, web, clock):
        svc.reserve('web', 'taker', address='10.0.0.10')
        error = self.fails(svc, 'address_in_use', svc.reserve, 'web', 'h1', address='10.0.0.10', planned=True)
        assert "owner 'taker'" in error.msg
        svc.pool('web', reuse_delay=60)
        svc.reserve('web', 'gone', address='10.0.0.11')
        svc.release('default', pool='web', owner='gone')
        error = self.fails(svc, 'address_excluded', svc.reserve, 'web', 'h1', address='10.0.0.11', planned=True)
        assert '10.0.0.11 is no longer free' in error.msg
        self.fails(svc, 'address_excluded', svc.reserve, 'web', 'h1', address='10.0.0.1', planned=True)
        svc.reserve('web', 'h2')
        self.fails(svc, 'invalid_argument', svc.reserve, 'web', 'h2', address='10.0.0.13', planned=True)
        self.fails(svc, 'invalid_argument', svc.reserve, 'web', 'h3', planned=True)
        clock.advance(61)           # the rest is over: free again, for a plan too
        assert svc.reserve('web', 'h1', address='10.0.0.11', planned=True)['reservation']['static'] is False
