# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A store the user may read but not write, through the action plugins and the lookup.

The tests run as root, whom file permissions do not stop: a read-only store is made with ``chattr +i`` (the
immutable attribute, which stops root too on ext4 and most Linux file systems), on the store file or on its
directory. ``os.access`` sees it as a user without write access would. Where ``chattr`` cannot set it (another
file system, no CAP_LINUX_IMMUTABLE) the tests skip, saying so.

Reads, the lookup, check mode and a rerun that changes nothing work, and leave no ``-wal``/``-shm`` file behind; a
change fails ``store_unavailable`` saying the store is read-only and what to do, and nothing is written. A SQLite
file that is not a database names itself and says how to restore it.
"""

import os
import subprocess

import pytest

from ansible_collections.netpool.ipam.plugins.action.info import ActionModule as InfoAction
from ansible_collections.netpool.ipam.plugins.action.pool import ActionModule as PoolAction
from ansible_collections.netpool.ipam.plugins.action.reservation import ActionModule as ReservationAction
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.plugin_utils._task import _adapter
from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support.reliability import action
from ansible_collections.netpool.ipam.tests.support.plugins import lookup


def chattr(flag, path):
    return subprocess.run(['chattr', flag, str(path)], capture_output=True, text=True, check=False)


@pytest.fixture
def immutable():
    """``immutable(path)`` sets ``chattr +i`` on ``path``; every one is cleared at the end of the test."""
    made = []

    def make(path):
        proc = chattr('+i', path)
        if proc.returncode != 0:
            pytest.skip('chattr +i does not work here (%s): no way to make a store read-only for root'
                        % (proc.stderr.strip() or proc.returncode))
        made.append(path)
        assert not os.access(str(path), os.W_OK)

    yield make
    for path in reversed(made):
        chattr('-i', path)


def run(cls, args, check=False):
    return action(cls, args, check=check).run(task_vars={})


def files(directory):
    return sorted(os.listdir(str(directory)))


@pytest.mark.parametrize('name', stores.FILE_NAMES)
@pytest.mark.parametrize('what', ['file', 'directory'])
def test_a_read_only_store_can_be_read_and_refuses_a_change(workdir, immutable, name, what):
    (workdir / 'plans').mkdir()
    store = str(workdir / 'plans' / name)
    assert not run(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/28', 'store': store}).get('failed')
    assert run(ReservationAction, {'pool': 'web', 'owner': 'web1', 'store': store})['reservation']['address'] \
        == '10.0.0.1'
    _runner.close_all()
    before = files(workdir / 'plans')
    with open(store, 'rb') as f:
        content = f.read()
    immutable(store if what == 'file' else workdir / 'plans')

    result = run(InfoAction, {'store': store})
    assert not result.get('failed'), result
    assert [p['name'] for p in result['pools']] == ['web'] and result['store'] == store
    assert lookup(['web'], owner='web1', store=store) == ['10.0.0.1']
    rerun = run(ReservationAction, {'pool': 'web', 'owner': 'web1', 'store': store})
    assert not rerun.get('failed') and rerun['changed'] is False, rerun
    rerun = run(ReservationAction, {'pool': 'web', 'owners': ['web1'], 'store': store})    # roles/reserve's call
    assert not rerun.get('failed') and rerun['changed'] is False, rerun
    rerun = run(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/28', 'store': store})
    assert not rerun.get('failed') and rerun['changed'] is False, rerun
    predicted = run(ReservationAction, {'pool': 'web', 'owner': 'web2', 'store': store}, check=True)
    assert not predicted.get('failed') and predicted['reservation']['address'] == '10.0.0.2', predicted

    change = run(ReservationAction, {'pool': 'web', 'owner': 'web2', 'store': store})
    assert change['failed'] and change['error'] == 'store_unavailable', change
    assert change.get('read_only') is True, change
    assert 'is read-only (' in change['msg'] and 'nothing was written' in change['msg']
    assert 'write access' in change['msg'] and 'chattr -i' in change['msg']
    assert ('the file is not writable' if what == 'file' else 'its directory') in change['msg'], change['msg']
    with pytest.raises(_adapter.LookupIpamError, match='read-only'):
        lookup(['web'], owner='web3', store=store, allocate=True)

    _runner.close_all()
    assert files(workdir / 'plans') == before      # no -wal/-shm (nor lock, nor temporary) file left behind
    with open(store, 'rb') as f:
        assert f.read() == content


@pytest.mark.parametrize('name', stores.FILE_NAMES)
def test_a_read_only_store_of_the_version_before_is_read_and_migrated_in_memory_only(workdir, immutable, name):
    """A store of the schema version before today's that the user may not write is not migrated on disk: each
    task reads it through the migration in memory (SQLite: in its copy), a rerun changes nothing, a change is
    refused as read-only, and the file stays as it was (at its version)."""
    import shutil   # pylint: disable=import-outside-toplevel
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import SCHEMA_VERSION
    from ansible_collections.netpool.ipam.tests.support.reliability import FIXTURES

    store = str(workdir / name)
    shutil.copyfile(os.path.join(FIXTURES, 'state-v%d.%s' % (SCHEMA_VERSION - 1, name.split('.')[1])), store)
    with open(store, 'rb') as f:
        content = f.read()
    immutable(store)
    for dummy in range(2):
        result = run(InfoAction, {'store': store, 'pool': 'web'})
        assert not result.get('failed') and [p['name'] for p in result['pools']] == ['web'], result
        rerun = run(ReservationAction, {'pool': 'web', 'owner': 'web2', 'key': 'eth1', 'address': '10.0.0.200',
                                        'store': store})
        assert not rerun.get('failed') and rerun['changed'] is False, rerun
        change = run(ReservationAction, {'pool': 'web', 'owner': 'newcomer', 'store': store})
        assert change['failed'] and change.get('read_only') is True, change
        _runner.close_all()
    assert set(files(workdir)) <= set([name, name + '.lock'])     # (the lock file: the refused change's)
    with open(store, 'rb') as f:
        assert f.read() == content


def test_a_new_store_in_a_read_only_directory_says_so(workdir, immutable):
    (workdir / 'plans').mkdir()
    immutable(workdir / 'plans')
    store = str(workdir / 'plans' / 'ipam.sqlite')
    result = run(InfoAction, {'store': store})
    assert not result.get('failed') and result['pools'] == []
    result = run(PoolAction, {'name': 'web', 'cidr': '10.0.0.0/28', 'store': store})
    assert result['failed'] and result['error'] == 'store_unavailable', result
    assert 'is not writable' in result['msg'] and str(workdir / 'plans') in result['msg'], result['msg']


@pytest.mark.parametrize('content', [b'this is not a database, it is a text file\n' * 40, b'\0' * 4096 + b'x'])
def test_a_file_that_is_not_a_database_says_how_to_restore_it(workdir, content):
    store = workdir / 'ipam.sqlite'
    store.write_bytes(content)
    for cls, args in ((InfoAction, {}), (PoolAction, {'name': 'web', 'cidr': '10.0.0.0/28'})):
        result = run(cls, args)
        assert result['failed'] and result['error'] == 'store_unavailable', result
        msg = result['msg']
        assert 'is not an SQLite database' in msg and str(store) in msg, msg
        assert 'backup' in msg and 'docs/reliability.md' in msg and 'mv %s %s.damaged' % (store, store) in msg
    with pytest.raises(_adapter.LookupIpamError, match='is not an SQLite database'):
        lookup(['web'], owner='h1')
    assert store.read_bytes() == content and files(workdir) == ['ipam.sqlite']


def test_a_rerun_of_the_reserve_role_on_a_read_only_store(tmp_path, immutable):
    """What a user reran: roles/reserve, the lookup and info, through ansible-playbook, on an immutable store."""
    import json     # pylint: disable=import-outside-toplevel
    import yaml     # pylint: disable=import-outside-toplevel
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
    from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook

    store = tmp_path / 'ipam.sqlite'
    service = Service(open_store(str(store)))
    service.pool('web', subnets=[{'cidr': '10.0.0.0/28'}])
    service.reserve_owners('web', ['web1', 'web2'])
    service.store.close()
    play = [{'hosts': 'all', 'gather_facts': False, 'roles': [{'role': 'netpool.ipam.reserve'}], 'tasks': [
        {'name': 'info', 'netpool.ipam.info': {}, 'register': 'read', 'run_once': True, 'delegate_to': 'localhost'},
        {'name': 'write', 'ansible.builtin.copy': {'dest': str(tmp_path / 'out' / '{{ inventory_hostname }}.json'),
                                                   'mode': '0600', 'content': "{{ {'address': ipam_address, 'lookup':"
                                                   " lookup('netpool.ipam.address', 'web', owner=inventory_hostname),"
                                                   " 'pools': read.pools | length} | to_json }}"}}]}]
    (tmp_path / 'play.yml').write_text(yaml.safe_dump(play))
    (tmp_path / 'hosts.ini').write_text('[web]\nweb1\nweb2\n[all:vars]\nipam_pool=web\nansible_connection=local\n')
    (tmp_path / 'out').mkdir()
    before = files(tmp_path)
    immutable(store)
    proc = run_playbook('-i', 'hosts.ini', 'play.yml', cwd=tmp_path, apart=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count('changed: [') == 2, proc.stdout      # the two files written, nothing in the store
    for host, address in (('web1', '10.0.0.1'), ('web2', '10.0.0.2')):
        assert json.loads((tmp_path / 'out' / ('%s.json' % host)).read_text()) == {
            'address': address, 'lookup': address, 'pools': 1}
    assert files(tmp_path) == before
