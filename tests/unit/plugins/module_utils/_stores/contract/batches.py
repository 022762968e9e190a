# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Batches: ``owners``, many reservations in one transaction, in list order (docs/design.md#what-tasks-return)."""

import pytest

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


class OwnersTests(Base):
    """``owners``: many reservations in one transaction, in list order (docs/design.md#what-tasks-return)."""

    def test_new_owners_get_the_first_free_addresses_in_list_order(self, svc, web):
        svc.reserve('web', 'web3')
        owners = ['web1', 'web2', 'web3', 'web4']
        result = svc.reserve_owners('web', owners)
        assert result['changed'] is True
        assert [(r['owner'], r['address']) for r in result['reservations']] == [
            ('web1', '10.0.0.11'), ('web2', '10.0.0.12'), ('web3', '10.0.0.10'), ('web4', '10.0.0.13')]
        assert [r['owner'] for r in result['diff']['after']['reservations']] == owners
        assert result['diff']['before']['reservations'][2]['address'] == '10.0.0.10'
        assert result['diff']['before']['reservations'][0] == {}
        again = svc.reserve_owners('web', owners)
        assert again['changed'] is False
        assert again['reservations'] == result['reservations']
        # a host added later gets the next free address; nobody moves
        later = svc.reserve_owners('web', ['web0'] + owners + ['web5'])
        assert [r['address'] for r in later['reservations']] == [
            '10.0.0.14', '10.0.0.11', '10.0.0.12', '10.0.0.10', '10.0.0.13', '10.0.0.15']
        assert [e['owner'] for e in svc.info(history=True)['history'] if e['action'] == 'reserve'] == [
            'web3', 'web1', 'web2', 'web4', 'web0', 'web5']

    def test_check_mode_predicts_distinct_addresses_and_writes_nothing(self, svc, web):
        result = self.unchanged(svc, svc.reserve_owners, 'web', ['a', 'b', 'c'])
        assert [(r['address'], r['predicted']) for r in result['reservations']] == [
            ('10.0.0.10', True), ('10.0.0.11', True), ('10.0.0.12', True)]
        assert svc.reserve_owners('web', ['a', 'b', 'c'])['reservations'][2]['address'] == '10.0.0.12'

    def test_one_failure_reserves_nothing(self, svc):
        svc.pool('tiny', subnets=[{'cidr': '10.9.0.0/30'}])     # two usable addresses
        svc.reserve('tiny', 'first')
        self.fails(svc, 'pool_exhausted', svc.reserve_owners, 'tiny', ['a', 'b'])
        self.fails(svc, 'address_in_use', svc.reserve_owners, 'tiny',
                   ['a', {'owner': 'b', 'address': '10.9.0.1'}])

    def test_per_owner_address_and_metadata(self, svc, web):
        result = svc.reserve_owners('web', [{'owner': 'lb1', 'address': '10.0.0.200'},
                                            {'owner': 'web1', 'metadata': {'mac': '52:54:00:00:00:01'}}, 'web2'],
                                    metadata={'role': 'web'})
        assert [(r['owner'], r['address'], r['static'], r['metadata']) for r in result['reservations']] == [
            ('lb1', '10.0.0.200', True, {'role': 'web'}), ('web1', '10.0.0.10', False, {'mac': '52:54:00:00:00:01'}),
            ('web2', '10.0.0.11', False, {'role': 'web'})]
        changed = svc.reserve_owners('web', [{'owner': 'web1', 'metadata': {'mac': '52:54:00:00:00:02'}}, 'web2'])
        assert changed['changed'] is True
        assert [r['metadata'] for r in changed['reservations']] == [{'mac': '52:54:00:00:00:02'}, {'role': 'web'}]

    @pytest.mark.parametrize('owners, kwargs, says', [
        (['a', 'b', 'a'], {}, 'twice'),
        (['a', 'b'], {'address': '10.0.0.15'}, 'each its own'),
        (['a', ''], {}, 'owners[1]'),
        (['a', ['b']], {}, 'owners[1]'),
        ([{'owner': 'a', 'mac': 'x'}], {}, "'mac'"),
        ([{'address': '10.0.0.15'}], {}, 'owners[0]'),
        ('a', {}, 'must be a list'),
        ([{'owner': 'a', 'address': 'nope'}], {}, 'nope'),
        (['a'], {'reassign': True}, 'reassign needs address'),
    ])
    def test_bad_owners(self, svc, web, owners, kwargs, says):
        error = self.fails(svc, 'invalid_argument', svc.reserve_owners, 'web', owners, **kwargs)
        assert says in error.msg

    def test_release_owners_in_one_task(self, svc, web):
        svc.reserve_owners('web', ['a', 'b', 'c'])
        result = svc.release(pool='web', owners=['c', 'a', 'gone'])
        assert [r['owner'] for r in result['released']] == ['c', 'a']
        assert [r['owner'] for r in svc.info(pool='web')['reservations']] == ['b']
        assert svc.release(pool='web', owners=['c', 'a'])['changed'] is False
        self.fails(svc, 'invalid_argument', svc.release, pool='web', owner='b', owners=['b'])
        self.fails(svc, 'invalid_argument', svc.release, pool='web', owners=['b'], keep_owners=['b'])

    # -- a batch is planned whole, then applied (docs/design.md#batches)
    @pytest.mark.parametrize('reassign', [False, True])
    def test_two_owners_asking_for_one_address_is_refused(self, svc, web, reassign):
        error = self.fails(svc, 'invalid_argument', svc.reserve_owners, 'web',
                           [{'owner': 'lb1', 'address': '10.0.0.200'}, {'owner': 'lb2', 'address': '10.0.0.200'}],
                           reassign=reassign)
        assert "'lb1'" in error.msg and "'lb2'" in error.msg and '10.0.0.200' in error.msg

    def test_statics_are_placed_before_dynamics_wherever_they_stand(self, svc, web):
        result = svc.reserve_owners('web', ['a', {'owner': 'b', 'address': '10.0.0.10'}, 'c'])
        assert [(r['owner'], r['address'], r['static']) for r in result['reservations']] == [
            ('a', '10.0.0.11', False), ('b', '10.0.0.10', True), ('c', '10.0.0.12', False)]
        assert svc.reserve_owners('web', ['a', {'owner': 'b', 'address': '10.0.0.10'}, 'c'])['changed'] is False

    def test_a_static_may_take_the_address_another_owner_of_the_batch_leaves(self, svc, web):
        svc.reserve_owners('web', ['a', 'b'])       # .10, .11
        result = svc.reserve_owners('web', [{'owner': 'c', 'address': '10.0.0.10'},
                                            {'owner': 'a', 'address': '10.0.0.30'}])
        assert [(r['owner'], r['address']) for r in result['reservations']] == [('c', '10.0.0.10'), ('a', '10.0.0.30')]

    @staticmethod
    def _held(result):
        return result['changed'], [(r['owner'], r['address'], r['static'], r['metadata'])
                                   for r in result['reservations']]

    @pytest.mark.parametrize('batch, reassign', [
        (['n1', {'owner': 'd', 'address': '10.0.0.11'}, {'owner': 'b', 'address': '10.0.0.12'}, 'n2',
          {'owner': 'a', 'metadata': {'role': 'x'}}], False),
        ([{'owner': 'x', 'address': '10.0.0.10'}, {'owner': 'c', 'address': '10.0.0.16'},
          {'owner': 'y', 'address': '10.0.0.15'}], True),
        (['n1', 'a', {'owner': 'c', 'address': '10.0.0.10'}, 'n2', 'b'], False),
    ])
    def test_check_mode_predicts_exactly_what_the_run_does(self, svc, web, batch, reassign):
        svc.reserve_owners('web', ['a', 'b', {'owner': 'c', 'address': '10.0.0.15'}])    # .10, .11, .15
        if batch[2] == {'owner': 'c', 'address': '10.0.0.10'}:     # a keeps .10: both runs say so
            self.fails(svc, 'address_in_use', svc.reserve_owners, 'web', batch, check=True)
            self.fails(svc, 'address_in_use', svc.reserve_owners, 'web', batch)
            return
        predicted = self.unchanged(svc, svc.reserve_owners, 'web', batch, reassign=reassign)
        done = svc.reserve_owners('web', batch, reassign=reassign)
        assert self._held(predicted) == self._held(done)
        held = dict((r['owner'], r['address']) for r in svc.info(pool='web')['reservations'])
        assert all(held[r['owner']] == r['address'] for r in done['reservations'])
        assert len(set(held.values())) == len(held)

    def test_a_static_move_and_a_failing_dynamic_change_nothing(self, svc):
        svc.pool('tiny', subnets=[{'cidr': '10.9.1.0/29'}])     # .1-.6
        svc.reserve_owners('tiny', ['a', 'b', 'c', 'd', 'e'])
        self.fails(svc, 'pool_exhausted', svc.reserve_owners, 'tiny',
                   [{'owner': 'a', 'address': '10.9.1.6'}, 'f', 'g'])
        self.fails(svc, 'pool_exhausted', svc.reserve_owners, 'tiny',
                   ['f', {'owner': 'b', 'address': '10.9.1.6', 'metadata': {'m': 1}}, 'g'])
        assert [(r['owner'], r['address']) for r in svc.info(pool='tiny')['reservations']] == [
            ('a', '10.9.1.1'), ('b', '10.9.1.2'), ('c', '10.9.1.3'), ('d', '10.9.1.4'), ('e', '10.9.1.5')]

    def test_an_empty_list_changes_nothing(self, svc, web):
        assert svc.reserve_owners('web', []) == {'changed': False, 'reservations': [],
                                                 'diff': {'before': {'reservations': []},
                                                          'after': {'reservations': []}}}
