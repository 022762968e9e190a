# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A store file shared by a group stays shared: a change keeps the mode and the group of the file it writes (JSON
replaces its document by a rename, SQLite writes in place and makes its -wal/-shm files like the database); only a
new store is made 0600. Real files, changed by the service as a task changes them."""

import errno
import os

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreUnavailable
from ansible_collections.netpool.ipam.tests.support import stores

#: a group the files are given (root may give any; the tests run as root, or skip)
GROUP = 4242


def access(path):
    st = os.stat(path)
    return st.st_mode & 0o777, st.st_gid


@pytest.fixture
def shared(tmp_path, request):
    """A store of ``request.param`` ('json' or 'sqlite') holding one pool, then made 0664 and of group GROUP."""
    if os.geteuid() != 0:
        pytest.skip('giving a file another group needs root')
    path = str(tmp_path / ('ipam.' + request.param))
    store = open_store(path)
    Service(store).pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    store.close()
    if os.path.exists(path + '.lock'):
        os.remove(path + '.lock')       # made again beside the shared document
    os.chmod(path, 0o664)
    os.chown(path, -1, GROUP)
    return path


@pytest.mark.parametrize('shared', stores.FILES, indirect=True)
def test_a_change_keeps_the_mode_and_group_of_a_shared_store(shared):
    store = open_store(shared)
    try:
        service = Service(store)
        assert service.reserve('web', 'h1')['changed'] is True
        assert service.reserve('web', 'h2')['changed'] is True
        assert access(shared) == (0o664, GROUP)
        # the files made beside it while it is open: SQLite's write-ahead log, JSON's lock file
        beside = [shared + end for end in ('-wal', '-shm', '.lock') if os.path.exists(shared + end)]
        assert beside and [access(p) for p in beside] == [(0o664, GROUP)] * len(beside)
    finally:
        store.close()
    assert access(shared) == (0o664, GROUP)


def test_a_json_change_that_would_lose_the_group_is_refused_and_changes_nothing(tmp_path, monkeypatch):
    """A user outside the file's group (chown refused) cannot write a document that keeps it: refused, the file
    as it was, no temporary file left."""
    if os.geteuid() != 0:
        pytest.skip('giving a file another group needs root')
    path = str(tmp_path / 'ipam.json')
    Service(open_store(path)).pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    os.chown(path, -1, GROUP)
    before = open(path).read()

    def refused(fd, uid, gid):
        raise OSError(errno.EPERM, 'Operation not permitted')
    monkeypatch.setattr(_json.os, 'fchown', refused)
    with pytest.raises(StoreUnavailable, match='its group .gid 4242. is one the user running Ansible is not in'):
        Service(open_store(path)).reserve('web', 'h1')
    assert open(path).read() == before and access(path)[1] == GROUP
    assert sorted(os.listdir(str(tmp_path))) == ['ipam.json', 'ipam.json.lock']
