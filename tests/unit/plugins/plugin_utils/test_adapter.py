# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The controller-side adapter (plugin_utils/_task/_adapter.py): the action plugins and the lookup."""

import ast
import os
import subprocess
import sys

import pytest

from ansible.errors import AnsibleError

from ansible_collections.netpool.ipam.plugins.action.pool import ActionModule as PoolAction
from ansible_collections.netpool.ipam.plugins.action.reservation import ActionModule as ReservationAction
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import ERRORS
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.plugin_utils._task import _adapter, _inprocess
from ansible_collections.netpool.ipam.tests.support.plugins import lookup
from ansible_collections.netpool.ipam.tests.support.reliability import action


def test_action_runs_in_process_relative_to_cwd(workdir):
    result = action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29'}, diff=True).run(task_vars={})
    assert result['changed'] and result['diff']['before'] == {}
    assert (workdir / 'ipam.sqlite').exists()
    result = action(ReservationAction, {'pool': 'web', 'owner': 'h1'}, check=True).run(task_vars={})
    assert result['reservation']['predicted'] and 'diff' not in result
    assert not PoolAction._requires_connection


def test_action_env_fallback(workdir, monkeypatch):
    monkeypatch.setenv('NETPOOL_IPAM_STORE', 'from-env.json')
    action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29'}).run(task_vars={})
    assert (workdir / 'from-env.json').exists()


def test_action_failures_have_codes(workdir):
    result = action(ReservationAction, {'pool': 'nope', 'owner': 'h1'}).run(task_vars={})
    assert result['failed'] and result['error'] == 'pool_not_found'
    result = action(ReservationAction, {'pool': 'web'}).run(task_vars={})
    assert result['failed'] and result['error'] == 'invalid_argument'
    result = action(PoolAction, {'name': 'web', 'bogus': 1, 'store_token': 'tok-SECRET'}).run(task_vars={})
    assert result['error'] == 'invalid_argument' and 'tok-SECRET' not in str(result)


def _bug(*args, **kwargs):
    raise ZeroDivisionError('boom near pw-SECRET')


def test_action_bug_message_says_what_was_done_and_keeps_the_traceback_for_vvv(workdir, monkeypatch):
    action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29'}).run(task_vars={})
    monkeypatch.setattr(Service, 'reserve', _bug)
    result = action(ReservationAction, {'pool': 'web', 'owner': 'h1', 'store_token': 'pw-SECRET'}).run(task_vars={})
    assert result['failed'] and result['error'] == 'internal_error' and result['error'] in ERRORS, result
    msg = result['msg']
    assert "reserving an address in pool 'web' for owner 'h1'" in msg and 'ipam.sqlite' in msg
    assert 'ZeroDivisionError' in msg and 'bug in netpool.ipam' in msg and 'ANSIBLE_DISPLAY_TRACEBACK=error' in msg
    assert 'Traceback' not in msg
    assert result['exception'].startswith('Traceback') and 'ZeroDivisionError' in result['exception']
    assert 'pw-SECRET' not in str(result)


def test_lookup_bug_is_an_internal_error(workdir, monkeypatch):
    action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29'}).run(task_vars={})
    monkeypatch.setattr(Service, 'get', _bug)
    with pytest.raises(_adapter.LookupIpamError) as error:
        lookup(['web'], owner='h1', store_token='pw-SECRET')
    assert error.value.error == 'internal_error' and '(error internal_error)' in str(error.value)
    assert "looking up the address of owner 'h1'" in str(error.value) and 'Traceback' not in str(error.value)
    cause = error.value.__cause__      # what Ansible shows with ANSIBLE_DISPLAY_TRACEBACK=error
    assert 'Traceback' in str(cause) and 'ZeroDivisionError' in str(cause)
    assert 'pw-SECRET' not in str(error.value) + str(cause)


def test_action_async_is_refused_with_a_code(workdir):
    plugin = action(PoolAction, {'name': 'web'})
    plugin._task.async_val = 10
    assert plugin.run(task_vars={})['error'] == 'invalid_argument'


def test_lookup(workdir):
    action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29', 'gateway': '10.0.0.1'}).run(task_vars={})
    with pytest.raises(AnsibleError, match=r'netpool\.ipam\.reservation.*allocate=true.*\(error not_reserved\)'):
        lookup(['web'], owner='h1')
    assert lookup(['web'], owner='h1', allocate=True) == ['10.0.0.2']
    assert lookup(['web'], owner='h1', format='cidr') == ['10.0.0.2/29']
    assert lookup(['web'], owner='h1', format='dict')[0]['gateway'] == '10.0.0.1'
    with pytest.raises(_adapter.LookupIpamError) as error:
        lookup(['nope'], owner='h1')
    assert error.value.error == 'pool_not_found'


def test_lookup_with_family_dual(workdir):
    """family='dual': both addresses, a list of two (IPv4 first) or with format='dict' {'ipv4': ..., 'ipv6': ...};
    allocate=true adds what is missing; without it an owner holding one family only is not_reserved naming the other."""
    action(PoolAction, {'name': 'web', 'subnets': [{'cidr': '10.0.0.0/29'}, {'cidr': '2001:db8::/64'}]}).run(
        task_vars={})
    action(ReservationAction, {'pool': 'web', 'owner': 'h1', 'family': 'ipv4'}).run(task_vars={})
    with pytest.raises(_adapter.LookupIpamError, match=r"no IPv6 address under key 'default'.*family: dual") as error:
        lookup(['web'], owner='h1', family='dual')
    assert error.value.error == 'not_reserved'
    with pytest.raises(_adapter.LookupIpamError, match='Give family: dual') as error:
        lookup(['web'], owner='h1', family='ipv6', allocate=True)
    assert error.value.error == 'invalid_argument'
    assert lookup(['web'], owner='h2', family='dual', allocate=True) == [['10.0.0.2', '2001:db8::1']]
    assert lookup(['web'], owner='h2', family='dual', format='cidr') == [['10.0.0.2/29', '2001:db8::1/64']]
    both = lookup(['web'], owner='h2', family='dual', format='dict')[0]
    assert (both['ipv4']['address'], both['ipv6']['address'], both['ipv6']['prefix_length']) == (
        '10.0.0.2', '2001:db8::1', 64)
    assert lookup(['web'], owner='h2', family='ipv6') == ['2001:db8::1']
    assert lookup(['web'], owner='h2') == ['10.0.0.2']
    assert lookup(['web'], owner='h1', family='dual', allocate=True) == [['10.0.0.1', '2001:db8::2']]
    with pytest.raises(_adapter.LookupIpamError, match='no IPv6 subnet') as error:
        action(PoolAction, {'name': 'v4', 'cidr': '10.1.0.0/29'}).run(task_vars={})
        lookup(['v4'], owner='h1', family='dual', allocate=True)
    assert error.value.error == 'invalid_argument'


def test_lookup_hides_the_password(workdir):
    with pytest.raises(AnsibleError) as error:
        lookup(['web'], owner='h1', store='netbox+https://u:pw-SECRET@127.0.0.1:9')
    assert 'pw-SECRET' not in str(error.value) and '(error invalid_argument)' in str(error.value)


def test_lookup_options_are_cached_by_value_and_type(workdir):
    """1, 1.0 and True are equal keys in Python: the per-process option cache must not give one the other's."""
    action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29', 'namespace': '1'}).run(task_vars={})
    assert lookup(['web'], owner='h1', namespace=1, allocate=True) == ['10.0.0.1']
    with pytest.raises(_adapter.LookupIpamError) as error:
        lookup(['web'], owner='h1', namespace=True, allocate=True)    # namespace 'True': it has no pool web
    assert error.value.error == 'pool_not_found'


def test_a_task_is_validated_without_copying_the_argument_spec(monkeypatch):
    """The spec and its validator are made once per process (a deep copy per task cost more than the
    validation itself); validating leaves them as they were."""
    import copy
    from ansible_collections.netpool.ipam.plugins.module_utils._task import _options
    spec = copy.deepcopy(_inprocess.VALIDATORS['reservation'][0])

    def refused(*_args, **_kwargs):
        raise AssertionError('the argument spec was copied')
    monkeypatch.setattr(_options.copy, 'deepcopy', refused)
    params, failed = _inprocess.validate('reservation', {'pool': 'web', 'owner': 'h1', 'metadata': {'a': [1]}})
    assert failed is None and params['owner'] == 'h1' and params['state'] == 'present'
    params, failed = _inprocess.validate('reservation', {'pool': 'web'})
    assert params is None and failed['error'] == 'invalid_argument'
    monkeypatch.undo()
    assert _inprocess.VALIDATORS['reservation'][0] == spec == _options.MODULES['reservation']['argument_spec']


def test_the_controller_imports_the_stores_the_workers_would():
    """The action plugins are loaded in the controller, and every host's worker is a fork of it: the
    local stores and the NetBox store (with ``requests``) are imported there once, not by each worker (half the
    Ansible side's CPU of a NetBox task on 50 hosts). PostgreSQL's driver is not."""
    code = ('import sys\n'
            'from ansible_collections.netpool.ipam.plugins.plugin_utils._task import _adapter\n'
            'print(sorted(m.rsplit(".", 1)[-1] for m in sys.modules if "._stores." in m or m in ("requests", "psycopg")))\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.check_output([sys.executable, '-c', code], env=env, universal_newlines=True)
    imported = ast.literal_eval(out.strip())
    assert {'_sqlite', '_json', '_store', '_freespace', '_client', 'requests'} <= set(imported), imported
    assert 'psycopg' not in imported and '_postgresql' not in imported, imported


def test_the_reserve_role_imports_the_local_stores_and_nothing_it_does_not_need():
    """The reserve role's action imports the local stores its tasks open, and neither the NetBox store
    (``requests``), dnspython (a reservation without a hostname needs none) nor ``urllib.request`` (``ssl``)."""
    code = ('import sys\n'
            'from ansible_collections.netpool.ipam.plugins.action import _reserve_request\n'
            'print(sorted(m for m in sys.modules if "._stores." in m or m.split(".")[0] in '
            '("requests", "psycopg", "dns", "ssl", "urllib") and m != "urllib.parse"))\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.check_output([sys.executable, '-c', code], env=env, universal_newlines=True)
    imported = [m.rsplit('.', 1)[-1] for m in ast.literal_eval(out.strip().splitlines()[-1])]
    assert {'_sqlite', '_json'} <= set(imported), imported
    assert not {'_client', '_store', 'requests', 'psycopg', 'dns', 'ssl', 'request'} & set(imported), imported
