# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The examples of the provider's registry docs (terraform/examples/, shown in terraform/docs/) run as they
are with real terraform: the provider block, every resource, then every data source, then every
import command, on a SQLite store in the module's directory (the provider example's ``store``)."""

import os
import shlex

from harness import ROOT, Workdir, service  # pylint: disable=import-error

EXAMPLES = os.path.join(ROOT, 'terraform', 'examples')


def example(*path):
    with open(os.path.join(EXAMPLES, *path)) as f:
        return f.read()


def test_examples_apply_read_and_import(tmp_path, cli_config):
    w = Workdir(tmp_path / 'tf', cli_config, str(tmp_path / 'tf' / 'ipam.sqlite'))
    with open(os.path.join(w.path, 'provider.tf'), 'w') as f:
        f.write(example('provider', 'provider.tf'))
    resources = sorted(os.listdir(os.path.join(EXAMPLES, 'resources')))
    data_sources = sorted(os.listdir(os.path.join(EXAMPLES, 'data-sources')))
    assert resources == data_sources == ['netpool_pool', 'netpool_reservation']

    for name in resources:
        with open(os.path.join(w.path, name + '.tf'), 'w') as f:
            f.write(example('resources', name, 'resource.tf'))
    w.apply()
    assert w.plan() == (0, {})
    assert sorted(w.outputs()['addresses']) == ['web1', 'web2', 'web3']

    # what the data source example reads: Ansible's reservation for db1
    with service(w.store) as svc:
        svc.pool('db', subnets=[{'cidr': '10.1.0.0/24'}])
        svc.reserve('db', 'db1')
    for name in data_sources:
        with open(os.path.join(w.path, name + '_data.tf'), 'w') as f:
            f.write(example('data-sources', name, 'data-source.tf'))
    w.apply()
    outputs = w.outputs()
    assert outputs['db1_address'] == '10.1.0.1'
    assert outputs['web_free'].endswith(' free')

    for name in resources:
        for line in example('resources', name, 'import.sh').splitlines():
            if line.startswith('terraform import '):
                args = shlex.split(line)[2:]
                w.run('state', 'rm', args[0])
                w.run('import', *args)
    # an imported pool's state spells reuse_delay and exclusions as the store does ("3600", "10.0.0.50-10.0.0.50"):
    # the next plan rewrites the configuration's spelling in place (nothing changes in the store), never replaces
    _code, changes = w.plan()
    assert set(a for actions in changes.values() for a in actions) <= {'update'}
    w.apply()
    assert w.plan() == (0, {})
