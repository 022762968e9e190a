# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Real ``terraform`` runs against the netpool provider, offline.

The provider comes from a filesystem mirror that ``terraform-provider-netpool mirror`` writes (the package
is installed in this virtualenv by ``make venv``), found through a CLI configuration of the test's own
(``TF_CLI_CONFIG_FILE``); HOME is a directory of the test, so nothing of the user's Terraform setup is read
and nothing is written outside the test's directories. ``direct { exclude }`` keeps ``terraform init`` off
the registry.

No ``terraform`` on PATH skips the tests with the reason, unless ``NETPOOL_IPAM_TEST_TERRAFORM=required``
(CI, where it is installed): then they fail.
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
COLLECTIONS = os.path.join(ROOT, 'collections')
TERRAFORM = os.environ.get('NETPOOL_IPAM_TEST_TERRAFORM_BIN') or shutil.which('terraform')
REQUIRED = os.environ.get('NETPOOL_IPAM_TEST_TERRAFORM') == 'required'
PROVIDER = os.path.join(os.path.dirname(sys.executable), 'terraform-provider-netpool')
SOURCE = 'terraform.local/netpool/netpool'


def unavailable(reason):
    msg = ('Terraform end-to-end tests need %s. NETPOOL_IPAM_TEST_TERRAFORM=required makes this a failure.' % reason)
    if REQUIRED:
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


def require_terraform():
    if not TERRAFORM:
        unavailable('terraform (1.0 or later) on PATH, or NETPOOL_IPAM_TEST_TERRAFORM_BIN naming it; it is not '
                    'in the package registries: install it from https://developer.hashicorp.com/terraform/install')
    if not os.path.exists(PROVIDER):
        unavailable('the provider package installed beside this Python (%s): run make venv' % sys.executable)


def write_mirror(directory):
    """Run the mirror command into ``directory``; the CLI configuration file it wrote."""
    cli = os.path.join(directory, 'cli.tfrc')
    out = subprocess.run([PROVIDER, 'mirror', os.path.join(directory, 'mirror'), '--collections-path', COLLECTIONS,
                          '--cli-config', cli], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert 'source  = "%s"' % SOURCE in out.stdout
    return cli


class TerraformFailed(AssertionError):
    pass


class Workdir(object):
    """A Terraform root module in ``path`` using the netpool provider on ``store``."""

    def __init__(self, path, cli_config, store, home=None, env=None):
        self.path = str(path)
        os.makedirs(self.path, exist_ok=True)
        self.store = store
        self.home = home
        if home is None:
            self.home = os.path.join(self.path, 'home')
            os.makedirs(self.home)
        self.env = dict(os.environ, TF_CLI_CONFIG_FILE=cli_config, CHECKPOINT_DISABLE='1', TF_IN_AUTOMATION='1',
                        HOME=self.home, TF_INPUT='0', **(env or {}))
        for var in ('TF_LOG', 'TF_PLUGIN_CACHE_DIR', 'NETPOOL_IPAM_STORE', 'NETPOOL_IPAM_STORE_TOKEN',
                    'TF_DATA_DIR', 'XDG_CACHE_HOME'):
            if var not in (env or {}):
                self.env.pop(var, None)
        self.initialised = False

    def write(self, body, provider=None):
        """main.tf: the required_providers block, the provider block (``store`` unless ``provider`` gives
        the block's body), then ``body``."""
        if provider is None:
            provider = 'store = %s' % json.dumps(self.store)
        with open(os.path.join(self.path, 'main.tf'), 'w') as f:
            f.write('terraform {\n  required_providers {\n    netpool = { source = "%s" }\n  }\n}\n\n'
                    'provider "netpool" {\n  %s\n}\n\n%s\n' % (SOURCE, provider, body))

    def run(self, *args, **kwargs):
        """``terraform ARGS``; fails the test unless its exit code is in ``codes`` (default 0)."""
        codes = kwargs.pop('codes', (0,))
        if args[0] != 'init' and not self.initialised:
            self.init()
        out = subprocess.run([TERRAFORM] + list(args) + ['-no-color'], cwd=self.path, env=self.env,
                             capture_output=True, text=True, check=False, **kwargs)
        if out.returncode not in codes:
            raise TerraformFailed('terraform %s exited %d\n--- stdout\n%s\n--- stderr\n%s'
                                  % (' '.join(args), out.returncode, out.stdout, out.stderr))
        return out

    def init(self):
        self.initialised = True
        return self.run('init', '-input=false')

    def apply(self, *args, **kwargs):
        return self.run('apply', '-auto-approve', '-input=false', *args, **kwargs)

    def destroy(self, **kwargs):
        return self.run('destroy', '-auto-approve', '-input=false', **kwargs)

    def plan(self):
        """``(exit code of plan -detailed-exitcode, {address: actions})``: 0 is no change."""
        out = self.run('plan', '-input=false', '-detailed-exitcode', '-out=plan.bin', codes=(0, 2))
        shown = json.loads(self.run('show', '-json', 'plan.bin').stdout)
        changes = dict((c['address'], c['change']['actions']) for c in shown.get('resource_changes', ())
                       if c['change']['actions'] != ['no-op'] and c['mode'] == 'managed')
        return out.returncode, changes

    def state(self):
        """``{address: values}`` of the resources and data sources in the state."""
        shown = json.loads(self.run('show', '-json').stdout)
        found = {}
        modules = [shown.get('values', {}).get('root_module', {})]
        for module in modules:
            for r in module.get('resources', ()):
                found[r['address']] = r['values']
        return found

    def outputs(self):
        return dict((k, v['value']) for k, v in json.loads(self.run('output', '-json').stdout).items())


@contextlib.contextmanager
def service(store):
    """The collection's service over ``store``, opened as a module or the lookup opens it: what Ansible sees."""
    opened = open_store(store, timeout=30)
    try:
        yield Service(opened)
    finally:
        opened.close()
