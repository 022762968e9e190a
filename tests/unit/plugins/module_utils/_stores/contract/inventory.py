# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The inventory read: every reservation of a namespace in one read."""

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


class InventoryTests(Base):
    """``Service.reservations``: the one read of a namespace the inventory plugin makes (docs/design.md#the-inventory-plugin)."""

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
