# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Adopting the addresses a network already uses (``netpool.ipam.adopt``): statics, in one transaction."""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _adopt
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _sources
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


def adopt(svc, entries, **kwargs):
    """Adopt a list of entry dicts as the module's ``entries`` option gives them."""
    return _adopt.adopt(svc, _sources.from_entries(entries), **kwargs)


def sorted_out(result):
    """kind -> [(address, owner, pool)] of an adopt result."""
    return dict((kind, [(e['address'], e['owner'], e['pool']) for e in result[kind]]) for kind in _adopt.KINDS)


class AdoptTests(Base):
    """Each entry adopted, unchanged, a conflict or outside, with its reason; one transaction per task."""

    @pytest.fixture
    def network(self, svc, web):
        """``web`` (10.0.0.0/24, gateway .1, range .10-.20, exclusion .50) and ``site`` (10.16.0.0/16, gateway
        10.16.0.1) with its child ``lab`` (10.16.0.0/24); web/.12 held by ``x``."""
        svc.range('web', ['10.0.0.50'], kind='excluded')
        svc.pool('site', subnets=[{'cidr': '10.16.0.0/16', 'gateway': '10.16.0.1'}])
        svc.pool('lab', parent='site', prefix_length=24)
        svc.reserve('web', 'x', address='10.0.0.12')

    ENTRIES = [
        {'address': '10.0.0.15', 'owner': 'a', 'mac': '52:54:00:00:00:0a'},     # in the dynamic range
        {'address': '10.0.0.100', 'owner': 'b', 'metadata': {'rack': 'r1'}},    # in the subnet, out of the range
        {'address': '10.16.0.7', 'owner': 'c'},                                 # the child, not its parent
        {'address': '10.16.9.7', 'owner': 'c'},                                 # the parent
        {'address': '10.0.0.1', 'owner': 'gw'},
        {'address': '10.0.0.0', 'owner': 'net'},
        {'address': '10.0.0.255', 'owner': 'bcast'},
        {'address': '10.0.0.50', 'owner': 'ex'},
        {'address': '10.0.0.12', 'owner': 'y'},
        {'address': '10.0.0.16', 'owner': 'a'},
        {'address': '10.16.0.8', 'owner': 'd', 'pool': 'web'},
        {'address': '10.16.0.9', 'owner': 'e', 'pool': 'site'},
        {'address': '10.99.0.1', 'owner': 'far'},
        {'address': '10.0.0.15', 'owner': 'a', 'key': 'eth1'},
    ]

    def test_each_entry_is_sorted_out_with_its_reason_and_a_rerun_is_unchanged(self, svc, network):
        result = adopt(svc, self.ENTRIES, on_conflict='skip')
        assert result['changed'] is True
        assert sorted_out(result) == {
            'adopted': [('10.0.0.15', 'a', 'web'), ('10.0.0.100', 'b', 'web'), ('10.16.0.7', 'c', 'lab'),
                        ('10.16.9.7', 'c', 'site')],
            'unchanged': [],
            'conflicts': [('10.0.0.1', 'gw', 'web'), ('10.0.0.0', 'net', 'web'), ('10.0.0.255', 'bcast', 'web'),
                          ('10.0.0.50', 'ex', 'web'), ('10.0.0.12', 'y', 'web'), ('10.0.0.16', 'a', 'web'),
                          ('10.16.0.8', 'd', 'web'), ('10.16.0.9', 'e', 'site'), ('10.0.0.15', 'a', 'web')],
            'outside': [('10.99.0.1', 'far', None)]}
        assert [e['reason'] for e in result['conflicts']] == [
            '10.0.0.1 is the gateway of 10.0.0.0/24', '10.0.0.0 is the network address of 10.0.0.0/24',
            '10.0.0.255 is the broadcast address of 10.0.0.0/24', '10.0.0.50 is an exclusion of 10.0.0.0/24',
            "10.0.0.12 is held by owner 'x' key 'default' in pool 'web'",
            "a/default holds another address in pool 'web': 10.0.0.15",
            "10.16.0.8 is outside pool 'web' (10.0.0.0/24)",
            "10.16.0.9 is in child pool 'lab' of pool 'site': leave pool out (or give pool: lab) to adopt it there",
            "10.0.0.15 is held by owner 'a' key 'default' in pool 'web'"]
        assert result['outside'][0]['reason'] == '10.99.0.1 is in no pool of the namespace'
        assert [e['source'] for e in result['adopted']] == ['entries[0]', 'entries[1]', 'entries[2]', 'entries[3]']
        assert [(r['address'], r['static'], r['metadata']) for r in result['diff']['after']['reservations']] == [
            ('10.0.0.15', True, {'mac': '52:54:00:00:00:0a'}), ('10.0.0.100', True, {'rack': 'r1'}),
            ('10.16.0.7', True, {}), ('10.16.9.7', True, {})]
        held = svc.info(pool='web')['reservations']
        assert [(r['owner'], r['address'], r['static']) for r in held] == [
            ('x', '10.0.0.12', True), ('a', '10.0.0.15', True), ('b', '10.0.0.100', True)]
        assert svc.reserve('web', 'new')['reservation']['address'] == '10.0.0.10'
        again = adopt(svc, self.ENTRIES[:4])
        assert again['changed'] is False
        assert sorted_out(again)['unchanged'] == sorted_out(result)['adopted']
        assert again['unchanged'][0]['reason'] == "a/default holds 10.0.0.15 in pool 'web' already"
        assert svc.verify()['problems'] == []

    def test_a_conflict_fails_the_task_and_writes_nothing(self, svc, network):
        error = self.fails(svc, 'adopt_conflict', adopt, svc, self.ENTRIES)
        assert [(c['address'], c['owner']) for c in error.details['conflicts']][:2] == [
            ('10.0.0.1', 'gw'), ('10.0.0.0', 'net')]
        assert error.msg.startswith('9 entries cannot be adopted: 10.0.0.1 (entries[4]) for gw/default: 10.0.0.1 is '
                                    'the gateway of 10.0.0.0/24; ')
        assert 'and 4 more. Nothing was written' in error.msg
        self.fails(svc, 'pool_not_found', adopt, svc, [{'address': '10.0.0.30', 'owner': 'a'},
                                                       {'address': '10.0.0.31', 'owner': 'b', 'pool': 'wbe'}])

    def test_one_transaction_whatever_the_number_of_entries_and_check_mode_writes_nothing(self, svc, web):
        entries = [{'address': '10.0.0.%d' % (100 + i), 'owner': 'h%d' % i} for i in range(40)]
        opened = []
        transaction = svc.store.transaction

        def counted(**kwargs):
            """``adopt``, counting the transactions it opens."""
            svc.store.transaction = lambda *a, **k: opened.append((a, k)) or transaction(*a, **k)
            try:
                return adopt(svc, entries, **kwargs)
            finally:
                svc.store.transaction = transaction
        predicted = self.unchanged(svc, counted)
        assert [e['address'] for e in predicted['adopted']] == [e['address'] for e in entries]
        assert predicted['changed'] is True
        assert len(counted()['adopted']) == 40
        assert counted()['changed'] is False
        assert len(opened) == 3, opened
        assert len(svc.info(pool='web')['reservations']) == 40

    def test_a_resting_address_and_an_expired_lease_are_adopted(self, svc, clock):
        svc.pool('p', reuse_delay=300, subnets=[{'cidr': '10.0.0.0/29'}])
        svc.reserve('p', 'old', address='10.0.0.2')
        svc.release(pool='p', owner='old')
        svc.reserve('p', 'lease', address='10.0.0.3', ttl='60s')
        svc.reserve('p', 'mine', address='10.0.0.5', ttl='60s')
        assert [n for _v, n, _u in svc.store.free_space().resting(svc.store.get_pool('default', 'p'))]
        clock.advance(120)
        result = adopt(svc, [{'address': '10.0.0.2', 'owner': 'printer'}, {'address': '10.0.0.6', 'owner': 'lease'},
                             {'address': '10.0.0.3', 'owner': 'nas'}, {'address': '10.0.0.4', 'owner': 'mine'}])
        assert [e['address'] for e in result['adopted']] == ['10.0.0.2', '10.0.0.6', '10.0.0.3', '10.0.0.4']
        held = svc.info(pool='p')['reservations']
        assert [(r['owner'], r['address']) for r in held] == [
            ('printer', '10.0.0.2'), ('nas', '10.0.0.3'), ('mine', '10.0.0.4'), ('lease', '10.0.0.6')]
        # the expired leases were released once each, by the first entry to meet them
        assert sorted((e['owner'], e['address']) for e in svc.info(history=True)['history']
                      if e['action'] == 'expire') == [('lease', '10.0.0.3'), ('mine', '10.0.0.5')]
        assert svc.verify()['problems'] == []

    def test_history_records_each_adoption_and_its_source(self, svc, web, tmp_path):
        path = tmp_path / 'hosts.csv'
        path.write_text(u'address,owner,rack\n10.0.0.30,nas,r2\n\n10.0.0.31,printer,\n')
        entries, source = _adopt.read_source(svc, csv=str(path))
        adopt_result = _adopt.adopt(svc, entries, source=source)
        assert [e['source'] for e in adopt_result['adopted']] == ['%s line 2' % path, '%s line 4' % path]
        found = [e for e in svc.info(history=True)['history'] if e['action'] == 'adopt']
        assert [(e['owner'], e['address'], e['new']['source'], e['new']['metadata']) for e in found] == [
            ('nas', '10.0.0.30', 'csv %s line 2' % path, {'rack': 'r2'}),
            ('printer', '10.0.0.31', 'csv %s line 4' % path, {})]
