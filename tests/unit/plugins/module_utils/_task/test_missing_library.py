# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A library missing on the controller is reported as such (``store_unavailable``), with how to install it.

Each case runs in a Python process of its own in which importing the library fails (an import hook, as when it
is not installed): a task through the action plugin, the module file and the lookup. The message names the
library, the Python that lacks it (``sys.executable``), the exact ``<that python> -m pip install`` command and
the collection's requirements.txt; it is never ``unsupported`` (what a store cannot hold) nor a traceback.
"""

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.netpool.ipam.tests.support.reliability import ROOT

SCRIPT = r'''
import json, sys

BLOCKED = sys.argv[1]


class Missing(object):
    """Import of BLOCKED fails, as when it is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == BLOCKED or name.startswith(BLOCKED + '.'):
            raise ModuleNotFoundError('No module named %r' % name, name=name)
        return None


sys.meta_path.insert(0, Missing())
sys.path.insert(0, sys.argv[2])
how, module, args = sys.argv[3], sys.argv[4], json.loads(sys.argv[5])

if how == 'action':
    import importlib
    from ansible_collections.netpool.ipam.tests.support.reliability import action
    plugin = importlib.import_module('ansible_collections.netpool.ipam.plugins.action.' + module)
    print(json.dumps(action(plugin.ActionModule, args).run(task_vars={})))
elif how == 'module':
    import importlib
    from ansible.module_utils.testing import patch_module_args
    plugin = importlib.import_module('ansible_collections.netpool.ipam.plugins.modules.' + module)
    with patch_module_args(args):
        try:
            plugin.main()
        except SystemExit:
            pass
else:
    from ansible.errors import AnsibleError
    from ansible_collections.netpool.ipam.tests.support.plugins import lookup
    try:
        lookup(['web'], **args)
    except AnsibleError as e:
        print(json.dumps({'failed': True, 'msg': str(e), 'error': getattr(e, 'error', None)}))
'''


def run_without(library, how, module, args, cwd):
    proc = subprocess.run([sys.executable, '-c', SCRIPT, library, os.path.join(ROOT, 'collections'), how, module or '',
                           json.dumps(args)], cwd=str(cwd), capture_output=True, text=True, timeout=120, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith('{')]
    assert lines, proc.stdout + proc.stderr
    return json.loads(lines[-1])


def _says_how_to_install(result, library, requirement):
    assert result['failed'] and result['error'] == 'store_unavailable', result
    msg = result['msg']
    assert 'Python library %s' % library in msg, msg
    assert sys.executable in msg, msg                                   # the Python that lacks it
    assert '%s -m pip install %s' % (sys.executable, requirement) in msg, msg
    assert 'requirements.txt' in msg and 'Traceback' not in msg, msg


@pytest.mark.parametrize('how, module', [('action', 'reservation'), ('module', 'info'), ('lookup', None)])
def test_a_missing_netaddr_is_store_unavailable_with_the_pip_command(how, module, tmp_path):
    args = {'pool': 'web', 'owner': 'h1'} if how == 'action' else ({} if how == 'module' else {'owner': 'h1'})
    result = run_without('netaddr', how, module, args, tmp_path)
    _says_how_to_install(result, 'netaddr', 'netaddr')
    assert os.listdir(str(tmp_path)) == []          # nothing was created


@pytest.mark.parametrize('how, module', [('action', 'info'), ('lookup', None)])
def test_a_missing_psycopg_is_store_unavailable_with_the_pip_command(how, module, tmp_path):
    store = 'postgresql://ipam:pw-SECRET@127.0.0.1:9/ipam'
    args = {'store': store} if how == 'action' else {'owner': 'h1', 'store': store}
    result = run_without('psycopg', how, module, args, tmp_path)
    _says_how_to_install(result, 'psycopg', "'psycopg[binary]'")
    assert 'pw-SECRET' not in json.dumps(result)


def test_a_missing_psycopg_does_not_matter_to_a_file_store(tmp_path):
    result = run_without('psycopg', 'action', 'pool', {'name': 'web', 'cidr': '10.0.0.0/29'}, tmp_path)
    assert result.get('failed') is not True and result['changed'], result
