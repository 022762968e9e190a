# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Probing before handing out (the ``probe`` option), on every store: an address that answered is recorded as held
by ``netpool.ipam.probe`` in the task's transaction, its reservation takes the next free one, and a task that
meets too many fails writing nothing. The network is ``Network``, a probe whose answers the test gives (the real
probes run on real interfaces in ``test_probe.py``); the store is the real one."""

from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _probe
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


class Network(_probe.Probe):
    """A probe on a network where ``answering`` addresses (text) answer, and each round's addresses are kept."""

    def __init__(self, answering, tries=16):
        super(Network, self).__init__('icmp', 300, tries)
        self.hosts, self.asked = set(answering), []

    def answering(self, addresses):
        self.rounds += 1
        self.probed += len(addresses)
        self.asked.append(sorted(_probe.iv.to_str(v, n) for v, n in addresses))
        return set(a for a in addresses if _probe.iv.to_str(*a) in self.hosts)


def addresses(result):
    return [r['address'] for r in result['reservations']]


class ProbeTests(Base):
    """``probe`` on every store (NetBox's candidates are IP addresses it allocated: test_netbox.py shows what a
    probe that finds them answering leaves there)."""

    def test_answering_candidates_are_held_by_the_probe_and_skipped(self, svc, web):
        network = Network(['10.0.0.11', '10.0.0.13', '10.0.0.16'])
        result = svc.reserve_owners('web', ['a', 'b', 'c', 'd'], probe=network)
        assert addresses(result) == ['10.0.0.10', '10.0.0.14', '10.0.0.12', '10.0.0.15']
        assert network.asked == [['10.0.0.10', '10.0.0.11', '10.0.0.12', '10.0.0.13'], ['10.0.0.14', '10.0.0.15']]
        assert result['probed']['answered'] == ['10.0.0.11', '10.0.0.13']
        found = svc.info(owner=_probe.OWNER)['reservations']
        assert [(r['key'], r['address'], r['static'], r['metadata']['probed_for']) for r in found] == [
            ('10.0.0.11', '10.0.0.11', True, 'b/default'), ('10.0.0.13', '10.0.0.13', True, 'd/default')]
        again = svc.reserve_owners('web', ['a', 'b', 'c', 'd'], probe=Network([]))
        assert again['changed'] is False and again['probed']['rounds'] == 0       # a rerun is not probed
        # a new one: the found ones are not probed again
        assert svc.reserve('web', 'e', probe=network)['reservation']['address'] == '10.0.0.17'
        assert network.asked[2:] == [['10.0.0.16'], ['10.0.0.17']]
        released = svc.release(pool='web', owner=_probe.OWNER)['released']
        assert sorted(r['address'] for r in released) == ['10.0.0.11', '10.0.0.13', '10.0.0.16']
        assert svc.reserve('web', 'f')['reservation']['address'] == '10.0.0.11'     # freed

    def test_too_many_answering_candidates_fail_and_write_nothing(self, svc, web):
        network = Network(['10.0.0.10', '10.0.0.11', '10.0.0.12'], tries=3)
        error = self.fails(svc, 'address_in_use', svc.reserve_owners, 'web', ['a'], probe=network)
        assert "3 addresses of pool 'web' answered a icmp probe for a/default" in error.msg
        assert error.details['answered'] == ['10.0.0.10', '10.0.0.11', '10.0.0.12']

    def test_check_mode_and_statics_are_not_probed(self, svc, web):
        network = Network(['10.0.0.10'])
        result = self.unchanged(svc, svc.reserve_owners, 'web', ['a', {'owner': 's', 'address': '10.0.0.15'}],
                                probe=network)
        assert addresses(result) == ['10.0.0.10', '10.0.0.15'] and result['probed']['rounds'] == 0
        assert svc.reserve('web', 's', address='10.0.0.10', probe=network)['reservation']['address'] == '10.0.0.10'
        assert network.asked == []

    def test_family_dual_probes_each_family(self, svc):
        svc.pool('ds', subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.20']},
                                {'cidr': '2001:db8::/64', 'ranges': ['2001:db8::10-2001:db8::20']}])
        network = Network(['10.0.0.10', '2001:db8::10'])
        result = svc.reserve('ds', 'h', family='dual', probe=network)
        assert (result['reservation']['address'], result['reservation6']['address']) == ('10.0.0.11', '2001:db8::11')
        assert network.asked == [['10.0.0.10'], ['10.0.0.11'], ['2001:db8::10'], ['2001:db8::11']]
