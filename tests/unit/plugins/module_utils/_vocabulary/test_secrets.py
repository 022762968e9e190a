# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Secrets and permissions.

- Every file a store creates is 0600, even under umask 0: the SQLite file and
  its -wal/-shm, the JSON document, its lock file and its temporary file.
- ``store_token`` and a password in a store URL never appear in a result, a
  failure, the history or the output of ``ansible-playbook -vvv``: through the
  action plugins, the module files and the lookup, on a PostgreSQL URL whose
  port is closed and (when a server answers) on a real PostgreSQL store
  reached with a password.
- ``_secrets`` itself (the one module that finds and hides them): every form a
  store value carries a password in, hidden in strings, dicts and lists.
- A libpq keyword connection string (``host=db password=x dbname=ipam``) is
  refused with ``invalid_argument`` by the modules and the lookup, never
  becomes a SQLite file whose name holds the password; file paths that hold
  ``=`` still work.
"""

import json
import os
import stat

import pytest
import yaml

from ansible.errors import AnsibleError

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _secrets
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import dsn_keywords, open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.playbook import run_playbook
from ansible_collections.netpool.ipam.tests.support.plugins import lookup, run_action, run_module

SECRET = 'S3cr3t-Pa55word-42'
TOKEN = 'T0ken-0f-the-N3tbox-77'


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_0():
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_sqlite_files_are_0600_under_umask_0(tmp_path, umask_0):
    path = str(tmp_path / 'ipam.sqlite')
    store = open_store(path)
    svc = Service(store)
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    svc.reserve('web', 'h1')
    for name in ('ipam.sqlite', 'ipam.sqlite-wal', 'ipam.sqlite-shm'):
        assert mode(str(tmp_path / name)) == 0o600, name
    assert os.umask(0) == 0                 # the test really ran under umask 0
    store.close()
    assert sorted(os.listdir(str(tmp_path))) == ['ipam.sqlite']
    assert mode(path) == 0o600


def test_json_files_are_0600_under_umask_0(tmp_path, umask_0, monkeypatch):
    path = str(tmp_path / 'ipam.json')
    seen = []
    replace = os.replace

    def spy(src, dst):
        seen.append((os.path.basename(src), mode(src)))
        return replace(src, dst)
    monkeypatch.setattr(_json.os, 'replace', spy)
    svc = Service(open_store(path))
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    svc.reserve('web', 'h1')
    assert len(seen) == 2 and all(name.startswith('.ipam.json.') and m == 0o600 for name, m in seen), seen
    assert mode(path) == 0o600 and mode(path + '.lock') == 0o600
    assert sorted(os.listdir(str(tmp_path))) == ['ipam.json', 'ipam.json.lock']


# -- secrets --------------------------------------------------------------------------------------------------

def _closed_url():
    return 'postgresql://ipam:%s@127.0.0.1:%d/ipam' % (SECRET, server.closed_port())


def _no_secret(*things):
    text = json.dumps(things, default=repr)
    assert SECRET not in text and TOKEN not in text


@pytest.mark.parametrize('module, args', [
    ('reservation', {'pool': 'web', 'owner': 'h1'}),
    ('reservation', {'pool': 'web', 'owner': 'h1', 'state': 'absent'}),
    ('pool', {'name': 'web', 'cidr': '10.0.0.0/24'}),
    ('range', {'pool': 'web', 'range': '10.0.0.5'}),
    ('info', {'history': True}),
])
def test_closed_port_failures_hide_the_password(module, args, capsys):
    args = dict(args, store=_closed_url(), store_token=TOKEN, timeout=3)
    result = run_action(module, args)
    assert result['failed'] and result['error'] in ('store_unavailable', 'invalid_argument'), result
    _no_secret(result)
    result = run_module(module, args, capsys)
    assert result['failed'], result
    _no_secret(result)


def test_option_errors_hide_the_password(capsys):
    """Refused before any store is opened (ansible-core 2.19 puts every option in ``invocation``)."""
    args = {'pool': 'web', 'owner': 'h1', 'timeout': 'soon', 'store': 'postgresql://ipam:%s@db.example/ipam' % SECRET}
    for result in (run_action('reservation', args), run_module('reservation', args, capsys)):
        assert result['failed'] and result['error'] == 'invalid_argument', result
        _no_secret(result)


def test_the_password_of_a_query_parameter_is_hidden_too(capsys):
    url = 'postgresql://ipam@127.0.0.1:%d/ipam?password=%s&connect_timeout=3' % (server.closed_port(), SECRET)
    result = run_action('info', {'store': url, 'timeout': 1})      # a closed port is retried until the timeout
    assert result['error'] == 'store_unavailable'
    _no_secret(result)


def test_token_of_a_store_that_is_not_there_is_hidden(capsys):
    result = run_action('reservation', {'pool': 'web', 'owner': 'h1', 'store': 'netbox+https://127.0.0.1:9',
                                        'store_token': TOKEN, 'timeout': 1})   # retried until the timeout
    assert result['error'] == 'store_unavailable'
    _no_secret(result)


def test_lookup_failures_hide_the_password():
    with pytest.raises(AnsibleError) as info:
        lookup(['web'], owner='h1', store=_closed_url(), timeout=3)
    assert 'store_unavailable' in str(info.value)
    _no_secret(str(info.value), repr(info.value))


def test_a_real_postgresql_store_reached_with_a_password_keeps_it_out_of_everything(capsys):
    server.require_server()
    with server.fresh_schema('sec') as (_url, schema):
        url = server.url(schema, password=SECRET)          # trust auth: any password logs in
        assert SECRET in url
        results = [
            run_action('pool', {'name': 'web', 'cidr': '10.0.0.0/29', 'store': url}),
            run_action('reservation', {'pool': 'web', 'owner': 'h1', 'store': url, 'metadata': {'note': 'x'}}),
            run_action('reservation', {'pool': 'web', 'owner': 'h2', 'address': '10.0.0.5', 'store': url}),
            run_action('reservation', {'pool': 'web', 'owner': 'h1', 'state': 'absent', 'store': url}),
            run_action('info', {'history': True, 'map': True, 'store': url}),
            lookup(['web'], owner='h3', allocate=True, format='dict', store=url),
            run_module('info', {'history': True, 'store': url}, capsys),
        ]
        assert not any(isinstance(r, dict) and r.get('failed') for r in results), results
        assert results[4]['history']
        store = open_store(url)
        state = export_document(store)
        store.close()
        _no_secret(results, state)


PLAYBOOK = """
- hosts: all
  gather_facts: false
  tasks:
    - name: a store whose port is closed
      netpool.ipam.reservation:
        pool: web
        owner: "{{ inventory_hostname }}"
        store: "{{ closed_url }}"
        store_token: "{{ token }}"
        timeout: 1
      ignore_errors: true
    - name: the lookup on it
      ansible.builtin.debug:
        msg: "{{ lookup('netpool.ipam.address', 'web', owner=inventory_hostname, store=closed_url, timeout=1) }}"
      ignore_errors: true
    - name: a store that works, with a token
      netpool.ipam.pool:
        name: web
        cidr: 10.0.0.0/29
        store: "{{ good_store }}"
        store_token: "{{ good_token | default(omit) }}"
    - name: reserve on it
      netpool.ipam.reservation:
        pool: web
        owner: "{{ inventory_hostname }}"
        store: "{{ good_store }}"
        store_token: "{{ good_token | default(omit) }}"
    - name: history
      netpool.ipam.info:
        history: true
        store: "{{ good_store }}"
        store_token: "{{ good_token | default(omit) }}"
"""


def test_ansible_playbook_vvv_output_never_shows_a_secret(tmp_path):
    with_server = True
    try:
        server.require_server()
    except BaseException:  # pylint: disable=broad-except
        with_server = False
    (tmp_path / 'play.yml').write_text(PLAYBOOK)
    (tmp_path / 'hosts.ini').write_text('node1 ansible_connection=local\n')
    variables = {'closed_url': _closed_url(), 'token': TOKEN, 'good_token': TOKEN,
                 'good_store': str(tmp_path / 'ipam.sqlite')}

    def play(variables):
        (tmp_path / 'vars.yml').write_text(yaml.safe_dump(variables))
        proc = run_playbook('-vvv', '-i', 'hosts.ini', '-e', '@vars.yml', 'play.yml', cwd=tmp_path, apart=True)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, output
        assert 'ok=5' in output and 'failed=0' in output and 'ignored=2' in output, output[-3000:]
        assert 'store_unavailable' in output               # the failures were reported...
        assert SECRET not in output and TOKEN not in output  # ...without the secrets
        return output

    play(variables)
    if with_server:
        with server.fresh_schema('vvv') as (_url, schema):
            variables['good_store'] = server.url(schema, password=SECRET)   # a password in the URL: no token
            del variables['good_token']
            play(variables)


# -- the _secrets module ---------------------------------------------------------------------------------------

@pytest.mark.parametrize('store, found', [
    ('postgresql://ipam:%s@db/ipam' % SECRET, [SECRET]),
    ('postgresql://db/ipam?user=u&password=%s&sslmode=require' % SECRET, [SECRET]),
    ('postgresql://db/ipam?sslpassword=%s' % SECRET, [SECRET]),
    ('postgresql://ipam:p%40ss%2Fw@db/ipam', ['p%40ss%2Fw', 'p@ss/w']),     # as written, and as a driver decodes it
    ('host=db password=%s dbname=ipam' % SECRET, [SECRET]),
    ("host=db password = 'two words' dbname=ipam", ['two words']),
    ('ipam.sqlite', []),
    ('/srv/password=x/ipam.sqlite', []),
    (['not', 'a', 'string'], []),
    (None, []),
])
def test_find_every_password_of_a_store_value(store, found):
    assert _secrets.find({'store': store}) == found


def test_find_takes_the_token_of_raw_arguments():
    assert _secrets.find({'store': 'postgresql://db/ipam?user=u&password=pw1', 'store_token': 123456}) == \
        ['pw1', '123456']
    assert _secrets.find({'store': 'postgresql://u:pw2@db/ipam', 'store_token': 'pw2'}) == ['pw2']
    assert _secrets.find({'store_token': ''}) == [] and _secrets.find({}) == []
    assert _secrets.find({'store_token': ['a list']}) == []     # refused as an option; nothing to hide


def test_hide_in_strings_dicts_and_lists():
    hidden = _secrets.find({'store': 'postgresql://ipam:s3cret@db/ipam', 'store_token': 'tok'})
    assert sorted(hidden) == ['s3cret', 'tok']
    value = {'msg': 'tok and s3cret', 'l': ['s3cret', ('tok',)], 'n': 1, 'none': None}
    assert _secrets.hide(value, hidden) == \
        {'msg': '******** and ********', 'l': ['********', ['********']], 'n': 1, 'none': None}
    assert _secrets.hide('nothing to hide', []) == 'nothing to hide'
    # a secret inside another is hidden whole, whatever the order they were found in
    assert _secrets.hide('abc-secret', ['abc', 'abc-secret']) == '********'


@pytest.mark.parametrize('store, shown', [
    ('postgresql://ipam:s3cret@db:5432/ipam', 'postgresql://ipam:********@db:5432/ipam'),
    ('postgresql://db/ipam?user=ipam&password=s3cret&sslmode=require',
     'postgresql://db/ipam?user=ipam&password=********&sslmode=require'),
    ('host=db password=s3cret dbname=ipam', 'host=db password=******** dbname=ipam'),
    ('ipam.sqlite', 'ipam.sqlite'),
])
def test_redact_keeps_all_but_the_password(store, shown):
    assert _secrets.redact(store) == shown


def test_the_stores_hide_with_the_same_module(tmp_path):
    """The runner's failures use ``_secrets``: what ``find`` finds is what a failure hides."""
    error = _runner.failure(InvalidArgument('bad %s and %s' % (SECRET, TOKEN)),
                            {'store': 'postgresql://u:%s@db/x' % SECRET, 'store_token': TOKEN})
    assert error == {'msg': 'bad ******** and ******** (store: postgresql://u:********@db/x)',
                     'error': 'invalid_argument', 'store': 'postgresql://u:********@db/x'}


# -- a libpq keyword connection string is refused -------------------------------------------------------------

DSNS = [
    'host=db password=%s dbname=ipam' % SECRET,
    "host=db.example port=5432 user=ipam password='%s' sslmode=require" % SECRET,
    'dbname = ipam   password=%s' % SECRET,
    'password=%s' % SECRET,
]


def _refused_dsn(result):
    assert result['failed'] and result['error'] == 'invalid_argument', result
    assert 'libpq keyword connection string' in result['msg'] and 'postgresql://' in result['msg'], result
    _no_secret(result)


@pytest.mark.parametrize('dsn', DSNS)
def test_a_keyword_dsn_is_refused_by_the_modules(dsn, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for module, args in (('reservation', {'pool': 'web', 'owner': 'h1'}), ('info', {}),
                         ('pool', {'name': 'web', 'cidr': '10.0.0.0/24'})):
        _refused_dsn(run_action(module, dict(args, store=dsn)))
        _refused_dsn(run_module(module, dict(args, store=dsn), capsys))   # invocation included
    assert os.listdir(str(tmp_path)) == []          # no store file named after the password


def test_a_keyword_dsn_in_the_environment_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('NETPOOL_IPAM_STORE', DSNS[0])
    _refused_dsn(run_action('info', {}))
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize('dsn', DSNS)
def test_a_keyword_dsn_is_refused_by_the_lookup(dsn, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for allocate in (False, True):
        with pytest.raises(AnsibleError) as info:
            lookup(['web'], owner='h1', store=dsn, allocate=allocate)
        assert info.value.error == 'invalid_argument'
        assert 'libpq keyword connection string' in str(info.value)
        _no_secret(str(info.value), repr(info.value))
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize('path', [
    './host=db',                    # the way to name a file that starts with word=value
    'a=b/ipam.sqlite',              # = in a directory name
    'dir/host=db password=x.sqlite',
    'colour=blue.sqlite',           # not a libpq keyword
    'my ipam store.json',
])
def test_file_paths_that_hold_an_equals_sign_still_work(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    assert dsn_keywords(path) == []
    result = run_action('pool', {'name': 'web', 'cidr': '10.0.0.0/29', 'store': path})
    assert result.get('failed') is not True and result['changed'], result
    assert os.path.exists(str(tmp_path / path))
    assert run_action('reservation', {'pool': 'web', 'owner': 'h1', 'store': path})['reservation']['address'] == \
        '10.0.0.1'


def test_dsn_keywords_names_the_libpq_keywords_only():
    assert dsn_keywords('host=db colour=blue dbname=ipam') == ['host', 'dbname']
    assert dsn_keywords('x=1 y=2') == []
    assert dsn_keywords("host=o'brien") == []       # an unbalanced quote is no connection string
