# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""docs/awx.md and the inventory plugin's EXAMPLES give AWX a credential type: its injectors must set the
environment variables the plugins really read (the ``env`` entries of the ``store.plugin`` doc fragment), from
inputs the credential type declares, the token a secret."""

import os
import re

import yaml

from conftest import BIN, ROOT, run, tool_env


def _fragment_env():
    path = os.path.join(ROOT, 'plugins', 'doc_fragments', 'store.py')
    namespace = {}
    with open(path) as f:
        source = f.read()
    exec(compile(source.replace('from __future__ import annotations', ''), path, 'exec'), namespace)   # pylint: disable=exec-used
    options = yaml.safe_load(namespace['ModuleDocFragment'].PLUGIN)['options']
    return dict((name, [e['name'] for e in options[name]['env']]) for name in ('store', 'store_token'))


def _yaml_blocks(text):
    return [yaml.safe_load(b) for b in re.findall(r'```yaml\n(.*?)```', text, re.S)]


def test_the_credential_type_of_the_guide_injects_what_the_plugins_read():
    env = _fragment_env()
    with open(os.path.join(ROOT, 'docs', 'awx.md')) as f:
        blocks = _yaml_blocks(f.read())
    inputs = next(b for b in blocks if isinstance(b, dict) and 'fields' in b)
    injectors = next(b for b in blocks if isinstance(b, dict) and 'env' in b)
    fields = dict((field['id'], field) for field in inputs['fields'])
    assert sorted(fields) == ['store', 'store_token'] and fields['store_token'].get('secret') is True
    assert injectors['env'] == {env['store'][0]: '{{ store }}', env['store_token'][0]: '{{ store_token }}'}
    play = next(b for b in blocks if isinstance(b, list) and 'tasks' in b[0])
    task = next(t for t in play[0]['tasks'] if 'awx.awx.credential_type' in t)['awx.awx.credential_type']
    raw = '{%% raw %%}%s{%% endraw %%}'
    assert task['injectors']['env'] == dict((k, raw % v) for k, v in injectors['env'].items())
    assert task['inputs']['required'] == ['store'] and [f['id'] for f in task['inputs']['fields']] == ['store', 'store_token']
    assert env == {'store': ['NETPOOL_IPAM_STORE'], 'store_token': ['NETPOOL_IPAM_STORE_TOKEN']}


def test_the_inventory_plugin_examples_name_the_same_variables_and_parse():
    path = os.path.join(ROOT, 'plugins', 'inventory', 'reservations.py')
    with open(path) as f:
        examples = re.search(r'EXAMPLES = r"""(.*?)"""', f.read(), re.S).group(1)
    documents = list(yaml.safe_load_all(examples))
    assert all(d['plugin'] == 'netpool.ipam.reservations' for d in documents if d)
    assert "NETPOOL_IPAM_STORE: '{{ store }}'" in examples and "NETPOOL_IPAM_STORE_TOKEN: '{{ store_token }}'" in examples


def test_the_offline_execution_environment_of_the_guide_holds_the_tarball(tarball, tmp_path):
    """docs/awx.md's definition built with ``ansible-builder create`` beside the tarball: the context holds the
    tarball, its requirements.yml names it, the Containerfile's Galaxy step runs where that path resolves, and
    ``ansible-galaxy collection install -r requirements.yml`` in the context installs it with no network."""
    with open(os.path.join(ROOT, 'docs', 'awx.md')) as f:
        definition = re.search(r'<!-- file: execution-environment.yml \(offline\) -->\n```yaml\n(.*?)```', f.read(),
                               re.S).group(1)
    assert tarball.name in definition, (tarball.name, definition)   # the tarball of this version
    (tmp_path / 'execution-environment.yml').write_text(definition)
    (tmp_path / tarball.name).write_bytes(tarball.read_bytes())
    run([os.path.join(BIN, 'ansible-builder'), 'create', '-f', 'execution-environment.yml', '-c', 'context'],
        cwd=str(tmp_path))
    build = tmp_path / 'context' / '_build'
    assert (build / 'collections' / tarball.name).read_bytes() == tarball.read_bytes()
    assert yaml.safe_load((build / 'requirements.yml').read_text())['collections'] == [
        {'name': 'collections/%s' % tarball.name, 'type': 'file'}]
    steps = (tmp_path / 'context' / 'Containerfile').read_text() if (tmp_path / 'context' / 'Containerfile').exists() \
        else (tmp_path / 'context' / 'Dockerfile').read_text()
    assert 'COPY _build /build\nWORKDIR /build\n' in steps and 'collection install' in steps
    run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'install', '-r', 'requirements.yml', '-p',
         str(tmp_path / 'installed')], cwd=str(build),
        env=tool_env(HTTPS_PROXY='http://127.0.0.1:9', HTTP_PROXY='http://127.0.0.1:9', NO_PROXY=''))
    assert (tmp_path / 'installed' / 'ansible_collections' / 'netpool' / 'ipam' / 'MANIFEST.json').is_file()
