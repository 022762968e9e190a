# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the reliability tests share (test_bad_input, test_state_machine, test_crash, test_upgrade, test_secrets).

Not a test file: helpers only. Which stores a test runs on is ``stores.py``
beside this file.
"""

import contextlib
import os
import shutil
import sys
from unittest.mock import MagicMock

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FIXTURES = os.path.join(ROOT, 'tests', 'unit', 'fixtures')


@contextlib.contextmanager
def fresh_spec(kind, directory):
    """Yield a ``store`` value naming a new, empty state of ``kind`` (PostgreSQL: a schema dropped afterwards)."""
    if kind == 'sqlite':
        yield os.path.join(str(directory), 'ipam.sqlite')
    elif kind == 'json':
        yield os.path.join(str(directory), 'ipam.json')
    else:
        from ansible_collections.netpool.ipam.tests.support import postgresql_server
        with postgresql_server.fresh_schema('rel') as (spec, _schema):
            yield spec


def snapshot(store, spec):
    """What must not change: the full content (``export_document``), and for JSON the file's bytes."""
    raw = None
    if spec.endswith('.json') and os.path.exists(spec):
        with open(spec, 'rb') as f:
            raw = f.read()
    return export_document(store), raw


def ansible_bin(name):
    """The path of an ansible command next to this Python (``make venv``). ansible-core is a hard dependency
    (requirements.txt): a test that needs the command fails without it, it is never skipped."""
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    found = candidate if os.path.exists(candidate) else shutil.which(name)
    if not found:
        pytest.fail('%s is not installed next to this Python (%s): install requirements.txt (make venv).'
                    % (name, sys.executable), pytrace=False)
    return found


def ansible_env(**extra):
    """The environment an ansible-playbook subprocess of the tests runs with: this checkout as the collection."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, 'collections'),
               ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_NOCOLOR='1', ANSIBLE_FORCE_COLOR='0')
    env.pop('NETPOOL_IPAM_STORE', None)
    env.pop('NETPOOL_IPAM_STORE_TOKEN', None)
    env.update(extra)
    return env


def action(cls, args, check=False, diff=False):
    """An instance of action plugin class ``cls`` for a task with ``args``, as Ansible would make it."""
    task = MagicMock()
    task.args = args
    task.check_mode = check
    task.diff = diff
    task.async_val = 0
    connection = MagicMock()
    connection._shell.tmpdir = None
    return cls(task, connection, MagicMock(), loader=None, templar=None, shared_loader_obj=None)
