# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

import errno
import fcntl
import json
import os
import stat

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import SCHEMA_VERSION
from ansible_collections.netpool.ipam.plugins.module_utils._stores._json_document import merge
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document, import_document

from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.suite import StoreContract, file_mode
from ansible_collections.netpool.ipam.tests.support.reliability import snapshot


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
    svc.reserve('web', 'h2', metadata={'rack': 'b'})
    svc.reserve('web', 'h1')
    return svc


def test_document_is_readable_sorted_and_private(svc, path):
    text = open(path).read()
    document = json.loads(text)
    assert document['schema_version'] == SCHEMA_VERSION
    lines = text.splitlines()
    assert lines[0] == '{' and lines[-1] == '}' and lines[-2] == '  "schema_version": %d' % SCHEMA_VERSION
    assert [line for line in lines if line.startswith('  "')] == [
        '  "history": {', '  "pools": {', '  "schema_version": %d' % SCHEMA_VERSION]
    web = document['pools']['default']['web']
    assert sorted(web) == ['pool', 'released', 'reservations']
    assert [r['owner'] for r in web['reservations']] == ['h1', 'h2']   # by owner and key
    assert sorted(document['history']['default']['web']) == ['', 'h1', 'h2']
    # one item per line, keys sorted; nothing derived is kept (free spans are computed when the file is read)
    items = [line.strip().rstrip(',') for line in lines if line.strip().startswith(('{"', '"pool": {'))]
    assert len(items) == 3 + 1 + 2      # history entries, the pool, its reservations
    items = [line.split(': ', 1)[1] if line.startswith('"pool"') else line for line in items]
    assert all(item == json.dumps(json.loads(item), sort_keys=True) for item in items)
    assert 'free' not in text
    assert file_mode(path) == 0o600 and file_mode(path + '.lock') == 0o600
    assert sorted(os.listdir(os.path.dirname(path))) == ['ipam.json', 'ipam.json.lock']


def test_a_deleted_pools_resting_addresses_are_kept_in_the_document(path):
    """Under ``resting``, beside ``pools``, until a pool of that name takes them back; read by another process
    (a new store on the file), and merged by the git merge driver as any resting address."""
    svc = Service(open_store(path))
    svc.pool('web', reuse_delay=3600, subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.20']}])
    svc.reserve('web', 'h1')
    base = json.load(open(path))
    svc.pool('web', state='absent', force=True)
    document = json.load(open(path))
    assert list(document['resting']['default']) == ['web'] and document['pools'] == {}
    assert [r['address'] for r in document['resting']['default']['web']] == ['10.0.0.10']
    text, conflicts = merge(base, document, base)
    assert conflicts == [] and json.loads(text)['resting'] == document['resting']
    other = Service(open_store(path))
    other.pool('web', reuse_delay=3600, subnets=[{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.20']}])
    assert other.reserve('web', 'h2')['reservation']['address'] == '10.0.0.11'
    document = json.load(open(path))
    assert 'resting' not in document and len(document['pools']['default']['web']['released']) == 1
    # an import that replaces the state says what rests: not what a deleted pool of the same name left
    exported = export_document(other.store)
    other.pool('web', state='absent', force=True)
    exported['pools'][0]['released'] = []
    import_document(other.store, exported, replace=True)
    assert other.reserve('web', 'h3')['reservation']['address'] == '10.0.0.10'


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
        json.dump({'schema_version': SCHEMA_VERSION + 1, 'pools': {}}, f)
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
    assert svc.info(owner='h2')['reservations'][0]['metadata'] == {'rack': 'b'}
    before = os.stat(path)
    text = open(path).read()
    with open(path + '.new', 'w') as f:
        f.write(text.replace('"rack": "b"', '"rack": "c"'))
    os.replace(path + '.new', path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert svc.info(owner='h2')['reservations'][0]['metadata'] == {'rack': 'c'}


# -- a write that fails ---------------------------------------------------------------------------------------

def _fail_with(errno_, where):
    """A function that raises OSError(``errno_``) in place of ``where``."""
    def fail(*_args, **_kwargs):
        raise OSError(errno_, '%s (injected in %s)' % (os.strerror(errno_), where))
    return fail


def _only_on_directories(real, errno_):
    """``os.fsync`` failing with ``errno_`` for a directory only (the document and temporary files sync)."""
    def fsync(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno_, os.strerror(errno_))
        return real(fd)
    return fsync


@pytest.mark.parametrize('target, errno_, words', [
    ('tempfile.mkstemp', errno.ENOSPC, ['no space left', 'free some space']),
    ('tempfile.mkstemp', errno.EACCES, ['permission denied', 'write access']),
    ('tempfile.mkstemp', errno.EROFS, ['read-only']),
    ('os.fsync', errno.ENOSPC, ['no space left', 'free some space']),
    ('os.fsync', errno.EIO, ['input/output error']),
    ('os.replace', errno.EBUSY, ['busy']),
], ids=lambda v: v if isinstance(v, str) else (errno.errorcode.get(v) if isinstance(v, int) else None))
def test_a_failed_write_is_dropped_not_saved_by_the_next_one(svc, path, monkeypatch, target, errno_, words):
    """The failed reservation is neither on disk, nor seen by a later read of this process, nor saved with the
    next write; the error is store_unavailable saying what to do, and no temporary file is left."""
    store = svc.store
    before = snapshot(store, path)
    with monkeypatch.context() as patch:
        patch.setattr(target, _fail_with(errno_, target))
        with pytest.raises(IpamError) as info:
            svc.reserve('web', 'lost', metadata={'try': 1})
    error = info.value
    assert error.code == 'store_unavailable', (type(error), error)
    assert 'Traceback' not in error.msg and path in error.msg and 'not changed' in error.msg, error.msg
    assert all(w in error.msg.lower() for w in words), error.msg
    assert snapshot(store, path) == before
    assert svc.get('web', 'lost') is None                       # the same process does not see it
    assert svc.reserve('web', 'next')['reservation']['address'] == '10.0.0.12'     # nor does the next write save it
    assert 'lost' not in [r['owner'] for r in export_document(store)['reservations']]
    assert 'lost' not in open(path).read()
    assert sorted(os.listdir(os.path.dirname(path))) == ['ipam.json', 'ipam.json.lock']


def test_a_failed_directory_sync_after_the_rename_says_the_change_was_written(svc, path, monkeypatch):
    """The document was replaced before the directory sync failed: the change is in the file, and the error
    says so (not "not changed", not a bug); the store re-reads the file for the next transaction."""
    store = svc.store
    with monkeypatch.context() as patch:
        patch.setattr(os, 'fsync', _only_on_directories(os.fsync, errno.EIO))
        with pytest.raises(IpamError) as info:
            svc.reserve('web', 'h3')
    error = info.value
    assert error.code == 'store_unavailable', (type(error), error)
    assert 'not changed' not in error.msg and 'was written' in error.msg and path in error.msg, error.msg
    assert store._state is None                                 # the cache was dropped: the next read re-reads
    assert 'h3' in open(path).read()
    assert svc.get('web', 'h3')['address'] == '10.0.0.12'
    assert svc.reserve('web', 'h3')['changed'] is False          # running the task again finds it done
    assert sorted(os.listdir(os.path.dirname(path))) == ['ipam.json', 'ipam.json.lock']


@pytest.mark.parametrize('errno_', [errno.EINVAL, errno.EOPNOTSUPP])
def test_a_directory_that_cannot_be_synced_at_all_is_not_an_error(svc, path, monkeypatch, errno_):
    """A file system that does not sync directories (EINVAL, EOPNOTSUPP) is not a failure: SQLite ignores it too."""
    with monkeypatch.context() as patch:
        patch.setattr(os, 'fsync', _only_on_directories(os.fsync, errno_))
        assert svc.reserve('web', 'h3')['changed'] is True
    assert svc.get('web', 'h3')['address'] == '10.0.0.12'


def test_a_document_that_cannot_be_reopened_after_the_rename_is_written(svc, path, monkeypatch):
    """The change is in place and synced when reopening the document (to pin it) fails: success, and the next
    transaction reads the file again."""
    store = svc.store
    real_open, real_replace = open, os.replace
    renamed = []

    def replace(*args):
        real_replace(*args)
        renamed.append(args)

    def no_reopen(name, *args, **kwargs):
        if renamed and name == path:
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
        return real_open(name, *args, **kwargs)
    with monkeypatch.context() as patch:
        patch.setattr(os, 'replace', replace)
        patch.setattr(_json, 'open', no_reopen, raising=False)
        assert svc.reserve('web', 'h3')['changed'] is True
        assert renamed
        assert store._state is None
    assert 'h3' in open(path).read()
    assert svc.get('web', 'h3')['address'] == '10.0.0.12'
    assert svc.reserve('web', 'h4')['reservation']['address'] == '10.0.0.13'


# -- a hand-edited document -----------------------------------------------------------------------------------

POOL = {'namespace': 'default', 'name': 'web', 'subnets': [{'cidr': '10.0.0.0/24', 'ranges': ['10.0.0.10-10.0.0.20']}],
        'free': ['10.0.0.10-10.0.0.20'], 'released': []}
RESERVATION = {'namespace': 'default', 'pool': 'web', 'owner': 'h1', 'key': 'default', 'address': '10.0.0.10',
               'static': False, 'metadata': {}, 'created_at': None, 'updated_at': None, 'expires_at': None}


def _without(data, key):
    data = dict(data)
    del data[key]
    return data


@pytest.mark.parametrize('document, words', [
    ({'schema_version': 1, 'pools': [_without(POOL, 'subnets')]}, ['pool default/web', "'subnets'"]),
    ({'schema_version': 1, 'pools': [dict(POOL, subnets=[{'cidr': '10.0.0.0/24'}])]}, ['pool default/web', "'ranges'"]),
    ({'schema_version': 1, 'pools': [dict(POOL, subnets=[{'cidr': '10.0.0.300/24', 'ranges': []}])]},
     ['pool default/web', '10.0.0.300']),
    ({'schema_version': 1, 'pools': [dict(POOL, free=['10.0.0.11-10.0.0.20'])],
      'reservations': [_without(RESERVATION, 'static')]},
     ['reservation', 'h1', 'static']),
    ({'schema_version': 1, 'pools': [dict(POOL, free=['10.0.0.11-10.0.0.20'])],
      'reservations': [_without(RESERVATION, 'expires_at')]},
     ['reservation', 'h1', 'expires_at is missing']),
    ({'schema_version': 1, 'pools': [dict(POOL, free=['10.0.0.11-10.0.0.20'])],
      'reservations': [dict(RESERVATION, expires_at=5)]},
     ['reservation', 'h1', 'expires_at is not a string but 5']),
], ids=['pool-without-subnets', 'subnet-without-ranges', 'bad-cidr', 'reservation-without-static',
        'reservation-without-expires_at', 'expires_at-a-number'])
def test_a_hand_edited_entry_is_store_unavailable_naming_the_file(path, document, words):
    """Pools (and reservation details) are parsed when first used: a damaged one fails there, as one the
    whole document is checked for does, and the file is left byte for byte."""
    content = json.dumps(document, indent=1)
    with open(path, 'w') as f:
        f.write(content)
    for call in (lambda s: s.info(owner='h1'), lambda s: s.get('web', 'h1'), lambda s: s.reserve('web', 'h1')):
        with pytest.raises(IpamError) as info:
            call(Service(open_store(path)))
        error = info.value
        assert error.code == 'store_unavailable', (type(error), error)
        assert 'Traceback' not in error.msg and path in error.msg and 'Restore' in error.msg, error.msg
        assert all(w in error.msg for w in words), error.msg
        assert open(path).read() == content


def test_stored_free_spans_are_never_trusted(path):
    """A version 1 document (it kept free spans) whose free span covers a held address: the spans are derived
    again when it is read, so the next dynamic reservation skips the holder (it failed with address_in_use for
    good when the spans were trusted). The first write stores the document without free spans."""
    with open(path, 'w') as f:
        json.dump({'schema_version': 1, 'pools': [POOL], 'reservations': [RESERVATION], 'history': []}, f)
    svc = Service(open_store(path))
    assert svc.info()['pools'][0]['free'] == 10
    assert svc.reserve('web', 'h2')['reservation']['address'] == '10.0.0.11'
    document = json.load(open(path))
    assert document['schema_version'] == SCHEMA_VERSION and 'free' not in json.dumps(document)
    assert svc.verify()['problems'] == []
