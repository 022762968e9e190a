# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The inventory plugin netpool.ipam.reservations, as a user runs it: ``ansible-inventory`` on an inventory
source file, over real SQLite, JSON and PostgreSQL stores (and one NetBox run where NetBox is installed).

What is checked: hosts are the owners, ``ansible_host`` the address of ``address_key`` (the first pool in
``pools`` order when several hold one; none when the host holds none), ``netpool_reservations`` and
a group per pool (sanitised, prefixed); ``pools``/``keys`` filters; compose, groups and
keyed_groups over metadata; an expired lease is not listed; the cache; failures as the codes with no
traceback and no secret; and a read that writes nothing.
"""

import json
import os
import subprocess
import sys

import pytest
from psycopg.conninfo import conninfo_to_dict

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support import netbox_server
from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.support import postgresql_server

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
BIN = os.path.dirname(sys.executable)


@pytest.fixture(params=stores.KINDS)
def store(request, tmp_path):
    """A fresh store of each kind: its ``store`` value."""
    if request.param == 'postgresql':
        with postgresql_server.fresh_schema('inv') as (url, _schema):
            yield url
    else:
        yield str(tmp_path / ('ipam.' + request.param))


def seed(store, clock=None):
    """Pools web-dmz (dual stack) and db; owners a (both pools, key default; db eth1), b and c (web-dmz),
    d (db), e (db, eth1 only)."""
    opened = open_store(store, timeout=30)
    try:
        s = Service(opened, clock=clock) if clock else Service(opened)
        s.pool('web-dmz', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1'}, {'cidr': '2001:db8::/64'}])
        s.pool('db', subnets=[{'cidr': '10.1.0.0/24'}])
        s.reserve_owners('web-dmz', ['a', 'b'], metadata={'role': 'web'})
        s.reserve('web-dmz', 'c', family='ipv6', metadata={'role': 'web'})
        s.reserve('db', 'a', address='10.1.0.5')
        s.reserve('db', 'a', key='eth1')
        s.reserve('db', 'd', metadata={'role': 'db'})
        s.reserve('db', 'e', key='eth1')
        return s
    finally:
        opened.close()


def run_inventory(cwd, config, *args, **env):
    """``(returncode, inventory dict or None, output)`` of ``ansible-inventory -i netpool.yml --list``."""
    source = os.path.join(str(cwd), env.pop('source', 'netpool.yml'))
    with open(source, 'w') as f:
        f.write(config if isinstance(config, str) else json.dumps(config))
    out = os.path.join(str(cwd), 'out.json')
    if os.path.exists(out):
        os.remove(out)
    environ = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, 'collections'),
                   ANSIBLE_INVENTORY_UNPARSED_FAILED='true', ANSIBLE_NOCOLOR='1', HOME=str(cwd))
    for name in ('NETPOOL_IPAM_STORE', 'NETPOOL_IPAM_STORE_TOKEN', 'ANSIBLE_CONFIG'):
        environ.pop(name, None)
    environ.update(env)
    proc = subprocess.run([os.path.join(BIN, 'ansible-inventory'), '-i', source, '--list', '--output', out]
                          + list(args), cwd=str(cwd), env=environ, capture_output=True, text=True, check=False)
    data = None
    if proc.returncode == 0:
        with open(out) as f:
            data = plain(json.load(f))
    return proc.returncode, data, proc.stdout + proc.stderr


def plain(value):
    """A value as ansible-inventory --list prints it, without its marks of untrusted data
    ({'__ansible_unsafe': ...}): values read from a store are never templated."""
    if isinstance(value, dict):
        if list(value) == ['__ansible_unsafe']:
            return plain(value['__ansible_unsafe'])
        return dict((k, plain(v)) for k, v in value.items())
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def hosts_of(data, group):
    return sorted(data.get(group, {}).get('hosts', []))


def test_hosts_groups_and_variables(tmp_path, store):
    seed(store)
    code, data, output = run_inventory(tmp_path, {
        'plugin': 'netpool.ipam.reservations', 'store': store,
        'keyed_groups': [{'key': "netpool_reservations | map(attribute='metadata.role', default='none')",
                          'prefix': 'role'}],
        'groups': {'static': "netpool_reservations | selectattr('static') | length > 0"},
        'compose': {'first_pool': 'netpool_reservations[0].pool'}})
    assert code == 0, output
    hostvars = data['_meta']['hostvars']
    assert sorted(hostvars) == ['a', 'b', 'c', 'd', 'e']
    # a group per pool, sanitised; a host in each pool where it holds a reservation
    assert hosts_of(data, 'web_dmz') == ['a', 'b', 'c']
    assert hosts_of(data, 'db') == ['a', 'd', 'e']
    # several pools hold key default for a: the first by name (db) gives ansible_host
    assert hostvars['a']['ansible_host'] == '10.1.0.5'
    assert [(r['pool'], r['key']) for r in hostvars['a']['netpool_reservations']] == [
        ('db', 'default'), ('db', 'eth1'), ('web-dmz', 'default')]
    assert hostvars['b']['ansible_host'] == '10.0.0.3'
    assert hostvars['b']['netpool_reservations'][0]['cidr'] == '10.0.0.3/24'
    assert hostvars['b']['netpool_reservations'][0]['gateway'] == '10.0.0.1'
    assert hostvars['c']['ansible_host'] == '2001:db8::1'
    # e holds no key default: listed, without ansible_host
    assert 'ansible_host' not in hostvars['e']
    assert [r['key'] for r in hostvars['e']['netpool_reservations']] == ['eth1']
    # Constructable over metadata
    assert hosts_of(data, 'role_web') == ['a', 'b', 'c']
    assert hosts_of(data, 'role_db') == ['d']
    assert hosts_of(data, 'role_none') == ['a', 'e']
    assert hosts_of(data, 'static') == ['a']
    assert hostvars['d']['first_pool'] == 'db'


def test_filters_and_the_address_key(tmp_path, store):
    seed(store)
    base = {'plugin': 'netpool.ipam.reservations', 'store': store}
    # pools in the order given: web-dmz first gives a its ansible_host; db's hosts are not listed
    code, data, output = run_inventory(tmp_path, dict(base, pools=['web-dmz', 'db'], pool_group_prefix='pool_'))
    assert code == 0, output
    assert data['_meta']['hostvars']['a']['ansible_host'] == '10.0.0.2'
    assert hosts_of(data, 'pool_web_dmz') == ['a', 'b', 'c'] and hosts_of(data, 'pool_db') == ['a', 'd', 'e']
    code, data, output = run_inventory(tmp_path, dict(base, pools=['web-dmz']))
    assert code == 0, output
    assert sorted(data['_meta']['hostvars']) == ['a', 'b', 'c'] and 'db' not in data
    assert data['_meta']['hostvars']['a']['ansible_host'] == '10.0.0.2'
    # keys: only owners holding eth1; the address of eth1 as ansible_host
    code, data, output = run_inventory(tmp_path, dict(base, keys=['eth1'], address_key='eth1'))
    assert code == 0, output
    hostvars = data['_meta']['hostvars']
    assert sorted(hostvars) == ['a', 'e']
    assert hostvars['a']['ansible_host'] == '10.1.0.1' and hostvars['e']['ansible_host'] == '10.1.0.3'
    # a pool whose hosts are all filtered out is an empty group, there for `hosts: web_dmz`
    assert 'web_dmz' in data['all']['children'] and hosts_of(data, 'web_dmz') == []
    # another namespace: nothing there
    code, data, output = run_inventory(tmp_path, dict(base, namespace='other'))
    assert code == 0, output
    assert data['_meta']['hostvars'] == {}


def test_an_expired_lease_is_not_listed(tmp_path):
    store = str(tmp_path / 'ipam.sqlite')
    clock = Clock(1.0e9)     # 2001: every lease taken then has expired by now
    seed(store)
    opened = open_store(store, timeout=30)
    try:
        Service(opened, clock=clock).reserve('db', 'leased', ttl='1h')
    finally:
        opened.close()
    code, data, output = run_inventory(tmp_path, {'plugin': 'netpool.ipam.reservations', 'store': store})
    assert code == 0, output
    assert 'leased' not in data['_meta']['hostvars']


def test_the_store_from_the_environment_relative_to_the_working_directory(tmp_path):
    seed(str(tmp_path / 'here.json'))
    os.mkdir(str(tmp_path / 'inventory'))
    code, data, output = run_inventory(tmp_path, 'plugin: netpool.ipam.reservations\n',
                                       source='inventory/prod.netpool.yaml', NETPOOL_IPAM_STORE='here.json')
    assert code == 0, output
    assert sorted(data['_meta']['hostvars']) == ['a', 'b', 'c', 'd', 'e']


def test_the_cache(tmp_path):
    store = str(tmp_path / 'ipam.sqlite')
    seed(store)
    config = {'plugin': 'netpool.ipam.reservations', 'store': store, 'cache': True,
              'cache_plugin': 'ansible.builtin.jsonfile', 'cache_connection': str(tmp_path / 'cache'),
              'cache_timeout': 3600}
    code, data, output = run_inventory(tmp_path, config)
    assert code == 0, output
    assert 'd' in data['_meta']['hostvars']
    assert os.listdir(str(tmp_path / 'cache'))
    opened = open_store(store, timeout=30)
    try:
        assert Service(opened).release('default', pool='db', owner='d')['changed']
    finally:
        opened.close()
    code, data, output = run_inventory(tmp_path, config)
    assert code == 0, output
    assert 'd' in data['_meta']['hostvars'], 'read from the cache, not the store'
    code, data, output = run_inventory(tmp_path, config, '--flush-cache')
    assert code == 0, output
    assert 'd' not in data['_meta']['hostvars']
    # without cache the store is read at once
    code, data, output = run_inventory(tmp_path, dict(config, cache=False))
    assert 'd' not in data['_meta']['hostvars']


@pytest.mark.parametrize('name, how', [('ipam.sqlte', 'environment'), ('ipam.json', 'option'),
                                       ('ipam.sqlite', 'option')])
def test_a_store_that_does_not_exist_fails_naming_it_and_is_not_created(tmp_path, name, how):
    """A reader never creates a store: a wrong path (a typo, another directory) is an error naming the file,
    not an empty inventory; the directory exists, and nothing is made in it (no store, lock or -wal file)."""
    directory = tmp_path / 'stores'
    directory.mkdir()
    path = str(directory / name)
    config = {'plugin': 'netpool.ipam.reservations'}
    env = {'NETPOOL_IPAM_STORE': path} if how == 'environment' else {}
    if how == 'option':
        config['store'] = path
    code, _data, output = run_inventory(tmp_path, dict(config, **cache_options(tmp_path)), **env)
    assert code != 0, output
    assert '(error store_unavailable)' in output and 'Traceback' not in output
    assert '%s store %s does not exist' % ('JSON' if name.endswith('.json') else 'SQLite', path) in output
    assert 'Check the path' in output
    assert os.listdir(str(directory)) == []
    assert not os.path.exists(str(tmp_path / 'cache')) or os.listdir(str(tmp_path / 'cache')) == []


def cache_options(tmp_path):
    """The options of the inventory cache: Ansible's jsonfile cache plugin, in a directory of the test."""
    return {'cache': True, 'cache_plugin': 'ansible.builtin.jsonfile', 'cache_connection': str(tmp_path / 'cache'),
            'cache_timeout': 3600}


def reserve_for(store, owners, namespace='default', pool='web', cidr='10.20.0.0/24', token=None):
    """Pool ``pool`` of ``namespace`` in ``store``, with an address for each of ``owners``."""
    opened = open_store(store, token=token, timeout=30)
    try:
        s = Service(opened)
        s.pool(pool, namespace=namespace, subnets=[{'cidr': cidr}])
        s.reserve_owners(pool, owners, namespace=namespace)
    finally:
        opened.close()


def release(store, pool, owner, token=None):
    opened = open_store(store, token=token, timeout=30)
    try:
        assert Service(opened).release('default', pool=pool, owner=owner)['changed']
    finally:
        opened.close()


def owners_listed(tmp_path, config, *args, **env):
    """The hosts ``ansible-inventory`` lists (it must succeed)."""
    code, data, output = run_inventory(tmp_path, config, *args, **env)
    assert code == 0, output
    return sorted(data['_meta']['hostvars'])


def test_the_cache_is_kept_per_store(tmp_path):
    """One inventory source, the cache on, two stores in turn: each lists its own hosts (the cache of one store
    is never served for the other), by NETPOOL_IPAM_STORE and by the store option; the cache still serves each
    store its own hosts."""
    reserve_for(str(tmp_path / 'prod.sqlite'), ['prod1', 'prod2'])
    reserve_for(str(tmp_path / 'staging.sqlite'), ['stage1'])
    reserve_for(str(tmp_path / 'prod.json'), ['jprod1'])
    reserve_for(str(tmp_path / 'staging.json'), ['jstage1', 'jstage2'])
    config = dict({'plugin': 'netpool.ipam.reservations'}, **cache_options(tmp_path))
    assert owners_listed(tmp_path, config, NETPOOL_IPAM_STORE='prod.sqlite') == ['prod1', 'prod2']
    assert owners_listed(tmp_path, config, NETPOOL_IPAM_STORE='staging.sqlite') == ['stage1']
    assert owners_listed(tmp_path, dict(config, store='prod.json')) == ['jprod1']
    assert owners_listed(tmp_path, dict(config, store=str(tmp_path / 'staging.json'))) == ['jstage1', 'jstage2']
    # the same store named relative or absolute is one store, whose cache is still used
    release(str(tmp_path / 'prod.sqlite'), 'web', 'prod2')
    release(str(tmp_path / 'staging.json'), 'web', 'jstage2')
    assert owners_listed(tmp_path, config, NETPOOL_IPAM_STORE=str(tmp_path / 'prod.sqlite')) == ['prod1', 'prod2']
    assert owners_listed(tmp_path, dict(config, store='staging.json')) == ['jstage1', 'jstage2']
    assert owners_listed(tmp_path, config, '--flush-cache', NETPOOL_IPAM_STORE='prod.sqlite') == ['prod1']


def test_the_cache_is_kept_per_namespace_pools_keys_and_address_key(tmp_path):
    """Editing namespace, pools, keys or address_key of a source with the cache on lists what the new options
    select, not the hosts cached for the old ones."""
    store = str(tmp_path / 'ipam.sqlite')
    seed(store)
    reserve_for(store, ['x1'], namespace='other')
    base = dict({'plugin': 'netpool.ipam.reservations', 'store': store}, **cache_options(tmp_path))
    assert owners_listed(tmp_path, base) == ['a', 'b', 'c', 'd', 'e']
    assert owners_listed(tmp_path, dict(base, namespace='other')) == ['x1']
    assert owners_listed(tmp_path, dict(base, pools=['web-dmz'])) == ['a', 'b', 'c']
    assert owners_listed(tmp_path, dict(base, keys=['eth1'])) == ['a', 'e']
    code, data, output = run_inventory(tmp_path, dict(base, keys=['eth1'], address_key='eth1'))
    assert code == 0, output
    assert data['_meta']['hostvars']['a']['ansible_host'] == '10.1.0.1'
    # back to the first options: their own cache, still used (the store is not read again)
    release(store, 'db', 'd')
    assert owners_listed(tmp_path, base) == ['a', 'b', 'c', 'd', 'e']
    assert owners_listed(tmp_path, dict(base, pools=['web-dmz', 'db'])) == ['a', 'b', 'c', 'e']


def cache_files(tmp_path):
    """{name: text} of every file of the inventory cache."""
    directory = str(tmp_path / 'cache')
    return dict((name, open(os.path.join(directory, name), encoding='utf-8', errors='replace').read())
                for name in os.listdir(directory))


def test_the_cache_of_postgresql_stores_holds_no_secret(tmp_path):
    """Two PostgreSQL stores in turn (a password in the URL of one, store_token for the other), the cache on:
    each lists its own hosts, and neither secret is in the name or the content of a cache file."""
    schema = postgresql_server.fresh_schema
    with schema('inv') as (first, _one), schema('inv') as (second, _two):
        # the test server trusts its clients (a password it does not need is ignored), unless its URL has its own
        user, password = conninfo_to_dict(first)['user'], conninfo_to_dict(first).get('password')
        if not password:
            password = 'pw-SECRET-7'
            first = first.replace('://%s@' % user, '://%s:%s@' % (user, password), 1)
        token = conninfo_to_dict(second).get('password') or 'tok-SECRET-8'
        second = second.replace(':%s@' % token, '@', 1)
        assert password in first and token not in second
        reserve_for(first, ['pg1'])
        reserve_for(second, ['pg2', 'pg3'], token=token)
        config = dict({'plugin': 'netpool.ipam.reservations'}, **cache_options(tmp_path))
        assert owners_listed(tmp_path, dict(config, store=first)) == ['pg1']
        assert owners_listed(tmp_path, dict(config, store=second), NETPOOL_IPAM_STORE_TOKEN=token) == ['pg2', 'pg3']
        assert owners_listed(tmp_path, config, NETPOOL_IPAM_STORE=first) == ['pg1']
    files = cache_files(tmp_path)
    assert len(files) == 2, sorted(files)
    for name, text in files.items():
        for secret in (password, token):
            assert secret not in name and secret not in text, (name, secret)
        assert 'pg1' in text or 'pg2' in text


def fingerprint(directory):
    return dict((f, open(os.path.join(directory, f), 'rb').read()) for f in sorted(os.listdir(directory))
                if f.startswith('ipam.'))


@pytest.mark.parametrize('name', stores.FILE_NAMES)
def test_a_read_writes_nothing(tmp_path, name):
    seed(str(tmp_path / name))
    before = fingerprint(str(tmp_path))
    code, _data, output = run_inventory(tmp_path, {'plugin': 'netpool.ipam.reservations', 'store': name})
    assert code == 0, output
    assert fingerprint(str(tmp_path)) == before


def test_an_empty_postgresql_schema_gets_no_table(tmp_path):
    with postgresql_server.fresh_schema('inv') as (url, schema):
        code, data, output = run_inventory(tmp_path, {'plugin': 'netpool.ipam.reservations', 'store': url})
        assert code == 0, output
        assert data['_meta']['hostvars'] == {}
        with postgresql_server.admin() as conn:
            assert conn.execute('SELECT count(*) FROM pg_tables WHERE schemaname = %s', (schema,)).fetchone()[0] == 0


def failure(tmp_path, config, **env):
    code, _data, output = run_inventory(tmp_path, dict({'plugin': 'netpool.ipam.reservations'}, **config), **env)
    assert code != 0, output
    assert 'Traceback' not in output
    assert 'SECRET' not in output
    return output


def test_errors_give_their_code_without_a_traceback_or_a_secret(tmp_path):
    store = str(tmp_path / 'ipam.sqlite')
    seed(store)
    out = failure(tmp_path, {'store': store, 'pools': ['web-dmz', 'nope']})
    assert '(error pool_not_found)' in out and "'nope'" in out and 'web-dmz' in out
    out = failure(tmp_path, {'store': store, 'pools': [{'a': 'b'}]})
    assert '(error invalid_argument)' in out and 'pools' in out
    out = failure(tmp_path, {'store': store, 'keys': ['']})
    assert '(error invalid_argument)' in out and 'keys' in out
    out = failure(tmp_path, {'store': store, 'timeout': 0})
    assert '(error invalid_argument)' in out and 'timeout' in out
    out = failure(tmp_path, {'store': str(tmp_path / 'no' / 'such' / 'dir' / 'ipam.sqlite')})
    assert '(error store_unavailable)' in out
    broken = tmp_path / 'broken.json'
    broken.write_text('{not json')
    out = failure(tmp_path, {'store': str(broken)})
    assert '(error store_unavailable)' in out
    port = postgresql_server.closed_port()
    out = failure(tmp_path, {'store': 'postgresql://u:pw-SECRET-1@127.0.0.1:%d/db' % port, 'timeout': 1})
    assert '(error store_unavailable)' in out
    out = failure(tmp_path, {'store': 'postgresql://u@127.0.0.1:%d/db' % port, 'timeout': 1},
                  NETPOOL_IPAM_STORE_TOKEN='tok-SECRET-2')
    assert '(error store_unavailable)' in out
    out = failure(tmp_path, {'store': 'netbox+http://127.0.0.1:%d' % port, 'store_token': 'tok-SECRET-3',
                             'timeout': 1})
    assert '(error store_unavailable)' in out


def test_netbox(tmp_path):
    """One run on a real NetBox (skips where it is not installed)."""
    url, token = netbox_server.url(), netbox_server.token()
    netbox_server.wipe()
    opened = open_store(url, token=token, timeout=60)
    try:
        s = Service(opened)
        s.pool('web', subnets=[{'cidr': '10.30.0.0/24', 'gateway': '10.30.0.1'}])
        s.reserve_owners('web', ['vm1', 'vm2'], metadata={'role': 'web'})
    finally:
        opened.close()
    code, data, output = run_inventory(tmp_path, {
        'plugin': 'netpool.ipam.reservations', 'store': url,
        'keyed_groups': [{'key': "netpool_reservations | map(attribute='metadata.role')", 'prefix': 'role'}]},
        NETPOOL_IPAM_STORE_TOKEN=token)
    assert code == 0, output
    hostvars = data['_meta']['hostvars']
    assert dict((h, v['ansible_host']) for h, v in hostvars.items()) == {'vm1': '10.30.0.2', 'vm2': '10.30.0.3'}
    assert hosts_of(data, 'web') == ['vm1', 'vm2'] and hosts_of(data, 'role_web') == ['vm1', 'vm2']
