# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The module files run directly (the module adapter, module_utils/_task/_module.py): exit_json / fail_json."""

import json
import os
import shutil
import subprocess

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.netpool.ipam.plugins.modules import info, pool, range as range_module, reservation
from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support.reliability import ROOT, ansible_bin, ansible_env


def run(module, args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            module.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


@pytest.fixture
def store(tmp_path):
    return str(tmp_path / 'ipam.sqlite')


def test_modules_run_directly(store, capsys):
    code, out = run(pool, {'name': 'web', 'cidr': '10.0.0.0/29', 'store': store, '_ansible_diff': True}, capsys)
    assert code == 0 and out['changed'] and out['diff']['before'] == {}
    code, out = run(range_module, {'pool': 'web', 'range': '10.0.0.6', 'kind': 'excluded', 'store': store}, capsys)
    assert code == 0 and out['pool']['subnets'][0]['exclude'] == ['10.0.0.6-10.0.0.6']
    code, out = run(reservation, {'pool': 'web', 'owner': 'h1', 'store': store, '_ansible_check_mode': True}, capsys)
    assert code == 0 and out['reservation']['predicted']
    code, out = run(info, {'store': store}, capsys)
    assert code == 0 and out['reservations'] == [] and not out['changed']


def test_service_errors_fail_with_their_code(store, capsys):
    code, out = run(reservation, {'pool': 'nope', 'owner': 'h1', 'store': store}, capsys)
    assert code == 1 and out['failed'] and out['error'] == 'pool_not_found'


def test_option_errors_fail_with_invalid_argument(store, capsys):
    code, out = run(pool, {'name': 'web', 'colour': 'blue', 'store': store}, capsys)
    assert code == 1 and out['error'] == 'invalid_argument'


def test_owners_in_one_task(store, capsys):
    """owners: reservations in list order, one per element (a string or a dict), returned as reservations."""
    run(pool, {'name': 'web', 'cidr': '10.0.0.0/28', 'store': store}, capsys)
    args = {'pool': 'web', 'owners': ['b', {'owner': 'a', 'metadata': {'mac': '52:54:00:00:00:0a'}}], 'store': store,
            '_ansible_diff': True}
    code, out = run(reservation, args, capsys)
    assert code == 0 and out['changed'] and 'reservation' not in out
    assert [(r['owner'], r['address']) for r in out['reservations']] == [('b', '10.0.0.1'), ('a', '10.0.0.2')]
    assert out['reservations'][1]['metadata'] == {'mac': '52:54:00:00:00:0a'}
    assert [r['owner'] for r in out['diff']['after']['reservations']] == ['b', 'a']
    code, out = run(reservation, args, capsys)
    assert code == 0 and not out['changed']
    code, out = run(reservation, dict(args, owner='c'), capsys)
    assert code == 1 and out['error'] == 'invalid_argument' and 'mutually exclusive' in out['msg']
    code, out = run(reservation, {'pool': 'web', 'store': store}, capsys)
    assert code == 1 and out['error'] == 'invalid_argument' and 'owner, owners' in out['msg']
    code, out = run(reservation, {'pool': 'web', 'owners': ['a', 'b'], 'state': 'absent', 'store': store}, capsys)
    assert code == 0 and [r['owner'] for r in out['released']] == ['a', 'b']


def test_family_dual(store, capsys):
    """family: dual returns reservation and reservation6 (reservations and reservations6 with owners), and a diff of
    both; a rerun changes nothing; state absent with family dual releases both; a pool of one family fails."""
    run(pool, {'name': 'web', 'subnets': [{'cidr': '10.0.0.0/28'}, {'cidr': '2001:db8::/64'}], 'store': store}, capsys)
    args = {'pool': 'web', 'owner': 'a', 'family': 'dual', 'store': store, '_ansible_diff': True}
    code, out = run(reservation, args, capsys)
    assert code == 0 and out['changed']
    assert (out['reservation']['address'], out['reservation6']['address']) == ('10.0.0.1', '2001:db8::1')
    assert out['diff']['before'] == {'reservation': {}, 'reservation6': {}}
    assert out['diff']['after']['reservation6']['cidr'] == '2001:db8::1/64'
    code, out = run(reservation, args, capsys)
    assert code == 0 and not out['changed']
    many = {'pool': 'web', 'owners': ['b', 'a'], 'family': 'dual', 'store': store}
    code, out = run(reservation, many, capsys)
    assert code == 0 and out['changed'] and 'reservation' not in out
    assert [r['address'] for r in out['reservations']] == ['10.0.0.2', '10.0.0.1']
    assert [r['address'] for r in out['reservations6']] == ['2001:db8::2', '2001:db8::1']
    code, out = run(reservation, dict(many, _ansible_check_mode=True, owners=['c']), capsys)
    assert code == 0 and [r['predicted'] for r in out['reservations'] + out['reservations6']] == [True, True]
    code, out = run(reservation, {'pool': 'web', 'owner': 'a', 'key': 'default', 'family': 'dual',
                                  'state': 'absent', 'store': store}, capsys)
    assert code == 0 and [r['address'] for r in out['released']] == ['10.0.0.1', '2001:db8::1']
    run(pool, {'name': 'v4', 'cidr': '10.1.0.0/28', 'store': store}, capsys)
    code, out = run(reservation, dict(args, pool='v4'), capsys)
    assert code == 1 and out['error'] == 'invalid_argument' and 'no IPv6 subnet' in out['msg']
    code, out = run(reservation, dict(args, address='10.0.0.9'), capsys)
    assert code == 1 and out['error'] == 'invalid_argument' and 'family: dual' in out['msg']


def test_align_with(store, capsys):
    """align_with: the host part of the owner's reservation in another pool, moved to on a rerun after a move there,
    check mode and diff; not_reserved for an owner with nothing there; info verify names a mismatch."""
    run(pool, {'name': 'mgmt', 'cidr': '10.1.0.0/24', 'store': store}, capsys)
    run(pool, {'name': 'storage', 'cidr': '10.2.0.0/24', 'store': store}, capsys)
    run(reservation, {'pool': 'mgmt', 'owner': 'a', 'address': '10.1.0.23', 'store': store}, capsys)
    args = {'pool': 'storage', 'owner': 'a', 'align_with': 'mgmt', 'store': store, '_ansible_diff': True}
    code, out = run(reservation, dict(args, _ansible_check_mode=True), capsys)
    assert code == 0 and out['changed'] and out['reservation']['address'] == '10.2.0.23'
    code, out = run(info, {'pool': 'storage', 'store': store}, capsys)
    assert out['reservations'] == []
    code, out = run(reservation, args, capsys)
    assert code == 0 and out['changed'] and out['diff']['after']['address'] == '10.2.0.23'
    assert out['reservation']['static'] is True
    code, out = run(reservation, args, capsys)
    assert code == 0 and not out['changed']
    run(reservation, {'pool': 'mgmt', 'owner': 'a', 'address': '10.1.0.24', 'store': store}, capsys)
    code, out = run(info, {'verify': True, 'store': store}, capsys)
    assert [p['code'] for p in out['problems']] == ['alignment_mismatch']
    code, out = run(reservation, args, capsys)
    assert code == 0 and out['diff']['before']['address'] == '10.2.0.23'
    assert out['reservation']['address'] == '10.2.0.24'
    code, out = run(reservation, dict(args, owner='b'), capsys)
    assert code == 1 and out['error'] == 'not_reserved' and "'mgmt'" in out['msg']
    code, out = run(reservation, dict(args, address='10.2.0.5'), capsys)
    assert code == 1 and out['error'] == 'invalid_argument'
    code, out = run(reservation, dict(args, align_with=''), capsys)
    assert code == 1 and out['error'] == 'invalid_argument'


@pytest.mark.parametrize('name, example', [('stores', 'ipam.sqlite'), ('stores.json', 'ipam.json')])
@pytest.mark.parametrize('given', ['store', 'NETPOOL_IPAM_STORE'])
def test_a_directory_as_store_says_so_and_names_a_file(tmp_path, capsys, monkeypatch, name, example, given):
    """store (or NETPOOL_IPAM_STORE) naming a directory fails store_unavailable saying it is a directory and
    which file to name instead, not "[Errno 21] Is a directory"; reads and check mode too."""
    directory = tmp_path / name
    directory.mkdir()
    args = {'store': str(directory)}
    if given == 'NETPOOL_IPAM_STORE':
        monkeypatch.setenv('NETPOOL_IPAM_STORE', str(directory))
        args = {}
    for module, more in ((pool, {'name': 'web', 'cidr': '10.0.0.0/29'}),
                         (pool, {'name': 'web', 'cidr': '10.0.0.0/29', '_ansible_check_mode': True}), (info, {})):
        code, out = run(module, dict(args, **more), capsys)
        assert code == 1 and out['error'] == 'store_unavailable', out
        assert 'is a directory, not a store file' in out['msg'] and 'Errno' not in out['msg'], out
        assert 'store: %s' % (directory / example) in out['msg'], out
        assert out['store'] == str(directory)
    assert list(directory.iterdir()) == []


def test_token_is_not_echoed(tmp_path, capsys):
    # nothing listens there: retried until the timeout, which is short here (the default would wait 30 s)
    code, out = run(info, {'store': 'netbox+https://127.0.0.1:9', 'store_token': 'tok-SECRET', 'timeout': 1}, capsys)
    assert code == 1 and out['error'] == 'store_unavailable'
    assert 'tok-SECRET' not in json.dumps(out)


def test_a_bug_is_an_internal_error_with_its_traceback_apart(store, capsys, monkeypatch):
    """An exception that is not an IpamError fails the module with internal_error (not unsupported, not a
    MODULE FAILURE): msg says what was being done, the traceback is in exception, secrets hidden in both."""
    from ansible.module_utils._internal import _traceback
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service

    def bug(*args, **kwargs):
        raise KeyError('tok-SECRET')
    monkeypatch.setattr(Service, 'pool', bug)
    # as with ANSIBLE_DISPLAY_TRACEBACK=error: Ansible keeps a module's traceback only when asked to
    monkeypatch.setattr(_traceback, '_is_traceback_enabled', lambda event: True)
    code, out = run(pool, {'name': 'web', 'cidr': '10.0.0.0/29', 'store': store, 'store_token': 'tok-SECRET'}, capsys)
    assert code == 1 and out['failed'] and out['error'] == 'internal_error', out
    assert "creating or updating pool 'web'" in out['msg'] and 'KeyError' in out['msg'] and 'bug' in out['msg']
    assert 'ANSIBLE_DISPLAY_TRACEBACK=error' in out['msg'] and 'Traceback' not in out['msg']
    assert 'Traceback' in out['exception'] and 'KeyError' in out['exception']
    assert 'tok-SECRET' not in json.dumps(out)


def test_a_child_never_hands_out_what_its_parent_withholds(store, capsys):
    """the parent's network address (a /31 child has none of its own) and a gateway the
    parent gets after carving are free in no child; verify finds the store clean."""
    run(pool, {'name': 'site', 'cidr': '10.0.0.0/24', 'store': store}, capsys)
    code, out = run(pool, {'name': 'p2p', 'parent': 'site', 'prefix_length': 31, 'store': store}, capsys)
    assert code == 0 and out['pool']['subnets'][0]['cidr'] == '10.0.0.0/31'
    code, out = run(pool, {'name': 'lan', 'parent': 'site', 'prefix_length': 28, 'store': store}, capsys)
    assert code == 0 and out['pool']['subnets'][0]['cidr'] == '10.0.0.16/28'
    code, out = run(pool, {'name': 'site', 'cidr': '10.0.0.0/24', 'gateway': '10.0.0.17', 'store': store}, capsys)
    assert code == 0 and out['changed']
    code, out = run(reservation, {'pool': 'p2p', 'owner': 'r1', 'store': store}, capsys)
    assert code == 0 and out['reservation']['address'] == '10.0.0.1'
    code, out = run(reservation, {'pool': 'p2p', 'owner': 'r2', 'store': store}, capsys)
    assert code == 1 and out['error'] == 'pool_exhausted'
    code, out = run(reservation, {'pool': 'lan', 'owner': 'h1', 'store': store}, capsys)
    assert code == 0 and out['reservation']['address'] == '10.0.0.18'
    code, out = run(reservation, {'pool': 'lan', 'owner': 'h2', 'address': '10.0.0.17', 'store': store}, capsys)
    assert code == 1 and out['error'] == 'address_excluded'
    code, out = run(info, {'store': store, 'verify': True}, capsys)
    assert code == 0 and out['problems'] == []


def test_a_resize_never_leaves_a_host_on_the_new_network_address(store, capsys):
    """10.1.0.0/23 with a host on 10.1.1.0, then cidr 10.1.1.0/24."""
    run(pool, {'name': 'p', 'cidr': '10.1.0.0/23', 'store': store}, capsys)
    code, out = run(reservation, {'pool': 'p', 'owner': 'db1', 'address': '10.1.1.0', 'store': store}, capsys)
    assert code == 0
    code, out = run(pool, {'name': 'p', 'cidr': '10.1.1.0/24', 'store': store}, capsys)
    assert code == 1 and out['error'] == 'invalid_argument'
    assert "owner 'db1'" in out['msg'] and '10.1.1.0,' in out['msg'] and 'network address' in out['msg']
    code, out = run(info, {'store': store, 'pool': 'p'}, capsys)
    assert out['pools'][0]['subnets'][0]['cidr'] == '10.1.0.0/23'


def test_a_deleted_childs_resting_addresses_rest_in_its_parent(store, capsys):
    """the parent does not hand out at once an address still inside the child's reuse
    delay."""
    run(pool, {'name': 'site', 'cidr': '10.2.0.0/28', 'store': store}, capsys)
    run(pool, {'name': 'kid', 'parent': 'site', 'prefix_length': 29, 'reuse_delay': 3600, 'store': store}, capsys)
    code, out = run(reservation, {'pool': 'kid', 'owner': 'h1', 'store': store}, capsys)
    assert out['reservation']['address'] == '10.2.0.1'
    run(reservation, {'pool': 'kid', 'owner': 'h1', 'state': 'absent', 'store': store}, capsys)
    code, out = run(pool, {'name': 'kid', 'state': 'absent', 'store': store}, capsys)
    assert code == 0 and out['changed']
    code, out = run(reservation, {'pool': 'site', 'owner': 'h2', 'store': store}, capsys)
    assert code == 0 and out['reservation']['address'] == '10.2.0.2'


def test_vips_beside_nodes_in_one_24(store, capsys):
    """the pool module with parent and ranges (no cidr) makes a child by ranges; check mode predicts
    it; the range module resizes it; a rerun changes nothing; parent with neither prefix_length nor ranges, and
    ranges with prefix_length, fail with invalid_argument."""
    run(pool, {'name': 'cluster', 'cidr': '10.3.0.0/24', 'gateway': '10.3.0.1', 'dns': ['10.3.0.53'],
               'ranges': ['10.3.0.10-10.3.0.200'], 'store': store}, capsys)
    vips = {'name': 'vips', 'parent': 'cluster', 'ranges': ['10.3.0.240-10.3.0.250'], 'store': store}
    code, checked = run(pool, dict(vips, _ansible_check_mode=True, _ansible_diff=True), capsys)
    assert code == 0 and checked['changed'] and checked['diff']['before'] == {}
    code, out = run(pool, vips, capsys)
    assert code == 0 and out['changed'] and out['pool'] == checked['pool']
    subnet = out['pool']['subnets'][0]
    assert (out['pool']['parent'], out['pool']['by_ranges'], subnet['cidr'], subnet['gateway'], subnet['dns'],
            subnet['ranges']) == ('cluster', True, '10.3.0.0/24', '10.3.0.1', ['10.3.0.53'], ['10.3.0.240-10.3.0.250'])
    code, out = run(pool, vips, capsys)
    assert code == 0 and not out['changed']
    code, out = run(reservation, {'pool': 'vips', 'owner': 'api', 'store': store}, capsys)
    assert (out['reservation']['address'], out['reservation']['gateway']) == ('10.3.0.240', '10.3.0.1')
    code, out = run(range_module, {'pool': 'vips', 'range': ['10.3.0.251'], 'store': store}, capsys)
    assert code == 0 and out['pool']['subnets'][0]['ranges'] == ['10.3.0.240-10.3.0.251'] and out['released'] == []
    code, out = run(range_module, {'pool': 'vips', 'range': ['10.3.0.240'], 'state': 'absent', 'store': store}, capsys)
    assert code == 1 and out['error'] == 'pool_in_use' and out['addresses'] == ['10.3.0.240']
    for bad in ({'parent': 'cluster'}, {'parent': 'cluster', 'ranges': ['10.3.0.230'], 'prefix_length': 28}):
        code, out = run(pool, dict(bad, name='other', store=store), capsys)
        assert code == 1 and out['error'] == 'invalid_argument', out
    code, out = run(info, {'store': store, 'verify': True}, capsys)
    assert code == 0 and out['problems'] == []


def test_an_owner_that_comes_back_within_the_reuse_delay_keeps_its_address(store, capsys):
    """Released, then reserved again while its address rests (reuse_delay): the same address, recorded as a
    return; another owner that came in between has the next one."""
    run(pool, {'name': 'web', 'cidr': '10.0.0.0/28', 'reuse_delay': 3600, 'store': store}, capsys)
    for owner in ('h1', 'h2'):
        run(reservation, {'pool': 'web', 'owner': owner, 'store': store}, capsys)
    code, out = run(reservation, {'pool': 'web', 'owner': 'h1', 'state': 'absent', 'store': store}, capsys)
    assert code == 0 and out['released'][0]['address'] == '10.0.0.1'
    code, out = run(reservation, {'pool': 'web', 'owner': 'h3', 'store': store}, capsys)
    assert out['reservation']['address'] == '10.0.0.3'
    code, out = run(reservation, {'pool': 'web', 'owner': 'h1', 'store': store, '_ansible_check_mode': True}, capsys)
    assert code == 0 and out['changed'] and out['reservation']['address'] == '10.0.0.1'
    code, out = run(reservation, {'pool': 'web', 'owner': 'h1', 'store': store}, capsys)
    assert code == 0 and out['changed'] and out['reservation']['address'] == '10.0.0.1'
    code, out = run(info, {'owner': 'h1', 'history': True, 'store': store}, capsys)
    assert [e['action'] for e in out['history']] == ['reserve', 'release', 'return']


@pytest.mark.parametrize('name', stores.FILE_NAMES)
def test_a_module_file_runs_without_its_action_plugin(tmp_path, name):
    """AnsiballZ packs what a module file imports, and the store registry names the stores by string: without its
    action plugin (a copy of the collection that lacks plugins/action) the module must still carry its stores."""
    copy = tmp_path / 'collections' / 'ansible_collections' / 'netpool' / 'ipam'
    shutil.copytree(os.path.join(ROOT, 'plugins'), str(copy / 'plugins'),
                    ignore=shutil.ignore_patterns('action', '__pycache__'))
    shutil.copytree(os.path.join(ROOT, 'meta'), str(copy / 'meta'))
    shutil.copy(os.path.join(ROOT, 'galaxy.yml'), str(copy))
    store = str(tmp_path / name)
    env = ansible_env(ANSIBLE_COLLECTIONS_PATH=str(tmp_path / 'collections'))
    outputs = []
    for module, args in (('pool', 'name=web cidr=10.0.0.0/29'), ('reservation', 'pool=web owner=vm1')):
        proc = subprocess.run([ansible_bin('ansible'), 'localhost', '-m', 'netpool.ipam.' + module, '-a',
                               '%s store=%s' % (args, store)], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600, check=False)
        outputs.append(proc.stdout)
        assert proc.returncode == 0, proc.stdout
    assert '"address": "10.0.0.1"' in outputs[1]
