# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Verify: a varied workload leaves nothing for verify to find."""

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


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
