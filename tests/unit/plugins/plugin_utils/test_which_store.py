# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Every result and every failure names the store it read, and an unknown name suggests the nearest.

Through the action plugins and the lookup, as a play meets them: ``store`` in the result (an absolute path, or
a URL with its password masked), the same location at the end of a failure's ``msg``, never a secret; a pool,
key or owner that is not there names the nearest existing one (``difflib``)."""

import pytest

from ansible_collections.netpool.ipam.plugins.action.info import ActionModule as InfoAction
from ansible_collections.netpool.ipam.plugins.action.pool import ActionModule as PoolAction
from ansible_collections.netpool.ipam.plugins.action.reservation import ActionModule as ReservationAction
from ansible_collections.netpool.ipam.plugins.plugin_utils._task import _adapter
from ansible_collections.netpool.ipam.tests.support.reliability import action
from ansible_collections.netpool.ipam.tests.support.plugins import lookup


def test_results_name_the_store_they_read_as_an_absolute_path(workdir):
    (workdir / 'plans').mkdir()
    result = action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29', 'store': 'plans/ipam.json'}).run(task_vars={})
    assert result['store'] == str(workdir / 'plans' / 'ipam.json')
    result = action(InfoAction, {}).run(task_vars={})
    assert result['store'] == str(workdir / 'ipam.sqlite') and result['pools'] == []
    assert not (workdir / 'ipam.sqlite').exists()     # a read creates nothing


def test_pool_not_found_names_the_store_and_the_likely_cause(workdir):
    """Run from the wrong directory: the default store there has no pool at all."""
    result = action(ReservationAction, {'pool': 'vms', 'owner': 'h1'}).run(task_vars={})
    assert result['error'] == 'pool_not_found' and result['store'] == str(workdir / 'ipam.sqlite')
    assert result['msg'].endswith('(store: %s)' % (workdir / 'ipam.sqlite'))
    assert 'has no pool at all: is this the store you meant?' in result['msg']
    with pytest.raises(_adapter.LookupIpamError) as error:
        lookup(['vms'], owner='h1')
    assert "Pool 'vms' does not exist" in str(error.value)
    assert '(store: %s)' % (workdir / 'ipam.sqlite') in str(error.value)


def test_an_unknown_pool_suggests_the_nearest(workdir):
    for name, cidr in (('web', '10.0.0.0/29'), ('db', '10.0.1.0/29')):
        action(PoolAction, {'name': name, 'cidr': cidr}).run(task_vars={})
    result = action(ReservationAction, {'pool': 'wbe', 'owner': 'h1'}).run(task_vars={})
    assert result['error'] == 'pool_not_found' and "Did you mean 'web'?" in result['msg'], result['msg']
    result = action(InfoAction, {'pool': 'dbb'}).run(task_vars={})
    assert result['error'] == 'pool_not_found' and "Did you mean 'db'?" in result['msg'], result['msg']
    result = action(PoolAction, {'name': 'child', 'parent': 'wbe', 'prefix_length': 30}).run(task_vars={})
    assert result['error'] == 'pool_not_found' and "Did you mean 'web'?" in result['msg'], result['msg']
    result = action(ReservationAction, {'pool': 'zzzzzz', 'owner': 'h1'}).run(task_vars={})
    assert result['error'] == 'pool_not_found' and 'Did you mean' not in result['msg'], result['msg']
    with pytest.raises(_adapter.LookupIpamError, match="Did you mean 'web'"):
        lookup(['wbe'], owner='h1')


def test_the_lookup_suggests_the_nearest_key_or_owner(workdir):
    action(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/29'}).run(task_vars={})
    action(ReservationAction, {'pool': 'web', 'owner': 'web1', 'key': 'eth0'}).run(task_vars={})
    with pytest.raises(_adapter.LookupIpamError) as error:
        lookup(['web'], owner='web1', key='eht0')
    msg = str(error.value)
    assert "Did you mean 'eth0'?" in msg and '(error not_reserved)' in msg
    assert '(store: %s)' % (workdir / 'ipam.sqlite') in msg
    with pytest.raises(_adapter.LookupIpamError, match="It holds key.s. 'eth0' there"):
        lookup(['web'], owner='web1')
    with pytest.raises(_adapter.LookupIpamError, match="No owner of that name.*Did you mean 'web1'"):
        lookup(['web'], owner='wbe1', key='eth0')


def test_a_store_url_is_named_without_its_password(workdir):
    """A PostgreSQL URL with a password: the location is named, never the password (store_token: below)."""
    from ansible_collections.netpool.ipam.tests.support import postgresql_server
    postgresql_server.require_server()
    with postgresql_server.fresh_schema('which') as (spec, _schema):
        spec = spec.replace('postgresql://postgres@', 'postgresql://postgres:pw-SECRET@')
        assert 'pw-SECRET' in spec
        args = {'pool': 'vms', 'owner': 'h1', 'store': spec}
        result = action(ReservationAction, args).run(task_vars={})
        assert result['error'] == 'pool_not_found', result
        assert result['store'].startswith('postgresql://postgres:********@127.0.0.1')
        assert '(store: postgresql://postgres:********@' in result['msg']
        assert 'pw-SECRET' not in repr(result)
        result = action(InfoAction, {'store': spec}).run(task_vars={})
        assert result['store'].startswith('postgresql://postgres:********@') and 'pw-SECRET' not in repr(result)
        with pytest.raises(_adapter.LookupIpamError) as error:
            lookup(['vms'], owner='h1', store=spec)
        assert 'postgresql://postgres:********@' in str(error.value)
        assert 'pw-SECRET' not in str(error.value)


def test_a_netbox_url_is_named_without_its_password_or_token(workdir):
    """A failure before any connection (a bad timeout) still names the store, never its secrets."""
    args = {'pool': 'vms', 'owner': 'h1', 'store': 'netbox+https://admin:pw-SECRET@netbox.example',
            'store_token': 'tok-SECRET', 'timeout': -1}
    result = action(ReservationAction, args).run(task_vars={})
    assert result['failed'], result
    text = repr(result)
    assert 'pw-SECRET' not in text and 'tok-SECRET' not in text
    assert result['store'] == 'netbox+https://admin:********@netbox.example'
    assert result['msg'].endswith('(store: netbox+https://admin:********@netbox.example)')
