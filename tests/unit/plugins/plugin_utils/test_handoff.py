# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The reserve role's hand-over of each host's request to the task run once (plugin_utils/_handoff.py, issue 25):
workers forked by the process that imported it share it, nothing of a request is readable in its file, and the
task run once reads its own run only."""

import os
import pickle

import pytest

from ansible_collections.netpool.ipam.plugins.plugin_utils import _handoff

SECRET = 'tok-Hh27bYw5SECRET'
# Ansible forks its workers the same way; the children here only write and read the file
pytestmark = pytest.mark.filterwarnings('ignore:This process .* is multi-threaded:DeprecationWarning')


def in_worker(call):
    """What ``call()`` returns in a process forked from this one, as Ansible forks a worker per host and task."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:    # pragma: no cover - the child
        os.close(read)
        try:
            out = pickle.dumps(('ok', call()))
        except BaseException as e:  # pylint: disable=broad-except
            out = pickle.dumps(('error', repr(e)))
        os.write(write, out)
        os._exit(0)
    os.close(write)
    data = b''
    while True:
        chunk = os.read(read, 65536)
        if not chunk:
            break
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    status, value = pickle.loads(data)
    assert status == 'ok', value
    return value


def test_workers_hand_their_requests_to_the_batch_of_their_run_encrypted():
    assert not _handoff.shared()     # the process that made the file hands nothing over: its workers do
    assert in_worker(_handoff.shared)
    run = in_worker(_handoff.new_run)
    other = os.urandom(16).hex()
    for host, which in (('h2', run), ('h1', run), ('h3', other), ('h1', run)):
        in_worker(lambda host=host, which=which: _handoff.put(which, host, {
            'host': host, 'store_token': SECRET, 'metadata': {'rack': host}}))
    raw = os.pread(_handoff._FILE.fileno(), 1 << 20, 0)  # pylint: disable=protected-access
    assert raw and SECRET.encode() not in raw and b'rack' not in raw and b'h2' not in raw
    taken = in_worker(lambda: _handoff.take(run))
    assert sorted(taken) == ['h1', 'h2'] and taken['h2']['store_token'] == SECRET
    expected = {'h3': {'host': 'h3', 'store_token': SECRET, 'metadata': {'rack': 'h3'}}}
    assert in_worker(lambda: _handoff.take(other)) == expected
    # the next run of the role starts with an empty file
    again = in_worker(_handoff.new_run)
    assert again != run and in_worker(lambda: _handoff.take(run)) == {}
    assert os.fstat(_handoff._FILE.fileno()).st_size == 0  # pylint: disable=protected-access


def test_a_record_sealed_for_another_run_is_refused():
    run, other = in_worker(_handoff.new_run), os.urandom(16).hex()
    in_worker(lambda: _handoff.put(run, 'h1', {'host': 'h1'}))
    # the record's run in clear changed: its seal (bound to the run) no longer opens
    fd = os.open('/proc/self/fd/%d' % _handoff._FILE.fileno(), os.O_WRONLY)  # pylint: disable=protected-access
    try:
        os.pwrite(fd, bytes.fromhex(other), 0)     # not appended: this descriptor is not O_APPEND
    finally:
        os.close(fd)
    assert 'InvalidTag' in in_worker(lambda: repr(_expect_error(lambda: _handoff.take(other))))


def _expect_error(call):
    try:
        call()
    except Exception as e:  # pylint: disable=broad-except
        return e
    raise AssertionError('no error')
