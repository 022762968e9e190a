# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the reserve role does once for the play (plugin_utils/_reserve.py): plan, facts, misspellings."""

from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve

STORE = 'postgresql://u:pw-SECRET@127.0.0.1/db'


def test_plan_groups_in_inventory_order_and_hosts_sharing_an_owner_share_it():
    requests = [
        {'host': 'a', 'state': 'present', 'pool': 'web', 'facts': {'default_ipv4': {'macaddress': '52:54:00:00:00:0a'}}},
        {'host': 'b', 'state': 'present', 'pool': 'db', 'store': STORE},
        {'host': 'c', 'state': 'present', 'pool': 'web', 'owner': 'vip', 'address': '10.0.0.5'},
        {'host': 'd', 'state': 'present', 'pool': 'web', 'owner': 'vip', 'hostname': 'ignored'},
        {'host': 'e', 'state': 'absent', 'pool': 'web', 'key': ''},
    ]
    plan = _reserve.plan(requests)
    assert plan['error'] == ''
    web, db, release = plan['groups']
    assert web['hosts'] == [['a', 'a'], ['c', 'vip'], ['d', 'vip']]
    assert web['args']['owners'] == [{'owner': 'a', 'metadata': {'mac': '52:54:00:00:00:0a'}},
                                     {'owner': 'vip', 'address': '10.0.0.5'}]
    assert web['defaults'] == {} and db['defaults'] == {'store': STORE}
    assert 'pw-SECRET' not in db['label']
    assert release['args'] == {'state': 'absent', 'pool': 'web', 'owners': ['e']}


def test_plan_says_which_hosts_miss_a_pool():
    plan = _reserve.plan([{'host': 'a', 'state': 'present'}, {'host': 'b', 'state': 'absent', 'key': 'eth1'}])
    assert 'set ipam_pool (the pool to reserve in) for a.' in plan['error']
    assert 'every address of b.' in plan['error'] and plan['groups'] == []


def test_a_failure_names_the_hosts_and_the_host_asking_for_an_address_never_a_secret():
    plan = _reserve.plan([{'host': 'w1', 'pool': 'web', 'store': STORE},
                          {'host': 'w2', 'pool': 'web', 'address': '10.0.0.1', 'store': STORE}])
    failure = {'failed': True, 'msg': '10.0.0.1 is held by owner w1 (pw-SECRET)', 'error': 'address_in_use'}
    state = _reserve.facts({'results': [failure]}, plan)
    assert state['fatal'].startswith('netpool.ipam.reserve: w1, w2: asked by w2 (ipam_static_address 10.0.0.1); ')
    assert 'pw-SECRET' not in state['fatal'] and '(error address_in_use)' in state['fatal']


def test_facts_keep_earlier_runs_and_gather_reservations():
    plan = _reserve.plan([{'host': 'a', 'pool': 'web'}])
    held = {'owner': 'a', 'pool': 'web', 'key': 'default', 'address': '10.0.0.1', 'cidr': '10.0.0.1/24'}
    first = _reserve.facts({'results': [{'reservations': [held], 'diff': {'before': {'reservations': [{}]}}}]}, plan,
                           {'hosts': {'z': {'reservation': None}}})
    assert first['hosts']['a']['reservations'] == {'web/default': held} and first['changed'] == ['a']
    assert 'z' in first['hosts'] and '(changed)' in first['table'][0]
    again = _reserve.facts({'results': [{'reservations': [held], 'diff': {'before': {'reservations': [held]}}}]},
                           plan, first)
    assert again['changed'] == [] and '(changed)' not in again['table'][0]


def test_misspelled_names_the_nearest_and_leaves_known_names_alone():
    known = _reserve.role_names()
    assert {'ipam_static_address', 'ipam_pools', 'ipam_publish_reload', 'ipam_address'} <= known
    assert _reserve.misspelled(['ipam_stattic_address', 'ipam_pool', 'ipam_my_own_thing']) == [
        ('ipam_stattic_address', 'ipam_static_address')]


def test_wrong_requests_are_one_item_that_stops_every_host():
    items = _reserve.items(_reserve.plan([{'host': 'a', 'state': 'present'}]))
    assert len(items) == 1 and items[0]['error'].startswith('netpool.ipam.reserve: set ipam_pool')
    # the reservation task skips it; its registered loop carries it to the facts
    state = _reserve.facts({'results': [{'skipped': True, 'item': items[0]}]})
    assert state['fatal'] == items[0]['error'] and state['hosts'] == {}


def test_validate_checks_the_role_spec_and_hides_secrets():
    assert _reserve.validate({'ipam_pool': 'web', 'ipam_state': 'absent'}) == ''
    msg = _reserve.validate({'ipam_state': 'bogus', 'ipam_store_token': 'tok-SECRET', 'ipam_store_timeout': 'tok-SECRET'})
    assert 'value of ipam_state must be one of: present, absent, got: bogus' in msg
    assert 'ipam_store_timeout' in msg and 'tok-SECRET' not in msg
