# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Crashes and full disks: nothing acknowledged is ever lost, nothing is ever held twice.

- ``test_sigkill``: rounds of two writer processes reserving and releasing at
  once, each acknowledging every success to the test through a pipe, both
  killed with SIGKILL at random moments (hundreds of kills per store). After
  every round the state must load, hold every acknowledged reservation at its
  acknowledged address, hold no acknowledged release, hold no address twice,
  and its free spans must be exactly the pool less what is held (a torn
  transaction would break that), and the store must still work.
- ``test_full_disk_tmpfs``: the store on a tiny tmpfs (we run as root; skipped
  when mount is refused) filled up: ``store_unavailable`` saying the disk is
  full, the store intact (JSON: byte for byte, no temporary file left), and it
  works again once space is freed.
- ``test_file_size_limit``: the same with RLIMIT_FSIZE in a child process
  (SIGXFSZ ignored, so a write fails with EFBIG).

The same full disk met through a task (the action plugin and the module file) is
tests/unit/plugins/modules/test_disk_full.py: it runs on every ansible-core, these on the newest.

Runtime: about 30 s on two cores (``ROUNDS``).
"""

import os
import random
import resource
import select
import signal
import subprocess
import time

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.support import stores
from ansible_collections.netpool.ipam.tests.support.reliability import snapshot

# The writers are forked from the test process (pytest-xdist workers run threads): they only use what is
# already imported, the store and os.write, so the warning about forking a multi-threaded process does not apply.
pytestmark = pytest.mark.filterwarnings('ignore:This process .* is multi-threaded:DeprecationWarning')

ROUNDS = 150            # per store; two writers killed per round
WRITERS = 2
SWEEP_EVERY = 15        # the test releases everything now and then, so the JSON document stays small
POOL_CIDR = '10.0.0.0/18'


def _spec(tmp_path, kind):
    return str(tmp_path / ('ipam.' + kind))


def _writer(spec, tag, fd, seed):
    """Reserve and release for ever in pool 'crash', writing one line per success to ``fd``. Never returns."""
    code = 0
    try:
        rnd = random.Random(seed)
        svc = Service(open_store(spec, timeout=60))
        os.write(fd, b'S\n')      # open: the parent's kill clock starts now, however loaded the machine is
        mine = []
        i = 0
        while True:
            if mine and rnd.random() < 0.3:
                owner = mine.pop(rnd.randrange(len(mine)))
                os.write(fd, ('P %s\n' % owner).encode())      # a release under way: it may or may not happen
                svc.release(pool='crash', owner=owner, key='default')
                os.write(fd, ('D %s\n' % owner).encode())
            else:
                owner = '%s-%d' % (tag, i)
                i += 1
                result = svc.reserve('crash', owner, metadata={'writer': tag})
                os.write(fd, ('R %s %s\n' % (owner, result['reservation']['address'])).encode())
                mine.append(owner)
    except BaseException as e:  # pylint: disable=broad-except
        os.write(fd, ('E %s\n' % (getattr(e, 'code', type(e).__name__),)).encode())
        code = 1
    finally:
        os._exit(code)


def _read_line(fd):
    """The next line a writer writes to ``fd`` (bytes, with its newline; what there is at its end)."""
    line = b''
    while not line.endswith(b'\n'):
        chunk = os.read(fd, 1)
        if not chunk:
            break
        line += chunk
    return line


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b''.join(chunks).decode()
        chunks.append(chunk)


def _verify(spec, acked, released, pending=()):
    """The checks after a round (see the module docstring).

    ``pending`` are owners whose release was under way when their writer was killed: they may be there
    (at their acknowledged address) or not; they are settled here, into ``acked`` or ``released``.
    """
    store = open_store(spec)
    try:
        doc = export_document(store)
    finally:
        store.close()
    found = dict((r['owner'], r['address']) for r in doc['reservations'] if r['pool'] == 'crash')
    for owner in pending:
        if owner not in found:
            released.add(owner)
            del acked[owner]
    for owner, address in acked.items():
        assert found.get(owner) == address, 'acknowledged reservation %s=%s lost (found %r)' % (
            owner, address, found.get(owner))
    for owner in released:
        assert owner not in found, 'acknowledged release of %s undone' % owner
    held = [iv.parse_address(a) for a in found.values()]
    assert len(set(held)) == len(held), 'an address is held twice'
    pool = next(p for p in doc['pools'] if p['name'] == 'crash')
    free = set()
    for span in pool['free']:
        _v, first, last = iv.parse_range(span)
        free.update(range(first, last + 1))
    held_ints = set(int(a) for a in held)
    assert not free & held_ints, 'a held address is also free'
    _v, first, last = iv.parse_range(pool['subnets'][0]['ranges'][0])
    assert free | held_ints == set(range(first, last + 1)), 'addresses leaked from the free spans'
    return found


@pytest.mark.parametrize('kind', stores.FILES)
def test_sigkill(tmp_path, kind):
    spec = _spec(tmp_path, kind)
    store = open_store(spec)
    Service(store).pool('crash', subnets=[{'cidr': POOL_CIDR}])
    store.close()
    rnd = random.Random(7)
    acked, released = {}, set()
    kills = lines = 0
    pending = set()
    for n in range(ROUNDS):
        children = []
        for w in range(WRITERS):
            r, wfd = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                _writer(spec, 'r%dw%d' % (n, w), wfd, rnd.random())
            os.close(wfd)
            children.append((pid, r))
        # each writer has its store open (or has failed: its line is kept) before the random kill times start
        started = dict((r, os.read(r, 2)) for pid, r in children)
        # and one of them has finished an operation, so that every round kills writers at work, however loaded the
        # machine is (the kill times below are short: on a busy machine they could all fall before any work)
        working = [r for _pid, r in children if started[r] == b'S\n']
        if working:
            first = select.select(working, [], [])[0][0]
            started[first] += _read_line(first)
        deadline = time.monotonic() + rnd.uniform(0.002, 0.06)
        for pid, r in sorted(children, key=lambda c: rnd.random()):
            time.sleep(max(0.0, deadline - time.monotonic()))
            os.kill(pid, signal.SIGKILL)
            deadline += rnd.uniform(0.0, 0.02)
        for pid, r in children:
            _pid, status = os.waitpid(pid, 0)
            output = _read_all(r)
            if started[r] != b'S\n':
                output = started[r].decode()[2 if started[r].startswith(b'S\n') else 0:] + output
            os.close(r)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, output
            kills += 1
            for line in output.splitlines():
                lines += 1
                fields = line.split()
                assert fields[0] in ('R', 'P', 'D'), 'a writer failed: %s' % line
                if fields[0] == 'R':
                    acked[fields[1]] = fields[2]
                elif fields[0] == 'P':
                    pending.add(fields[1])
                else:
                    pending.discard(fields[1])
                    del acked[fields[1]]
                    released.add(fields[1])
        _verify(spec, acked, released, pending)
        pending.clear()
        if n % SWEEP_EVERY == SWEEP_EVERY - 1:
            store = open_store(spec)
            svc = Service(store)
            swept = svc.release(pool='crash', keep_owners=[])
            store.close()
            released.update(r['owner'] for r in swept['released'])
            acked.clear()
            _verify(spec, acked, released)
    assert kills == ROUNDS * WRITERS
    assert lines >= ROUNDS      # one reservation at least per round (each round waits for it)
    # still a working store
    store = open_store(spec)
    assert Service(store).reserve('crash', 'after')['changed'] is True
    store.close()
    if kind == 'json':
        leftovers = [f for f in os.listdir(str(tmp_path)) if f not in ('ipam.json', 'ipam.json.lock')]
        assert all(f.startswith('.ipam.json.') for f in leftovers), leftovers


# -- full disks -----------------------------------------------------------------------------------------------

@pytest.fixture
def tiny_fs(tmp_path):
    """A 1 MiB tmpfs (needs root); skipped when it cannot be mounted."""
    mount = tmp_path / 'tiny'
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip('mounting a tmpfs needs root; test_file_size_limit covers the full-disk path')
    proc = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', str(mount)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.skip('cannot mount a tmpfs here (%s); test_file_size_limit covers the full-disk path'
                    % proc.stderr.strip())
    try:
        yield mount
    finally:
        subprocess.run(['umount', '-l', str(mount)], check=False)


def _fill(directory, leave):
    """Fill the filesystem of ``directory`` but ``leave`` bytes with a filler file; return its path."""
    path = os.path.join(str(directory), 'filler')
    st = os.statvfs(str(directory))
    size = max(0, st.f_bavail * st.f_frsize - leave)
    with open(path, 'wb') as f:
        f.write(b'\0' * size)
    return path


def _reserve_until_failure(svc, limit=10000):
    """Reserve with bulky metadata until a failure; ``(acknowledged {owner: address}, the IpamError)``."""
    acked = {}
    for i in range(limit):
        owner = 'h%05d' % i
        try:
            result = svc.reserve('big', owner, metadata={'blob': 'x' * 3000, 'n': i})
        except IpamError as e:
            return acked, e
        acked[owner] = result['reservation']['address']
    raise AssertionError('the store never filled up')


def _assert_full_disk_error(error, words):
    assert error.code == 'store_unavailable', (error.code, error.msg)
    assert 'Traceback' not in error.msg
    assert any(w in error.msg.lower() for w in words), error.msg


@pytest.mark.parametrize('kind', stores.FILES)
def test_full_disk_tmpfs(tiny_fs, kind):
    spec = _spec(tiny_fs, kind)
    store = open_store(spec)
    svc = Service(store)
    svc.pool('big', subnets=[{'cidr': '10.0.0.0/16'}])
    svc.reserve('big', 'first')
    filler = _fill(tiny_fs, 256 * 1024)
    acked, error = _reserve_until_failure(svc)
    _assert_full_disk_error(error, ('disk is full', 'no space left'))
    assert 'not changed' in error.msg
    before = snapshot(store, spec)
    # a second failure on the full disk changes nothing either
    with pytest.raises(IpamError) as again:
        svc.reserve('big', 'one-more', metadata={'blob': 'y' * 60000})
    assert again.value.code == 'store_unavailable'
    assert snapshot(store, spec) == before
    store.close()
    # a fresh process sees everything acknowledged
    fresh = open_store(spec)
    doc = export_document(fresh)
    found = dict((r['owner'], r['address']) for r in doc['reservations'])
    assert all(found.get(o) == a for o, a in acked.items())
    assert 'one-more' not in found
    if kind == 'json':
        assert sorted(os.listdir(str(tiny_fs))) == ['filler', 'ipam.json', 'ipam.json.lock']
        with open(spec, 'rb') as f:
            assert f.read() == before[1]
    # space back: the store works again
    os.unlink(filler)
    assert Service(fresh).reserve('big', 'after')['changed'] is True
    fresh.close()


def _limited_writer(spec, fd, extra):
    """In a child: RLIMIT_FSIZE a little above the store's files, reserve until failure, report."""
    code = 0
    try:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        sizes = [os.path.getsize(p) for p in (spec, spec + '-wal') if os.path.exists(p)]
        limit = max(sizes) + extra
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        store = open_store(spec)
        acked, error = _reserve_until_failure(Service(store))
        for owner, address in sorted(acked.items()):
            os.write(fd, ('R %s %s\n' % (owner, address)).encode())
        os.write(fd, ('E %s %s\n' % (error.code, error.msg.replace('\n', ' '))).encode())
        store.close()
    except BaseException as e:  # pylint: disable=broad-except
        os.write(fd, ('X %s %s\n' % (type(e).__name__, e)).encode())
        code = 1
    finally:
        os._exit(code)


@pytest.mark.parametrize('kind', stores.FILES)
def test_file_size_limit(tmp_path, kind):
    spec = _spec(tmp_path, kind)
    store = open_store(spec)
    Service(store).pool('big', subnets=[{'cidr': '10.0.0.0/16'}])
    store.close()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _limited_writer(spec, w, 512 * 1024)
    os.close(w)
    output = _read_all(r)
    os.close(r)
    os.waitpid(pid, 0)
    lines = output.splitlines()
    assert lines and lines[-1].startswith('E '), output
    _e, code, msg = lines[-1].split(' ', 2)
    assert code == 'store_unavailable', msg
    assert 'Traceback' not in msg and ('file too large' in msg.lower() or 'file size limit' in msg.lower()), msg
    assert 'not changed' in msg
    acked = dict(line.split()[1:] for line in lines[:-1])
    assert len(acked) >= 2, output
    store = open_store(spec)
    doc = export_document(store)
    found = dict((r['owner'], r['address']) for r in doc['reservations'])
    assert found == acked
    assert Service(store).reserve('big', 'after')['changed'] is True
    store.close()
    if kind == 'json':
        assert sorted(os.listdir(str(tmp_path))) == ['ipam.json', 'ipam.json.lock']
