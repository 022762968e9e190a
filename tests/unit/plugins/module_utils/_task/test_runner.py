# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The option mapping of the modules (module_utils/_task/_runner.py and _options.py): shorthand, state absent,
check and diff, the per-process store cache and secret scrubbing. The service itself is tested by the
store conformance suite."""

import os

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, PoolExhausted, PoolNotFound
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import MODULES, STORE_OPTIONS, module_kwargs
from ansible_collections.netpool.ipam.tests.support import services, stores
from ansible_collections.netpool.ipam.tests.support.plugins import params


@pytest.fixture
def store(tmp_path):
    return str(tmp_path / 'ipam.sqlite')


def test_every_module_has_the_store_options():
    for name, spec in MODULES.items():
        for option in STORE_OPTIONS:
            assert option in spec['argument_spec'], (name, option)
    assert STORE_OPTIONS['store_token']['no_log'] is True


def test_store_env_fallback(monkeypatch, tmp_path):
    monkeypatch.setenv('NETPOOL_IPAM_STORE', str(tmp_path / 'env.json'))
    monkeypatch.setenv('NETPOOL_IPAM_STORE_TOKEN', 'tok')
    result = ArgumentSpecValidator(**module_kwargs('info')).validate({})
    assert result.validated_parameters['store'] == str(tmp_path / 'env.json')
    assert result.validated_parameters['store_token'] == 'tok'
    monkeypatch.delenv('NETPOOL_IPAM_STORE')
    assert ArgumentSpecValidator(**module_kwargs('info')).validate({}).validated_parameters['store'] == 'ipam.sqlite'


def test_shorthand_becomes_one_subnet():
    p = {'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'dns': None, 'ranges': ['10.0.0.10-10.0.0.20'],
         'exclude': None, 'subnets': None}
    assert _runner.pool_subnets(p) == [{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1',
                                        'ranges': ['10.0.0.10-10.0.0.20']}]


def test_subnets_drop_unset_keys_and_no_subnets_is_none():
    p = {'subnets': [{'cidr': '10.0.0.0/24', 'gateway': None, 'dns': None, 'ranges': None, 'exclude': None}]}
    assert _runner.pool_subnets(p) == [{'cidr': '10.0.0.0/24'}]
    assert _runner.pool_subnets({'subnets': None, 'cidr': None}) is None


@pytest.mark.parametrize('given', [
    {'subnets': [{'cidr': '10.0.0.0/24'}], 'cidr': '10.0.0.0/24'},
    {'cidr': '10.0.0.0/24', 'parent': 'p', 'prefix_length': 26},
    {'gateway': '10.0.0.1'},
    {'parent': 'p', 'prefix_length': 26, 'ranges': ['10.0.0.9']},
    {'subnets': [{'cidr': '10.0.0.0/24'}], 'ranges': ['10.0.0.9']},
])
def test_pool_option_conflicts(given):
    result = ArgumentSpecValidator(**module_kwargs('pool')).validate(dict(given, name='web'))
    assert result.error_messages


def test_shorthand_and_subnets_create_the_same_pool(store, tmp_path):
    short = _runner.run('pool', params('pool', store, name='a', cidr='10.0.0.0/24', gateway='10.0.0.1',
                                       ranges=['10.0.0.10-10.0.0.20']))
    other = str(tmp_path / 'other.sqlite')
    full = _runner.run('pool', params('pool', other, name='a', subnets=[
        {'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.20']}]))
    assert short['pool']['subnets'] == full['pool']['subnets']


def test_parent_with_ranges_and_no_cidr_is_a_child_by_ranges(store):
    _runner.run('pool', params('pool', store, name='lan', cidr='10.0.0.0/24', ranges=['10.0.0.10-10.0.0.200']))
    vips = _runner.run('pool', params('pool', store, name='vips', parent='lan', ranges=['10.0.0.240-10.0.0.250']))
    assert vips['pool']['by_ranges'] is True and vips['pool']['subnets'][0]['ranges'] == ['10.0.0.240-10.0.0.250']
    for given, said in (({'parent': 'lan'}, 'needs prefix_length'), ({'ranges': ['10.0.0.9']}, 'give parent')):
        with pytest.raises(InvalidArgument) as error:
            _runner.run('pool', params('pool', store, name='other', **given))
        assert said in error.value.msg


def test_diff_only_in_diff_mode_and_check_mode_writes_nothing(store):
    p = params('pool', store, name='web', cidr='10.0.0.0/29')
    checked = _runner.run('pool', p, check=True, diff=True)
    assert checked['changed'] and checked['diff']['before'] == {}
    assert _runner.run('info', params('info', store))['pools'] == []
    created = _runner.run('pool', p)
    assert created['changed'] and 'diff' not in created
    assert not _runner.run('pool', p)['changed']


def test_reservation_present_and_absent(store):
    _runner.run('pool', params('pool', store, name='web', cidr='10.0.0.0/29'))
    reserved = _runner.run('reservation', params('reservation', store, pool='web', owner='h1'))
    assert reserved['reservation']['key'] == 'default'
    assert reserved['reservation']['address'] == '10.0.0.1'
    released = _runner.run('reservation', params('reservation', store, owner='h1', state='absent'), diff=True)
    assert [r['owner'] for r in released['released']] == ['h1']
    assert released['diff']['after'] == {'reservations': []}


def test_keep_owners_with_present_is_invalid(store):
    _runner.run('pool', params('pool', store, name='web', cidr='10.0.0.0/29'))
    with pytest.raises(InvalidArgument):
        _runner.run('reservation', {'namespace': 'default', 'store': store, 'pool': 'web', 'owner': None,
                                    'keep_owners': ['a'], 'state': 'present'})


def test_info_never_changes_nor_diffs(store):
    result = _runner.run('info', params('info', store), check=True, diff=True)
    assert result == {'changed': False, 'pools': [], 'reservations': [], 'store': store}


def test_store_opened_once_per_process(store):
    p = params('info', store)
    first = _runner.service_for(p)
    assert _runner.service_for(p) is first
    settings = _runner._store_settings(p, None)
    assert settings[0] == os.getpid()


def test_relative_store_resolves_against_base_dir(tmp_path):
    p = params('pool', 'rel.sqlite', name='web', cidr='10.0.0.0/29')
    try:
        _runner.run('pool', p, base_dir=str(tmp_path))
    finally:
        services.reset()
    assert (tmp_path / 'rel.sqlite').exists()


def test_failure_has_the_code_and_hides_secrets():
    error = PoolExhausted('no room with tok', pools=['tok'])
    assert _runner.failure(error, {'store_token': 'tok', 'store': '/srv/ipam.sqlite'}) == \
        {'msg': 'no room with ******** (store: /srv/ipam.sqlite)', 'error': 'pool_exhausted', 'pools': ['********'],
         'store': '/srv/ipam.sqlite'}


@pytest.mark.parametrize('name', stores.FILE_NAMES)
def test_check_mode_and_reads_never_create_a_store_file(tmp_path, name):
    path = str(tmp_path / name)
    predicted = _runner.run('pool', params('pool', path, name='web', cidr='10.0.0.0/24'), check=True)
    assert predicted['changed'] is True and predicted['pool']['size'] == 254
    assert _runner.run('info', params('info', path))['pools'] == []
    error = pytest.raises(Exception, _runner.run, 'reservation', params('reservation', path, pool='web', owner='h1'),
                          check=True)
    assert error.value.code == 'pool_not_found'
    assert os.listdir(str(tmp_path)) == []
    # a real run then creates it, and a later read in the same process sees it
    _runner.run('pool', params('pool', path, name='web', cidr='10.0.0.0/24'))
    assert [p['name'] for p in _runner.run('info', params('info', path))['pools']] == ['web']


@pytest.mark.parametrize('name', stores.FILE_NAMES)
def test_a_store_opened_not_to_create_takes_no_change(tmp_path, name):
    from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreAbsent
    from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
    store = open_store(str(tmp_path / name), create=False)
    assert store.absent
    with store.transaction():        # a write transaction that changes nothing is fine
        assert store.list_pools() == []
    with store.transaction(commit=False):
        store.save_pool(Pool('default', 'web'))
    with pytest.raises(StoreAbsent) as error:
        with store.transaction():
            store.save_pool(Pool('default', 'web'))
    assert error.value.code == 'store_unavailable'
    with store.transaction(write=False):
        assert store.list_pools() == []     # the refused change is gone
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize('name', stores.FILE_NAMES)
def test_a_failed_first_task_leaves_no_store_file(tmp_path, name):
    """A failure changes nothing (docs/design.md#errors): not even a new, empty store file."""
    path = str(tmp_path / name)
    with pytest.raises(PoolNotFound):
        _runner.run('reservation', params('reservation', path, pool='nope', owner='h1'))
    with pytest.raises(InvalidArgument):
        _runner.run('pool', params('pool', path, name='web', cidr='10.0.0.0/33'))
    assert _runner.run('reservation', params('reservation', path, owner='h1', state='absent'))['changed'] is False
    assert os.listdir(str(tmp_path)) == []
    # the first change creates the file, and is made once
    created = _runner.run('pool', params('pool', path, name='web', cidr='10.0.0.0/29'))
    assert created['changed'] and os.path.exists(path)
    info = _runner.run('info', params('info', path, history=True))
    assert [(h['action'], h['object']) for h in info['history']] == [('create', 'pool')]


def test_a_process_closes_its_stores_when_it_exits(tmp_path):
    """An Ansible worker is a forked process that never closes anything itself: its exit hook closes the
    store, which folds SQLite's write-ahead log into the file (the .sqlite file alone holds the change)."""
    import multiprocessing
    import shutil
    import sqlite3
    path = str(tmp_path / 'ipam.sqlite')

    def worker(owner):
        _runner.run('reservation', params('reservation', path, pool='web', owner=owner))

    _runner.run('pool', params('pool', path, name='web', cidr='10.0.0.0/24'))
    _runner.close_all()          # what this (the controller's) process does at its exit
    assert _runner._SERVICES == {}
    context = multiprocessing.get_context('fork')
    for owner in ('h1', 'h2'):
        child = context.Process(target=worker, args=(owner,))
        child.start()
        child.join()
        assert child.exitcode == 0
    assert not os.path.exists(path + '-wal') or os.path.getsize(path + '-wal') == 0
    copy = str(tmp_path / 'copy')
    os.mkdir(copy)
    shutil.copy(path, copy)      # the file alone, without -wal / -shm
    conn = sqlite3.connect(os.path.join(copy, 'ipam.sqlite'))
    assert sorted(r[0] for r in conn.execute('SELECT owner FROM reservation')) == ['h1', 'h2']
    conn.close()


@pytest.mark.parametrize('timeout', [0, -5])
def test_timeout_must_be_positive(tmp_path, timeout):
    with pytest.raises(InvalidArgument):
        _runner.run('info', params('info', str(tmp_path / 'ipam.sqlite'), timeout=timeout))


def test_an_empty_store_is_a_store_not_given(tmp_path, monkeypatch):
    """store: "" (a templated default('')) means what leaving the option out means: NETPOOL_IPAM_STORE, else
    ipam.sqlite, both relative to the base directory."""
    try:
        monkeypatch.setenv('NETPOOL_IPAM_STORE', 'from-env.json')
        _runner.run('pool', params('pool', '', name='web', cidr='10.0.0.0/29'), base_dir=str(tmp_path))
        assert sorted(os.listdir(str(tmp_path))) == ['from-env.json', 'from-env.json.lock']
        monkeypatch.delenv('NETPOOL_IPAM_STORE')
        _runner.run('pool', params('pool', '', name='web', cidr='10.0.0.0/29'), base_dir=str(tmp_path))
        assert 'ipam.sqlite' in os.listdir(str(tmp_path))
    finally:
        _runner.close_all()
