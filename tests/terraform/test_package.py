# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The provider package without Terraform: its version, the mirror it writes, where it keeps its
certificate, how it reads its settings and import ids. (End to end: test_terraform.py.)"""

import os
import stat
import subprocess
import sys

import pytest
import yaml

from tf.types import String

from ansible_collections.netpool.ipam.plugins.module_utils.api import InvalidArgument

from harness import COLLECTIONS, PROVIDER, ROOT  # pylint: disable=import-error

from netpool_terraform import __main__ as entry, mirror  # pylint: disable=import-error
from netpool_terraform._base import Object, strings  # pylint: disable=import-error
from netpool_terraform.provider import resolve  # pylint: disable=import-error
from netpool_terraform.resources import parse_id  # pylint: disable=import-error


def test_version_is_the_collections():
    with open(os.path.join(ROOT, 'galaxy.yml')) as f:
        assert mirror.version() == yaml.safe_load(f)['version']


def test_mirror_layout_and_launcher(tmp_path):
    cli = tmp_path / 'cli.tfrc'
    out = subprocess.run([PROVIDER, 'mirror', str(tmp_path / 'm'), '--collections-path', COLLECTIONS,
                          '--cli-config', str(cli)], capture_output=True, text=True, check=True)
    launcher = tmp_path / 'm' / 'terraform.local' / 'netpool' / 'netpool' / mirror.version() / mirror.target() / (
        'terraform-provider-netpool_v' + mirror.version())
    assert stat.S_IMODE(launcher.stat().st_mode) == 0o755
    text = launcher.read_text()
    assert text.startswith('#!/bin/sh\n')
    assert ': "${NETPOOL_TERRAFORM_COLLECTIONS_PATH:=%s}"' % os.path.abspath(COLLECTIONS) in text
    assert '-m netpool_terraform "$@"' in text
    assert 'path    = "%s"' % (tmp_path / 'm') in cli.read_text()
    assert 'exclude = ["terraform.local/netpool/netpool"]' in cli.read_text()
    assert cli.read_text() in out.stdout
    assert 'version = "%s"' % mirror.version() in out.stdout
    # run by hand, without Terraform's handshake cookie: it says what it is
    env = dict(os.environ)
    env.pop('TF_PLUGIN_MAGIC_COOKIE', None)
    by_hand = subprocess.run([str(launcher)], capture_output=True, text=True, env=env, check=False, timeout=30)
    assert by_hand.returncode == 1
    assert 'not\nmeant to be run by hand' in by_hand.stderr


def test_certificate_cache_without_a_writable_home(tmp_path, monkeypatch):
    monkeypatch.delenv(entry.CACHE_ENV, raising=False)
    monkeypatch.delenv('XDG_CACHE_HOME', raising=False)
    monkeypatch.setenv('HOME', '/dev/null/home')       # cannot be created, even by root
    monkeypatch.setenv('TMPDIR', str(tmp_path))
    monkeypatch.setattr('tempfile.tempdir', None)
    path = entry.cert_cache_dir()
    assert path == str(tmp_path / ('netpool-terraform-%d' % os.getuid()))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
    monkeypatch.setenv(entry.CACHE_ENV, str(tmp_path / 'mine'))
    assert entry.cert_cache_dir() == str(tmp_path / 'mine')
    os.chmod(str(tmp_path / 'mine'), 0o755)      # readable by others: not used for a private key
    assert entry.cert_cache_dir() != str(tmp_path / 'mine')


def test_a_cache_directory_it_will_not_use_is_refused_saying_why(tmp_path, monkeypatch):
    """NETPOOL_TERRAFORM_CACHE naming a directory the provider will not use (open to others, not a directory):
    the provider it starts fails every call with invalid_argument saying why, instead of keeping its plans
    elsewhere for an apply that then fails with "inconsistent final plan"."""
    from tf.utils import Diagnostics  # pylint: disable=import-outside-toplevel

    shared = tmp_path / 'shared'
    shared.mkdir(mode=0o755)
    os.chmod(str(shared), 0o755)
    (tmp_path / 'file').write_text('')
    for path, words in ((shared, 'its mode is 0755: group or others may use it'),
                        (tmp_path / 'file', 'it is not a directory')):
        monkeypatch.setenv(entry.CACHE_ENV, str(path))
        diags = Diagnostics()
        provider = entry.make_provider()
        provider.get_provider_schema(diags)
        provider.configure_provider(diags, {})
        assert [d.summary for d in diags.diagnostics] == ['The netpool provider cannot start (error invalid_argument)'] * 2
        detail = diags.diagnostics[0].detail
        assert detail.startswith('%s=%s is not used as the provider\'s cache: %s' % (entry.CACHE_ENV, path, words)), detail
        assert 'mode 0700' in detail
    os.chmod(str(shared), 0o700)
    monkeypatch.setenv(entry.CACHE_ENV, str(shared))
    assert entry.cache_refusal() is None and entry.cert_cache_dir() == str(shared)


def test_settings_read_as_the_collection_reads_them(monkeypatch):
    monkeypatch.delenv('NETPOOL_IPAM_STORE', raising=False)
    monkeypatch.delenv('NETPOOL_IPAM_STORE_TOKEN', raising=False)
    assert resolve({}) == {'store': 'ipam.sqlite', 'store_token': None, 'validate_certs': True, 'timeout': 30,
                           'namespace': 'default'}
    monkeypatch.setenv('NETPOOL_IPAM_STORE', '/srv/ipam.json')
    monkeypatch.setenv('NETPOOL_IPAM_STORE_TOKEN', 'tok')
    assert resolve({'timeout': 5.0})['store'] == '/srv/ipam.json'
    assert resolve({'timeout': 5.0})['timeout'] == 5
    assert resolve({'store': 'x.sqlite'})['store'] == 'x.sqlite'
    assert resolve({})['store_token'] == 'tok'
    for bad in ({'timeout': 0}, {'store': 'mysql://db/x'}, {'store': 'host=db dbname=ipam'}):
        with pytest.raises(InvalidArgument):
            resolve(bad)


STARTS = r'''
import sys
from tf.utils import Diagnostics
from netpool_terraform.provider import NetpoolProvider
from netpool_terraform.resources import Reservation
SERVICE = 'ansible_collections.netpool.ipam.plugins.module_utils._allocation._service'
provider, diags = NetpoolProvider(), Diagnostics()
provider.get_provider_schema(diags)
schemas = [r.get_schema() for r in provider.get_resources() + provider.get_data_sources()]
provider.validate_config(diags, {'store': sys.argv[1]})
Reservation(provider).validate(diags, 'netpool_reservation', {'pool': 'web', 'owner': 'vm1', 'ttl': '1h'})
provider.configure_provider(diags, {'store': sys.argv[1]})
assert not diags.diagnostics, diags.diagnostics
print(SERVICE in sys.modules, 'sqlite3' in sys.modules, 'ansible' in sys.modules)
provider.run(diags, 'read', lambda service: service.get('web', 'vm1'))
print(SERVICE in sys.modules, 'sqlite3' in sys.modules, 'ansible' in sys.modules)
'''


def test_a_start_that_touches_no_store_imports_no_store(tmp_path):
    """Terraform starts the provider 3 to 5 times per command, and most starts only answer the schema or validate:
    configuring the provider imports neither the service nor the stores (not even to name the store for the ledger
    of planned addresses); the first call that reads or writes does, and so does planning a new reservation,
    which reads the store to plan its address. None imports ansible-core (the store options' fallbacks to
    their environment variables are ansible-core's only when a module looks them up: ``_options.env_fallback``)."""
    env = dict(os.environ, NETPOOL_TERRAFORM_COLLECTIONS_PATH=COLLECTIONS)
    out = subprocess.run([sys.executable, '-c', STARTS, str(tmp_path / 'ipam.sqlite')], capture_output=True,
                         text=True, env=env, check=True)
    assert out.stdout.split() == ['False', 'False', 'False', 'True', 'True', 'False']


FIND = r'''
from netpool_terraform import _collection
try:
    print(_collection.import_api().API_VERSION)
except _collection.CollectionNotFound as e:
    print(e)
'''


def test_a_collection_of_another_api_version_is_named(tmp_path):
    """The provider finds the collection by its public entry point (``api.py``) and checks its ``API_VERSION``: a
    collection of another version, or an older one without the entry point, is named with what to install, not
    an ImportError."""
    fake = tmp_path / 'ansible_collections' / 'netpool' / 'ipam'
    (fake / 'plugins' / 'module_utils').mkdir(parents=True)
    (fake / 'plugins' / 'module_utils' / 'api.py').write_text(u'API_VERSION = 99\n')
    (fake / 'galaxy.yml').write_text(u'namespace: netpool\nname: ipam\nversion: 9.0.0\n')
    env = dict(os.environ, NETPOOL_TERRAFORM_COLLECTIONS_PATH=str(tmp_path), ANSIBLE_COLLECTIONS_PATH=str(tmp_path))

    def found():
        return subprocess.run([sys.executable, '-c', FIND], capture_output=True, text=True, env=env,
                              check=True).stdout.strip()

    needs = '; this provider (%s) needs API 1: install the netpool.ipam collection this provider ships with ' % (
        mirror.version())
    assert found().startswith('netpool.ipam 9.0.0 found at %s offers API 99%s' % (fake, needs))
    assert 'pip install %s' % (fake / 'terraform') in found()
    (fake / 'plugins' / 'module_utils' / 'api.py').unlink()
    assert found().startswith('netpool.ipam 9.0.0 found at %s offers no API (plugins/module_utils/api.py)%s'
                              % (fake, needs))
    env['NETPOOL_TERRAFORM_COLLECTIONS_PATH'] = env['ANSIBLE_COLLECTIONS_PATH'] = COLLECTIONS
    assert found() == '1'


def test_import_ids():
    parts = ('namespace', 'pool', 'owner', 'key')
    assert parse_id('default/web/vm1/default', parts, '') == dict(zip(parts, ['default', 'web', 'vm1', 'default']))
    assert parse_id('ns/web/rack/1/vm1/eth0', parts, '')['owner'] == 'rack/1/vm1'
    for bad in ('web/vm1', 'default//vm1/default', ''):
        with pytest.raises(InvalidArgument):
            parse_id(bad, parts, 'namespace/pool/owner/key')


def test_types():
    assert Object({'a': String()}, optional=['a']).tf_type() == b'["object",{"a":"string"},["a"]]'
    assert strings({'vlan': 10, 'pxe': True, 'mac': 'aa'}) == {'vlan': '10', 'pxe': 'true', 'mac': 'aa'}


def test_every_failure_is_a_diagnostic(tmp_path):
    """An IpamError is an error diagnostic with its code; any other exception is internal_error with its
    traceback in the detail and the store's password hidden: nothing reaches gRPC."""
    from tf.utils import Diagnostics  # pylint: disable=import-outside-toplevel
    from netpool_terraform.provider import NetpoolProvider  # pylint: disable=import-error,import-outside-toplevel
    from netpool_terraform.resources import Reservation  # pylint: disable=import-error,import-outside-toplevel

    provider = NetpoolProvider()
    diags = Diagnostics()
    provider.configure_provider(diags, {'store': str(tmp_path / 'ipam.sqlite')})
    assert not diags.diagnostics
    assert provider.run(diags, 'reserve web/vm1/default', lambda s: s.reserve('web', 'vm1')) is None
    assert [(d.summary, d.detail) for d in diags.diagnostics] == [(
        'Cannot reserve web/vm1/default (error pool_not_found)',
        "Pool 'web' does not exist in namespace 'default'. Namespace 'default' of this store has no pool at all: is "
        "this the store you meant? A relative store path is relative to the directory the command (ansible-playbook, "
        "terraform) was started from. Create it with netpool.ipam.pool first. (store: %s)" % (tmp_path / 'ipam.sqlite'))]

    provider.params['store_token'] = 's3cret'
    diags = Diagnostics()
    provider.run(diags, 'read x', lambda s: {}['s3cret'])
    assert diags.diagnostics[0].summary == 'Cannot read x (error internal_error)'
    assert diags.diagnostics[0].detail.startswith('The netpool Terraform provider failed unexpectedly while trying to '
                                                  "read x in namespace 'default' of store %s (KeyError: "
                                                  % (tmp_path / 'ipam.sqlite'))
    assert 'please report it at https://github.com/netpool/ipam/issues' in diags.diagnostics[0].detail
    assert 'Traceback' in diags.diagnostics[0].detail
    assert 's3cret' not in diags.diagnostics[0].detail

    diags = Diagnostics()

    class Context(object):
        diagnostics = diags

    assert Reservation(provider).plan(Context(), {'address': 1}, None) is None
    assert diags.diagnostics[0].summary.endswith('(error internal_error)')
    assert not (tmp_path / 'ipam.sqlite').exists()      # a failure creates no store


class _Planned(object):
    """A resource with ``plan_create``: what it is handed, and what it plans."""

    seen = []

    def __init__(self, provider):
        self.provider = provider

    @classmethod
    def get_name(cls):
        return 'planned'

    @classmethod
    def get_schema(cls):
        from tf.schema import Attribute, Schema  # pylint: disable=import-outside-toplevel
        return Schema(version=0, attributes=[Attribute('name', String(), required=True),
                                             Attribute('address', String(), optional=True, computed=True)])

    def plan(self, ctx, current, planned):
        return planned

    def plan_create(self, ctx, config, planned):
        self.seen.append((dict(config), dict(planned)))
        return dict(planned, address='10.0.0.%d' % len(self.seen))


def test_the_servicer_lets_a_create_be_planned():
    """``Servicer`` (docs/developing.md) hands the plan of a create to the resource's ``plan_create``, with the
    configuration; an update is the framework's own. (Which servicer Terraform talks to: test_framework.py.)"""
    from tf.gen import tfplugin_pb2 as pb  # pylint: disable=import-outside-toplevel
    from tf.types import Unknown  # pylint: disable=import-outside-toplevel
    from tf.utils import read_dynamic_value, to_dynamic_value  # pylint: disable=import-outside-toplevel

    from netpool_terraform import _servicer  # pylint: disable=import-error,import-outside-toplevel

    class App(object):
        def get_model_prefix(self):
            return 'x_'

        def get_resources(self):
            return [_Planned]

        def new_resource(self, klass):
            return klass(self)

    servicer = _servicer.Servicer(App())
    _Planned.seen[:] = []
    create = servicer.PlanResourceChange(pb.PlanResourceChange.Request(
        type_name='x_planned', prior_state=to_dynamic_value(None),
        proposed_new_state=to_dynamic_value({'name': 'a', 'address': Unknown}),
        config=to_dynamic_value({'name': 'a', 'address': None})), None)
    assert read_dynamic_value(create.planned_state) == {'name': 'a', 'address': '10.0.0.1'}
    assert _Planned.seen == [({'name': 'a', 'address': None}, {'name': 'a', 'address': Unknown})]
    update = servicer.PlanResourceChange(pb.PlanResourceChange.Request(
        type_name='x_planned', prior_state=to_dynamic_value({'name': 'a', 'address': '10.0.0.1'}),
        proposed_new_state=to_dynamic_value({'name': 'a', 'address': '10.0.0.1'}),
        config=to_dynamic_value({'name': 'a', 'address': None})), None)
    assert read_dynamic_value(update.planned_state) == {'name': 'a', 'address': '10.0.0.1'}
    assert len(_Planned.seen) == 1


def test_a_refresh_reads_the_store_once_per_namespace(tmp_path):
    """Terraform refreshes each resource on its own (ReadResource): a process reads the reservations of a namespace
    once, at its first read, and answers every read of that namespace from it, as the store would one by one
    (IPv4, IPv6, dual, no family, an owner that holds nothing, a pool that is gone); a write of the process makes
    the next read read the store again, and see the write."""
    from tf.utils import Diagnostics  # pylint: disable=import-outside-toplevel
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # pylint: disable=C0415
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E501 pylint: disable=C0415
    from netpool_terraform.provider import NetpoolProvider  # pylint: disable=import-error,import-outside-toplevel
    from netpool_terraform.resources import Reservation, get  # pylint: disable=import-error,import-outside-toplevel

    path = str(tmp_path / 'ipam.sqlite')
    store = open_store(path)
    svc = Service(store)
    svc.pool('v4', subnets=[{'cidr': '10.0.0.0/24'}])
    svc.pool('both', subnets=[{'cidr': '10.1.0.0/24'}, {'cidr': '2001:db8::/64', 'ranges': ['2001:db8::10-2001:db8::ff']}])
    svc.pool('gone', subnets=[{'cidr': '10.2.0.0/24'}])
    svc.pool('v4', namespace='lab', subnets=[{'cidr': '10.9.0.0/24'}])
    for owner in ('a', 'b', 'c'):
        svc.reserve('v4', owner)
    svc.reserve('v4', 'a', namespace='lab')
    svc.reserve('both', 'd', family='dual')
    svc.reserve('both', 'e', family='ipv6')
    svc.reserve('gone', 'f')
    wanted = [('default', 'v4', o, None) for o in ('a', 'b', 'c', 'nobody')] + [
        ('default', 'both', 'd', 'dual'), ('default', 'both', 'd', 'ipv6'), ('default', 'both', 'd', None),
        ('default', 'both', 'e', 'ipv6'), ('default', 'both', 'e', 'dual'), ('default', 'both', 'e', 'ipv4'),
        ('default', 'gone', 'f', None), ('lab', 'v4', 'a', None), ('lab', 'v4', 'b', None)]
    svc.pool('gone', state='absent', force=True)

    provider = NetpoolProvider()
    diags = Diagnostics()
    provider.configure_provider(diags, {'store': path})
    resource = Reservation(provider)
    transactions = []
    run = provider._run     # pylint: disable=protected-access
    provider._run = lambda *args: transactions.append(args[1]) or run(*args)   # pylint: disable=protected-access

    class Context(object):
        diagnostics = diags

    def current(namespace, pool, owner, family):
        return dict(resource.blank(), namespace=namespace, pool=pool, owner=owner, key='default', family=family)

    def one_by_one(namespace, pool, owner, family):
        r = get(svc, pool, owner, 'default', namespace, family) if pool != 'gone' else (None, None)
        return None if r[0] is None else resource._state(r, current(namespace, pool, owner, family))  # noqa: E501 pylint: disable=protected-access

    expected = [one_by_one(*w) for w in wanted]
    assert [e is None for e in expected] == [False, False, False, True, False, False, False, False, True, True,
                                             True, False, True]
    assert [resource.read(Context(), current(*w)) for w in wanted] == expected
    assert not diags.diagnostics
    assert len(transactions) == 2       # one per namespace

    provider.run(diags, 'reserve', lambda s: s.reserve('v4', 'nobody'), writes=True)
    assert resource.read(Context(), current('default', 'v4', 'nobody', None))['address'] == '10.0.0.4'
    assert len(transactions) == 4       # the write, then the namespace read again
    store.close()


def test_a_reservation_planned_none_never_takes_an_address_planned_for_another(tmp_path):
    """At apply, Terraform plans each new reservation again, ten at once: in a pool with two free addresses, two of
    three are planned them and the third is planned none. Whichever order the three then apply in, the third takes
    no address planned for another (they would fail ``address_in_use``): it fails ``pool_exhausted`` saying why, or,
    with a free address beside them, takes that one; an owner that holds its address already keeps it. An apply that
    writes pools plans again only what the plan planned."""
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # pylint: disable=C0415
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E501 pylint: disable=C0415
    from netpool_terraform._planning import Ledger, NoneLeft, Planner  # pylint: disable=import-error,C0415

    store = open_store(str(tmp_path / 'ipam.sqlite'))
    svc = Service(store)
    svc.pool('tiny', subnets=[{'cidr': '10.50.0.0/30'}])
    planner = Planner(Ledger(str(tmp_path / 'planned.jsonl')))
    ident = dict((o, ('default', 'tiny', o, 'default', None)) for o in ('vm0', 'vm1', 'vm2', 'held'))
    assert [planner.plan(svc, ident[o])['address'] for o in ('vm1', 'vm0')] == ['10.50.0.1', '10.50.0.2']
    assert planner.plan(svc, ident['vm2']) is None
    with pytest.raises(NoneLeft, match="Pool 'tiny' has no free address left for vm2/default: the free ones are "
                                       "planned for other reservations of this apply"):
        planner.unplanned(svc, ident['vm2'])
    svc.reserve('tiny', 'vm1', address='10.50.0.1', planned=True)     # one of them applied: the other is still due
    with pytest.raises(NoneLeft):
        planner.unplanned(svc, ident['vm2'])
    svc.pool('tiny', subnets=[{'cidr': '10.50.0.0/29'}])
    assert planner.unplanned(svc, ident['vm2'])['address'] == '10.50.0.3'
    svc.reserve('tiny', 'held')
    assert planner.unplanned(svc, ident['held']) is None
    assert Planner(Ledger(str(tmp_path / 'other.jsonl'))).unplanned(svc, ident['vm2']) is None  # planned nothing

    # an apply that writes pools plans again only what the plan planned (a child it carves next would make any
    # other address it plans now no longer free): the rest it allocates
    ledger = Ledger(str(tmp_path / 'apply.jsonl'))
    ledger.put(ident['vm0'], '10.50.0.4')
    apply = Planner(ledger)
    apply.pool_written('default')
    assert apply.plan(svc, ident['vm0'])['address'] == '10.50.0.4'
    assert apply.plan(svc, ident['vm2']) is None
    store.close()


def test_the_ledger_appends_to_the_file_there_after_another_process_rewrote_it(tmp_path):
    """A ledger keeps the file it appends to open; another process that rewrites the ledger (compacting it)
    replaces the file: what is planned after that is appended to the new file, where the apply reads it."""
    from netpool_terraform._planning import Ledger  # pylint: disable=import-error,import-outside-toplevel

    path = str(tmp_path / 'planned.jsonl')
    ident = dict((o, ('default', 'web', o, 'default', None)) for o in ('vm0', 'vm1', 'vm2'))

    def rewritten_by_another():
        other = Ledger(path)
        other.get(ident['vm0'])
        other._rewrite()         # pylint: disable=protected-access

    planning = Ledger(path)
    planning.put(ident['vm0'], '10.0.0.1')
    rewritten_by_another()
    planning.put(ident['vm1'], '10.0.0.2')
    planning.forget(ident['vm0'])
    rewritten_by_another()
    planning.put(ident['vm2'], '10.0.0.3')
    applying = Ledger(path)
    assert [applying.get(ident[o]) for o in ('vm0', 'vm1', 'vm2')] == [None, '10.0.0.2', '10.0.0.3']


def test_a_pool_without_reuse_delay_is_asked_for_no_returning_address(tmp_path):
    """Planning in a pool without a reuse delay asks the store for no address coming back (no address rests
    there): the delay is read once per pool. In a pool with one, an owner gets back the address it left resting;
    in a namespace whose pools the process writes, the delay is asked each time."""
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service  # pylint: disable=C0415
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store  # noqa: E501 pylint: disable=C0415
    from netpool_terraform._planning import Ledger, Planner  # pylint: disable=import-error,C0415

    store = open_store(str(tmp_path / 'ipam.sqlite'))
    svc = Service(store)
    svc.pool('plain', subnets=[{'cidr': '10.50.0.0/24'}])
    svc.pool('rests', subnets=[{'cidr': '10.51.0.0/24'}], reuse_delay=3600)
    svc.reserve('rests', 'back')
    svc.reserve('rests', 'other')
    svc.release('default', pool='rests', owner='back')
    asked = []
    returning = svc.returning
    svc.returning = lambda *args, **kwargs: asked.append(args[:2]) or returning(*args, **kwargs)
    planner = Planner(Ledger(str(tmp_path / 'planned.jsonl')))
    assert [planner.plan(svc, ('default', 'plain', o, 'default', None))['address'] for o in ('a', 'b', 'c')] == [
        '10.50.0.1', '10.50.0.2', '10.50.0.3']
    assert asked == []
    assert planner.plan(svc, ('default', 'rests', 'back', 'default', None))['address'] == '10.51.0.1'
    assert planner.plan(svc, ('default', 'rests', 'new', 'default', None))['address'] == '10.51.0.3'
    assert asked == [('rests', 'back'), ('rests', 'new')]
    svc.pool('plain', subnets=[{'cidr': '10.50.0.0/24'}], reuse_delay=60)
    planner.pool_written('default')
    planner.ledger.put(('default', 'plain', 'd', 'default', None), '10.50.0.4')
    planner.plan(svc, ('default', 'plain', 'd', 'default', None))
    assert asked[-1] == ('plain', 'd')
    store.close()
