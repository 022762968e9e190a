# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

import fcntl
import json
import os

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract import StoreContract, file_mode


class TestJsonStore(StoreContract):

    @pytest.fixture
    def spec(self, tmp_path):
        return str(tmp_path / 'ipam.json')


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / 'ipam.json')


@pytest.fixture
def svc(path):
    svc = Service(open_store(path))
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.20']}])
    svc.reserve('web', 'h2', metadata={'mac': 'b'})
    svc.reserve('web', 'h1')
    return svc


def test_document_is_readable_sorted_and_private(svc, path):
    text = open(path).read()
    document = json.loads(text)
    assert document['schema_version'] == 1
    lines = text.splitlines()
    assert lines[0] == '{' and lines[-1] == '}' and lines[-2] == '  "schema_version": 1'
    assert [line for line in lines if line.startswith('  "')] == [
        '  "history": [', '  "pools": [', '  "reservations": [', '  "schema_version": 1']
    items = [json.loads(line.strip().rstrip(',')) for line in lines if line.startswith('    ')]
    assert items == document['history'] + document['pools'] + document['reservations']
    assert all(line.strip().rstrip(',') == json.dumps(json.loads(line.strip().rstrip(',')), sort_keys=True)
               for line in lines if line.startswith('    '))
    assert [r['owner'] for r in document['reservations']] == ['h2', 'h1']   # by address
    assert document['pools'][0]['free'] == ['10.0.0.12-10.0.0.20']
    assert file_mode(path) == 0o600 and file_mode(path + '.lock') == 0o600
    assert sorted(os.listdir(os.path.dirname(path))) == ['ipam.json', 'ipam.json.lock']


def test_unchanged_operations_do_not_rewrite_the_file(svc, path):
    before = os.stat(path)
    assert svc.reserve('web', 'h1')['changed'] is False
    assert svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])['changed'] is False
    assert svc.release(owner='nobody')['changed'] is False
    svc.reserve('web', 'h3', check=True)
    svc.info(history=True, map=True)
    after = os.stat(path)
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_a_failure_leaves_the_file_byte_for_byte(svc, path):
    before = open(path, 'rb').read()
    with pytest.raises(IpamError):
        svc.reserve('web', 'h9', address='10.0.0.10')
    assert open(path, 'rb').read() == before
    assert svc.reserve('web', 'h9')['reservation']['address'] == '10.0.0.12'


def test_newer_schema_is_refused_and_untouched(path):
    with open(path, 'w') as f:
        json.dump({'schema_version': 2, 'pools': []}, f)
    before = open(path, 'rb').read()
    with pytest.raises(IpamError) as info:
        Service(open_store(path)).info()
    assert info.value.code == 'store_version'
    assert open(path, 'rb').read() == before


@pytest.mark.parametrize('content', ['{"pools": [', '[]', '{"schema_version": "1"}',
                                     '{"schema_version": 1, "pools": [{"name": "web"}]}',
                                     '{"schema_version": 1, "reservations": [{"address": "10.0.0.300"}]}'])
def test_damaged_documents_are_store_unavailable(path, content):
    with open(path, 'w') as f:
        f.write(content)
    with pytest.raises(IpamError) as info:
        Service(open_store(path)).info()
    assert info.value.code == 'store_unavailable'
    assert open(path).read() == content


def test_a_held_lock_gives_store_busy(svc, path):
    fd = os.open(path + '.lock', os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(IpamError) as info:
            Service(open_store(path, timeout=0.2)).reserve('web', 'h3')
        assert info.value.code == 'store_busy'
    finally:
        os.close(fd)


def test_another_process_change_is_seen(svc, path):
    other = Service(open_store(path))
    other.reserve('web', 'h3')
    assert svc.reserve('web', 'h4')['reservation']['address'] == '10.0.0.13'


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(svc, path):
    left = os.path.join(os.path.dirname(path), '.ipam.json.killed1')
    with open(left, 'w') as f:
        f.write('{"half": ')
    svc.reserve('web', 'h3')
    assert sorted(os.listdir(os.path.dirname(path))) == ['ipam.json', 'ipam.json.lock']


def test_a_replaced_document_of_the_same_size_and_time_is_read_again(svc, path):
    assert svc.info(owner='h2')['reservations'][0]['metadata'] == {'mac': 'b'}
    before = os.stat(path)
    text = open(path).read()
    with open(path + '.new', 'w') as f:
        f.write(text.replace('"mac": "b"', '"mac": "c"'))
    os.replace(path + '.new', path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert svc.info(owner='h2')['reservations'][0]['metadata'] == {'mac': 'c'}
