# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The returning owner (docs/design.md#release): an owner that asks again in the same pool, with the same key and family, while
the address it released still rests under the pool's reuse delay, gets that address back."""

import pytest

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base

#: a dual-stack pool with a reuse delay, whose IPv6 subnet lists its range (a store that cannot hand out a whole
#: /64 holds it too)
DUAL = [{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.20']},
        {'cidr': '2001:db8::/64', 'gateway': '2001:db8::1', 'ranges': ['2001:db8::10-2001:db8::20']}]


def actions(svc, owner):
    """The history actions of ``owner``, oldest first."""
    return [e['action'] for e in svc.info(owner=owner, history=True)['history']]


class ReturningOwnerTests(Base):
    """The returning owner on every store."""

    @pytest.fixture
    def resting(self, svc):
        """A pool whose released addresses rest an hour; h1 holds .10, h2 .11."""
        svc.pool('rest', reuse_delay='1h', subnets=DUAL[:1])
        svc.reserve('rest', 'h1')
        svc.reserve('rest', 'h2')

    def test_an_owner_that_comes_back_gets_the_address_it_released(self, svc, resting, clock):
        svc.release(pool='rest', owner='h1')
        clock.advance(600)
        result = svc.reserve('rest', 'h1')
        assert (result['changed'], result['reservation']['address']) == (True, '10.0.0.10')
        assert result['reservation']['static'] is False
        assert actions(svc, 'h1') == ['reserve', 'release', 'return']
        assert svc.reserve('rest', 'h3')['reservation']['address'] == '10.0.0.12'    # others: the next free one
        assert svc.reserve('rest', 'h1')['changed'] is False

    def test_an_owner_whose_lease_ran_out_gets_it_back(self, svc, clock):
        svc.pool('rest', reuse_delay='1h', subnets=DUAL[:1])
        svc.reserve('rest', 'ci', ttl=60)
        svc.reserve('rest', 'h2')
        clock.advance(61)
        result = svc.reserve('rest', 'ci', ttl=60)
        assert result['reservation']['address'] == '10.0.0.10'
        assert actions(svc, 'ci') == ['reserve', 'expire', 'return']

    def test_only_the_same_key_and_pool(self, svc, resting):
        svc.pool('other', reuse_delay='1h', subnets=[{'cidr': '10.9.0.0/24', 'ranges': ['10.9.0.10-10.9.0.20']}])
        svc.release(pool='rest', owner='h1')
        assert svc.reserve('rest', 'h1', key='eth1')['reservation']['address'] == '10.0.0.12'
        assert svc.reserve('other', 'h1')['reservation']['address'] == '10.9.0.10'
        assert svc.reserve('rest', 'h1')['reservation']['address'] == '10.0.0.10'

    def test_dual_gets_both_halves_back(self, svc, clock):
        svc.pool('dual', reuse_delay='1h', subnets=DUAL)
        svc.reserve('dual', 'h1', family='dual')
        svc.reserve('dual', 'h2', family='dual')
        svc.release(pool='dual', owner='h1')
        result = svc.reserve('dual', 'h1', family='dual')
        assert (result['reservation']['address'], result['reservation6']['address']) == ('10.0.0.10', '2001:db8::10')
        assert actions(svc, 'h1')[-2:] == ['return', 'return']
        # one half released: that half comes back, the other is kept
        svc.release(pool='dual', owner='h2', family='ipv6')
        result = svc.reserve('dual', 'h2', family='dual')
        assert (result['reservation']['address'], result['reservation6']['address']) == ('10.0.0.11', '2001:db8::11')

    def test_dual_batch_gets_each_pair_back(self, svc):
        svc.pool('dual', reuse_delay='1h', subnets=DUAL)
        svc.reserve_owners('dual', ['h1', 'h2', 'h3'], family='dual')
        svc.release(pool='dual', owners=['h1', 'h3'])
        result = svc.reserve_owners('dual', ['h4', 'h3', 'h1'], family='dual')
        assert [r['address'] for r in result['reservations']] == ['10.0.0.13', '10.0.0.12', '10.0.0.10']
        assert [r['address'] for r in result['reservations6']] == ['2001:db8::13', '2001:db8::12', '2001:db8::10']

    def test_a_batch_gives_each_owner_its_own_back(self, svc, resting):
        svc.reserve('rest', 'h3')
        svc.release(pool='rest', owners=['h1', 'h2', 'h3'])
        result = svc.reserve_owners('rest', ['h4', 'h3', 'h1', 'h2'])
        assert [r['address'] for r in result['reservations']] == ['10.0.0.13', '10.0.0.12', '10.0.0.10', '10.0.0.11']
        assert actions(svc, 'h4') == ['reserve']
        assert actions(svc, 'h3')[-1] == actions(svc, 'h1')[-1] == 'return'

    def test_not_after_another_owner_took_it_meanwhile(self, svc, resting):
        svc.release(pool='rest', owner='h1')
        svc.reserve('rest', 'h9', address='10.0.0.10')
        svc.release(pool='rest', owner='h9')        # it rests again, left by h9
        result = svc.reserve('rest', 'h1')
        assert result['reservation']['address'] == '10.0.0.12'
        assert actions(svc, 'h1')[-1] == 'reserve'
        assert svc.reserve('rest', 'h9')['reservation']['address'] == '10.0.0.10'   # h9 left it last

    def test_not_once_the_delay_is_over(self, svc, resting, clock):
        svc.release(pool='rest', owner='h1')
        clock.advance(3600)
        result = svc.reserve('rest', 'h3')     # the rest is over: .10 is free to anyone, the first free one
        assert result['reservation']['address'] == '10.0.0.10'
        result = svc.reserve('rest', 'h1')
        assert result['reservation']['address'] == '10.0.0.12'
        assert actions(svc, 'h1')[-1] == 'reserve'

    def test_not_without_a_reuse_delay(self, svc, web):
        svc.reserve('web', 'h1')
        svc.release(pool='web', owner='h1')
        svc.reserve('web', 'h2')
        assert svc.reserve('web', 'h1')['reservation']['address'] == '10.0.0.11'
        assert actions(svc, 'h1')[-1] == 'reserve'

    def test_check_mode_predicts_the_return_and_writes_nothing(self, svc, resting):
        svc.release(pool='rest', owner='h1')
        preview = self.unchanged(svc, svc.reserve, 'rest', 'h1')
        assert (preview['changed'], preview['reservation']['address']) == (True, '10.0.0.10')
        batch = self.unchanged(svc, svc.reserve_owners, 'rest', ['h3', 'h1'])
        assert [r['address'] for r in batch['reservations']] == ['10.0.0.12', '10.0.0.10']
        assert svc.reserve('rest', 'h1')['reservation']['address'] == '10.0.0.10'

    def test_asking_for_its_own_resting_address_is_a_return(self, svc, resting):
        svc.release(pool='rest', owners=['h1', 'h2'])
        result = svc.reserve('rest', 'h1', address='10.0.0.10')
        assert (result['reservation']['address'], result['reservation']['static']) == ('10.0.0.10', True)
        assert actions(svc, 'h1')[-1] == 'return'
        svc.reserve('rest', 'h3', address='10.0.0.11')      # another owner's rest: an ordinary static reservation
        assert actions(svc, 'h3') == ['reserve']

    def test_a_pool_deleted_and_created_again_starts_with_its_resting_addresses(self, svc, resting, clock):
        """``terraform destroy`` then ``apply`` of a configuration that holds the pool: the reservations go
        (h1 released, h2 with the pool by force), then the pool; the pool comes back with the addresses still
        resting, so the owners get theirs back and a newcomer the next free one, until the delay is over."""
        svc.reserve('rest', 'h3')                                   # .12, released before the delay ends
        svc.release(pool='rest', owner='h1')
        svc.release(pool='rest', owner='h3')
        clock.advance(1800)
        assert svc.pool('rest', state='absent', force=True)['released'][0]['owner'] == 'h2'
        svc.pool('other', subnets=[{'cidr': '10.9.0.0/29'}])       # another pool's delete and create meanwhile
        svc.pool('other', state='absent')
        svc.pool('rest', reuse_delay='1h', subnets=DUAL[:1])
        pool = svc.info(pool='rest')['pools'][0]
        assert (pool['size'], pool['free']) == (11, 8)             # .10, .11, .12 rest
        assert svc.reserve('rest', 'h4')['reservation']['address'] == '10.0.0.13'
        assert svc.reserve('rest', 'h2')['reservation']['address'] == '10.0.0.11'
        assert svc.reserve('rest', 'h1')['reservation']['address'] == '10.0.0.10'
        assert actions(svc, 'h1')[-1] == 'return'
        assert svc.verify()['problems'] == []
        clock.advance(1801)       # h3's rest (released half an hour before the delete) is over: .12 is free
        assert svc.reserve('rest', 'h5')['reservation']['address'] == '10.0.0.12'
        assert svc.verify()['problems'] == []
