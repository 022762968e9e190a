# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the reserve role does once for the play (plugin_utils/_reserve.py): plan, facts, misspellings."""

import json
import os
import subprocess

import pytest
import yaml

from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve
from ansible_collections.netpool.ipam.tests.support.reliability import ansible_bin, ansible_env

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *(['..'] * 4)))
STORE = 'postgresql://u:pw-SECRET@127.0.0.1/db'


def test_plan_groups_in_inventory_order_and_hosts_sharing_an_owner_share_it():
    requests = [
        {'host': 'a', 'state': 'present', 'pool': 'web', 'facts': {'default_ipv4': {'macaddress': '52:54:00:00:00:0a'}}},
        {'host': 'b', 'state': 'present', 'pool': 'db', 'store': STORE},
        {'host': 'c', 'state': 'present', 'pool': 'web', 'owner': 'vip', 'address': '10.0.0.5'},
        {'host': 'd', 'state': 'present', 'pool': 'web', 'owner': 'vip', 'hostname': 'ignored'},
        {'host': 'e', 'state': 'absent', 'pool': 'web', 'key': ''},
    ]
    plan = _reserve.group_requests(requests)
    assert plan['error'] == ''
    web, db, release = plan['groups']
    assert web['hosts'] == [['a', 'a'], ['c', 'vip'], ['d', 'vip']]
    assert web['args']['owners'] == [{'owner': 'a', 'metadata': {'mac': '52:54:00:00:00:0a'}},
                                     {'owner': 'vip', 'address': '10.0.0.5'}]
    assert web['defaults'] == {} and db['defaults'] == {'store': STORE}
    assert 'pw-SECRET' not in db['label']
    assert release['args'] == {'state': 'absent', 'pool': 'web', 'owners': ['e']}


def test_plan_says_which_hosts_miss_a_pool():
    plan = _reserve.group_requests([{'host': 'a', 'state': 'present'}, {'host': 'b', 'state': 'absent', 'key': 'eth1'}])
    assert 'set ipam_pool (the pool to reserve in) for a.' in plan['error']
    assert 'every address of b.' in plan['error'] and plan['groups'] == []


def test_a_failure_names_the_hosts_and_the_host_asking_for_an_address_never_a_secret():
    plan = _reserve.group_requests([{'host': 'w1', 'pool': 'web', 'store': STORE},
                                    {'host': 'w2', 'pool': 'web', 'address': '10.0.0.1', 'store': STORE}])
    failure = {'failed': True, 'msg': '10.0.0.1 is held by owner w1 (pw-SECRET)', 'error': 'address_in_use'}
    state = _reserve.facts({'results': [failure]}, plan)
    assert state['fatal'].startswith('netpool.ipam.reserve: w1, w2: asked by w2 (ipam_static_address 10.0.0.1); ')
    assert 'pw-SECRET' not in state['fatal'] and '(error address_in_use)' in state['fatal']


def test_facts_keep_earlier_runs_and_gather_reservations():
    plan = _reserve.group_requests([{'host': 'a', 'pool': 'web'}])
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


def test_wrong_requests_stop_every_host_and_reserve_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    state = _reserve.batch([{'host': 'a', 'state': 'present'}])
    assert state['fatal'].startswith('netpool.ipam.reserve: set ipam_pool') and state['hosts'] == {}
    assert not (tmp_path / 'ipam.sqlite').exists()


def test_validate_checks_the_role_spec_and_hides_secrets():
    assert _reserve.validate({'ipam_pool': 'web', 'ipam_state': 'absent'})[1] == ''
    _values, msg = _reserve.validate({'ipam_state': 'bogus', 'ipam_store_token': 'tok-SECRET',
                                      'ipam_store_timeout': 'tok-SECRET'})
    assert 'value of ipam_state must be one of: present, absent, got: bogus' in msg
    assert 'ipam_store_timeout' in msg and 'tok-SECRET' not in msg


def test_the_types_the_request_converts_to_are_the_role_spec_s():
    path = os.path.join(ROOT, 'roles', 'reserve', 'meta', 'argument_specs.yml')
    with open(path) as f:
        options = yaml.safe_load(f)['argument_specs']['main']['options']
    types = dict((name, option.get('type', 'str')) for name, option in options.items())
    assert dict((name, kind) for name, kind in types.items() if kind != 'str') == _reserve.TYPES
    assert dict((name, option['choices']) for name, option in options.items()
                if 'choices' in option) == _reserve.CHOICES
    assert set(types) == set(name for name, _field in _reserve.REQUEST)


def test_validate_converts_each_variable_to_its_type_and_names_what_is_wrong():
    values, message = _reserve.validate({'ipam_store_timeout': '5', 'ipam_pool': 'web', 'ipam_force': 'yes'})
    assert message == '' and values == {'ipam_store_timeout': 5, 'ipam_pool': 'web', 'ipam_force': True}
    # no default is added: a variable the host does not have stays unset
    assert 'ipam_owner' not in values and 'ipam_state' not in values
    _values, message = _reserve.validate({'ipam_family': 'ipv5', 'ipam_store': STORE})
    assert 'value of ipam_family must be one of: ipv4, ipv6, dual, got: ipv5' in message, message
    assert 'pw-SECRET' not in message


def test_facts_give_each_host_of_a_group_its_own_address_fields():
    plan = _reserve.group_requests([{'host': 'a', 'pool': 'web'}, {'host': 'b', 'pool': 'web'}])
    held = [{'owner': owner, 'pool': 'web', 'key': 'default', 'address': address, 'cidr': address + '/24',
             'gateway': '10.0.0.254', 'prefix_length': 24, 'netmask': '255.255.255.0', 'dns': ['10.0.0.53']}
            for owner, address in (('a', '10.0.0.1'), ('b', '10.0.0.2'))]
    state = _reserve.facts({'results': [{'reservations': held, 'diff': {'before': {'reservations': [{}, {}]}}}]}, plan)
    assert [(state['hosts'][h]['address'], state['hosts'][h]['cidr'], state['hosts'][h]['dns']) for h in 'ab'] == [
        ('10.0.0.1', '10.0.0.1/24', ['10.0.0.53']), ('10.0.0.2', '10.0.0.2/24', ['10.0.0.53'])]
    assert state['changed'] == ['a', 'b']


def test_the_roles_internal_plugins_are_private_by_name_and_say_so_first():
    """What ansible-doc lists (and so Galaxy and the docsite index): a plugin that only a role of the collection runs
    has a private name (a leading underscore) and a description that starts by saying it is internal; no other
    plugin says so. The reserve role's facts need no filter of their own."""
    env = ansible_env(ANSIBLE_COLLECTIONS_PATH=os.path.join(os.path.realpath(ROOT), 'collections'))
    internal = []
    for kind in ('module', 'filter'):
        listed = subprocess.run([ansible_bin('ansible-doc'), '-t', kind, '-l', 'netpool.ipam', '--json'], cwd=ROOT,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
        assert listed.returncode == 0, listed.stderr
        for name, description in json.loads(listed.stdout).items():
            private = name.split('.')[-1].startswith('_')
            assert private == ('internal' in description.lower()), (name, description)
            assert description.startswith('Internal to role netpool.ipam.') or not private, (name, description)
            if private:
                internal.append(name)
    assert sorted(internal) == ['netpool.ipam._drift_request', 'netpool.ipam._pools_check', 'netpool.ipam._reserve_request'], internal


def test_a_batch_of_several_groups_writes_nothing_unless_each_group_can_be_written(tmp_path, monkeypatch):
    """Checked whole first: a group that would fail (here its pool does not exist) leaves the others unwritten.
    A group whose check passed but that fails when written (two groups of one pool competing for its last two
    addresses) says which hosts were written and which were not."""
    from ansible_collections.netpool.ipam.plugins.plugin_utils._task import _adapter
    monkeypatch.chdir(tmp_path)
    assert not _adapter.run_task('pool', {'name': 'small', 'cidr': '10.80.0.0/24', 'store': 'ipam.sqlite',
                                          'ranges': ['10.80.0.10-10.80.0.11']}).get('failed')
    a, b = ({'host': host, 'pool': 'small', 'store': 'ipam.sqlite'} for host in 'ab')
    state = _reserve.batch([a, b, {'host': 'c', 'pool': 'missing', 'store': 'ipam.sqlite'}])
    assert 'pool_not_found' in state['fatal'] and 'Nothing was written for any host of the batch.' in state['fatal']
    assert state['hosts'] == {} and _adapter.run_task('info', {'pool': 'small', 'store': 'ipam.sqlite'})[
        'reservations'] == []
    state = _reserve.batch([a, b, {'host': 'c', 'pool': 'small', 'key': 'eth1', 'store': 'ipam.sqlite'}])
    assert 'pool_exhausted' in state['fatal'], state['fatal']
    assert state['fatal'].endswith('Written before this failure, and kept: a, b; not written: c.'), state['fatal']
    held = _adapter.run_task('info', {'pool': 'small', 'store': 'ipam.sqlite'})['reservations']
    assert sorted(r['owner'] for r in held) == ['a', 'b']


def test_a_batch_fails_with_the_code_of_the_call_that_failed(tmp_path, monkeypatch):
    """A group's failure keeps its call's ``error`` code (the module's), and wrong role variables are
    ``invalid_argument``."""
    from ansible_collections.netpool.ipam.plugins.plugin_utils._task import _adapter
    monkeypatch.chdir(tmp_path)
    module = _adapter.run_task('reservation', {'pool': 'missing', 'owner': 'a', 'store': 'ipam.sqlite'})
    state = _reserve.batch([{'host': 'a', 'pool': 'missing', 'store': 'ipam.sqlite'}])
    assert state['error'] == module['error'] == 'pool_not_found', state
    assert state['fatal'] == 'netpool.ipam.reserve: a: %s (error pool_not_found)' % module['msg'], state
    assert _reserve.batch([{'host': 'a', 'state': 'present'}])['error'] == 'invalid_argument'
    assert _reserve.batch([{'host': 'a', 'pool': 'web', 'store': 'ipam.sqlite'}], check=True)['error'] is None


def test_a_bug_of_the_batch_fails_as_a_bug_of_a_module_does():
    """What the role's batch raises outside its calls goes through the modules' one failure path: the code, the
    message and the traceback of ``_runner.failure_of``, the secrets of every request hidden."""
    from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
    requests = [{'host': 'a', 'pool': 'web', 'store': STORE}]
    with pytest.raises(KeyError) as raised:
        requests[0]['missing']
    error = raised.value
    failed = _reserve.failure(error, requests)
    assert failed == dict(_runner.failure_of('reservation', error, None, doing='reserving the addresses of 1 host(s)',
                                             who='netpool.ipam.reserve'), failed=True)
    assert failed['failed'] and failed['error'] == 'internal_error' and 'Traceback' in failed['exception']
    assert failed['msg'].startswith('netpool.ipam.reserve failed unexpectedly while reserving the addresses of 1 '
                                    "host(s) (KeyError: 'missing'). This is a bug in netpool.ipam"), failed['msg']
    secret = _reserve.failure(RuntimeError('connecting to %s' % STORE), requests)
    assert 'pw-SECRET' not in secret['msg'] and 'pw-SECRET' not in secret['exception'], secret
