# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A full disk met through a task: ENOSPC injected where the JSON store creates its temporary file, through the
action plugin and through the module file. ``store_unavailable`` (never a traceback or ``unsupported``), nothing
kept. (The store's own crash and full-disk tests, which use no ansible-core, are
tests/unit/plugins/module_utils/_stores/test_crash.py.)"""

import errno
import json
import os
import tempfile

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.netpool.ipam.plugins.action import info as info_action, reservation as reservation_action
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.modules import info as info_module, reservation as reservation_module

from ansible_collections.netpool.ipam.tests.support import services
from ansible_collections.netpool.ipam.tests.support.reliability import action, snapshot

ACTIONS = {'info': info_action, 'reservation': reservation_action}
MODULES = {'info': info_module, 'reservation': reservation_module}


def _spec(tmp_path, kind):
    return str(tmp_path / ('ipam.' + kind))


def _no_space(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize('run', ['action', 'module'])
def test_json_write_refused_by_the_disk_through_a_task(tmp_path, monkeypatch, capsys, run):
    """A full disk met creating the JSON store's temporary file, through a task: ``store_unavailable`` saying
    so (never a traceback or ``unsupported``), the document byte for byte, and the failed reservation neither
    seen nor saved by the tasks that follow in the same process."""
    spec = _spec(tmp_path, 'json')
    args = {'pool': 'big', 'owner': 'lost', 'store': spec}
    store = open_store(spec)
    Service(store).pool('big', subnets=[{'cidr': '10.0.0.0/24'}])
    before = snapshot(store, spec)
    store.close()

    def task(module, task_args):
        if run == 'action':
            return action(ACTIONS[module].ActionModule, task_args).run(task_vars={})
        capsys.readouterr()
        with patch_module_args(task_args):
            with pytest.raises(SystemExit):
                MODULES[module].main()
        return json.loads(capsys.readouterr().out)
    try:
        with monkeypatch.context() as patch:
            patch.setattr(tempfile, 'mkstemp', _no_space)
            result = task('reservation', args)
        assert result.get('failed') is True and result['error'] == 'store_unavailable', result
        assert 'exception' not in result and 'Traceback' not in result['msg'], result
        assert 'no space left' in result['msg'].lower() and 'not changed' in result['msg'], result['msg']
        fresh = open_store(spec)
        assert snapshot(fresh, spec) == before
        fresh.close()
        assert task('info', {'owner': 'lost', 'store': spec})['reservations'] == []
        assert task('reservation', {'pool': 'big', 'owner': 'next', 'store': spec})['changed'] is True
        with open(spec) as f:
            assert '"lost"' not in f.read()
    finally:
        services.reset()
