# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Moving a whole state between stores: nothing lost, nothing overwritten unless asked.

Round trips compare full ``export_document`` documents: pools (subnets, ranges,
exclusions, child pools, strategy, reuse delay, metadata, timestamps), free
spans, addresses waiting out a reuse delay, reservations (static, leased,
metadata, timestamps) and the whole history. Also runs
``tools/migrate_store.py`` and ``playbooks/migrate_store.yml``.
"""

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document, import_document

from ansible_collections.netpool.ipam.tests.support.stores import KINDS
from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))
TOOL = os.path.join(ROOT, 'tools', 'migrate_store.py')
PLAYBOOK = os.path.join(ROOT, 'playbooks', 'migrate_store.yml')


def populate(store):
    """A state that uses every kind of thing a store keeps."""
    clock = Clock()
    svc = Service(store, clock=clock)
    svc.pool('web', subnets=[
        {'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'dns': ['10.0.0.2', '10.0.0.3'],
         'ranges': ['10.0.0.10-10.0.0.100', '10.0.0.144/28'], 'exclude': ['10.0.0.20-10.0.0.25']},
        {'cidr': '2001:db8:1::/64', 'gateway': '2001:db8:1::1'}],
        strategy='first', reuse_delay='1h', description='web tier', metadata={'site': 'par1', 'vlan': 10})
    svc.pool('parent', subnets=[{'cidr': '10.8.0.0/16'}], description='carved from')
    svc.pool('child', parent='parent', prefix_length=24)
    svc.pool('lab', namespace='lab', subnets=[{'cidr': '10.0.0.0/24'}], strategy='random')
    clock.t += 60
    svc.reserve('web', 'h1', metadata={'mac': '52:54:00:00:00:01', 'primary': True})
    svc.reserve('web', 'h1', key='v6', family='ipv6')
    svc.reserve('web', 'h2', address='10.0.0.22', force=True)
    svc.reserve('web', 'ci-1', ttl='30m')
    svc.reserve('child', 'k8s-node-0')
    svc.reserve('lab', 'h1', namespace='lab', address='10.0.0.50')
    svc.range('web', '10.0.0.90-10.0.0.100', state='absent')
    clock.t += 60
    svc.reserve('web', 'h3')
    svc.release(owner='h3', pool='web')          # waits out the reuse delay
    svc.reserve('web', 'h4', address='10.0.0.60')
    svc.reserve('web', 'h4', address='10.0.0.61')  # moved
    svc.reserve('web', 'vip', address='10.0.0.61', reassign=True)
    return svc


def _spec(kind, tmp_path, name):
    if kind == 'sqlite':
        return str(tmp_path / (name + '.sqlite'))
    if kind == 'json':
        return str(tmp_path / (name + '.json'))
    return name   # a PostgreSQL url, made by the fixture


@pytest.fixture
def stores(tmp_path):
    """``make(kind, name)``: an empty, open store of that kind; PostgreSQL ones get a schema of their own."""
    opened, schemas = [], []

    def make(kind, name):
        if kind == 'postgresql':
            cm = server.fresh_schema('x')
            spec = cm.__enter__()[0]
            schemas.append(cm)
        else:
            spec = _spec(kind, tmp_path, name)
        store = open_store(spec)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()
    for cm in schemas:
        cm.__exit__(None, None, None)


def _rich(document):
    """The state really holds every kind of thing (so that equality means something)."""
    pools = dict(((p['namespace'], p['name']), p) for p in document['pools'])
    assert pools[('default', 'web')]['released'] and pools[('default', 'web')]['free']
    assert pools[('default', 'child')]['parent'] == 'parent'
    reservations = document['reservations']
    assert any(r['expires_at'] for r in reservations) and any(r['static'] for r in reservations)
    assert any(r['metadata'] for r in reservations) and any(':' in json.dumps(r) for r in reservations)
    assert len(set(r['namespace'] for r in reservations)) == 2
    assert set(e['action'] for e in document['history']) >= {'create', 'reserve', 'release', 'move', 'reassign'}


@pytest.mark.parametrize('source_kind, target_kind', [
    ('sqlite', 'postgresql'), ('json', 'sqlite'), ('postgresql', 'json'), ('sqlite', 'json'),
    ('json', 'postgresql'), ('postgresql', 'sqlite')])
def test_round_trip_keeps_everything(stores, source_kind, target_kind):
    if 'postgresql' in (source_kind, target_kind):
        server.require_server()
    source = stores(source_kind, 'source')
    populate(source)
    document = export_document(source)
    _rich(document)
    target = stores(target_kind, 'target')
    result = import_document(target, document)
    assert result['changed'] is True and result['before']['pools'] == []
    assert export_document(target) == document
    # and back again, into a third store of the first kind
    back = stores(source_kind, 'back')
    import_document(back, export_document(target))
    assert export_document(back) == document
    # the copy is a working state: the next allocation is the same on both sides
    assert Service(target, clock=Clock()).reserve('web', 'new')['reservation'] == \
        Service(source, clock=Clock()).reserve('web', 'new')['reservation']


@pytest.mark.parametrize('kind', KINDS)
def test_an_import_rebuilds_free_spans_and_never_trusts_them(stores, kind):
    """Free spans in an export are derived state: an import that claims a held address is free (or forgets a
    free one) is rebuilt from the subnets, reservations and resting addresses (defect 3)."""
    svc = Service(stores('sqlite', 'source'), clock=Clock())
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.20']}])
    svc.reserve('web', 'h1')
    document = export_document(svc.store)
    assert document['pools'][0]['free'] == ['10.0.0.11-10.0.0.20']
    document['pools'][0]['free'] = ['10.0.0.10-10.0.0.12', '10.0.0.15-10.0.0.15']    # covers h1's, loses most
    target = Service(stores(kind, 'target'), clock=Clock())
    import_document(target.store, document)
    assert export_document(target.store)['pools'][0]['free'] == ['10.0.0.11-10.0.0.20']
    assert target.reserve('web', 'h2')['reservation']['address'] == '10.0.0.11'
    assert [target.reserve('web', 'h%d' % i)['reservation']['address'] for i in range(3, 12)][-1] == '10.0.0.20'
    assert target.verify()['problems'] == []


@pytest.mark.parametrize('kind', KINDS)
def test_a_non_empty_target_is_refused_unless_replace(stores, kind):
    if kind == 'postgresql':
        server.require_server()
    source = stores('json', 'source')
    populate(source)
    document = export_document(source)
    target = stores(kind, 'target')
    Service(target).pool('old', subnets=[{'cidr': '192.168.0.0/24'}])
    Service(target).reserve('old', 'h1')
    before = export_document(target)
    with pytest.raises(IpamError) as info:
        import_document(target, document)
    assert info.value.code == 'invalid_argument' and 'replace' in info.value.msg
    assert export_document(target) == before
    result = import_document(target, document, replace=True, check=True)
    assert result['changed'] is True and export_document(target) == before
    result = import_document(target, document, replace=True)
    assert result['changed'] is True and len(result['before']['reservations']) == 1
    assert export_document(target) == document
    assert import_document(target, document, replace=True)['changed'] is False


def test_an_empty_state_imports_into_anything(stores):
    source = stores('sqlite', 'source')
    target = stores('json', 'target')
    assert import_document(target, export_document(source))['changed'] is False


@pytest.mark.parametrize('document', [None, [], {'pools': []}, {'schema_version': '1'}])
def test_not_an_export_is_invalid_argument(stores, document):
    target = stores('sqlite', 'target')
    with pytest.raises(IpamError) as info:
        import_document(target, document)
    assert info.value.code == 'invalid_argument'


def test_a_newer_export_is_refused(stores):
    target = stores('sqlite', 'target')
    with pytest.raises(IpamError) as info:
        import_document(target, {'schema_version': 99, 'pools': [], 'reservations': [], 'history': []})
    assert info.value.code == 'store_version'


# -- the command-line tool and the playbook ------------------------------------------

def _tool(*args, **kwargs):
    env = dict(os.environ)
    env.update(kwargs.pop('env', {}))
    # no PYTHONPATH: the tool finds the collection from its own location, as an installed copy would
    env.pop('PYTHONPATH', None)
    proc = subprocess.run([sys.executable, TOOL] + list(args), env=env, capture_output=True, text=True, check=False, **kwargs)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else None, proc.stderr


def test_tool_copies_sqlite_to_postgresql_and_refuses_to_overwrite(stores, tmp_path):
    server.require_server()
    source = stores('sqlite', 'source')
    populate(source)
    target = stores('postgresql', 'target')
    secret_spec = target.spec.replace('postgresql://postgres@', 'postgresql://postgres:Sec-ret@')
    rc, out, err = _tool('--source', 'source.sqlite', '--check', cwd=str(tmp_path),
                         env={'NETPOOL_IPAM_TARGET': secret_spec})
    assert rc == 0, err
    assert out['changed'] is True and out['check'] is True and 'Sec-ret' not in json.dumps(out)
    assert export_document(target)['pools'] == []
    rc, out, err = _tool('--source', 'source.sqlite', cwd=str(tmp_path), env={'NETPOOL_IPAM_TARGET': secret_spec})
    assert rc == 0, err
    assert (out['pools'], out['reservations'], out['changed']) == (4, 7, True)
    assert export_document(target) == export_document(source)
    rc, out, err = _tool('--source', 'source.sqlite', cwd=str(tmp_path), env={'NETPOOL_IPAM_TARGET': secret_spec})
    assert rc == 1 and out['error'] == 'invalid_argument' and 'replace' in err
    assert 'Sec-ret' not in err + json.dumps(out)
    rc, out, err = _tool('--source', 'source.sqlite', '--replace', cwd=str(tmp_path),
                         env={'NETPOOL_IPAM_TARGET': secret_spec})
    assert rc == 0 and out['changed'] is False


def test_tool_refuses_a_missing_source_file(tmp_path):
    rc, out, err = _tool('--source', 'typo.sqlite', '--target', 'copy.json', cwd=str(tmp_path))
    assert rc == 1 and out['error'] == 'invalid_argument' and 'does not exist' in err
    assert os.listdir(str(tmp_path)) == []


def test_tool_reports_an_unreachable_store(tmp_path):
    spec = 'postgresql://ipam:Sec-ret@127.0.0.1:%d/ipam' % server.closed_port()
    rc, out, err = _tool('--source', spec, '--target', 'copy.json', cwd=str(tmp_path))
    assert rc == 1 and out['error'] == 'store_unavailable' and 'Sec-ret' not in err + json.dumps(out)
    assert not (tmp_path / 'copy.json').exists()


def test_playbook_migrates_json_to_sqlite(stores, tmp_path):
    source = stores('json', 'source')
    populate(source)
    source.close()

    def run(*extra):
        return run_playbook(PLAYBOOK, '-e', 'source=source.json', '-e', 'target=target.sqlite', *extra, cwd=tmp_path,
                            apart=True)

    proc = run('--check')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'changed=1' in proc.stdout
    assert export_document(open_store(str(tmp_path / 'target.sqlite')))['pools'] == []
    proc = run()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'changed=1' in proc.stdout
    assert export_document(open_store(str(tmp_path / 'target.sqlite'))) == export_document(open_store(str(tmp_path / 'source.json')))
    proc = run()
    assert proc.returncode == 2 and 'replace' in proc.stdout
    proc = run('-e', 'replace=true')
    assert proc.returncode == 0 and 'changed=0' in proc.stdout, proc.stdout
