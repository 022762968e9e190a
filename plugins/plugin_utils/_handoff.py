# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the reserve role's task on each host hands its request to the task run once after it (issue 25).

This is a private module: it may change at any time.

Read through ``hostvars``, each host's registered request cost the task run once a computation of every variable
of that host by ansible-core (about half of that task's CPU at 1,000 hosts). Instead, Ansible imports the role's
action plugin in the controller process before it forks a worker per host (the linear and free strategies), and
this module, imported with it, makes then what every worker inherits:

- a file without a name (``tempfile.TemporaryFile``: created 0600 and unlinked at once, or never named where the
  system has ``O_TMPFILE``), opened for appending: it goes with the last process that holds it open;
- a key (AES-GCM, 256 bits, ``os.urandom``) that never leaves the memory of ansible-playbook and its workers.

A host's task appends one record in one write (``O_APPEND``: records never interleave): the run it belongs to in
clear (random, no secret), then the host and its request, pickled, encrypted and authenticated with the key and
the run. The task run once reads the records of its run; the first task of a run (``held``) empties the file
(every earlier run has read its own). ``shared()`` says whether this process can use it: only a worker forked by
the process that imported this module can (a plugin imported in the worker itself falls back to ``hostvars``).
"""

from __future__ import annotations

import fcntl
import os
import pickle
import struct
import tempfile

try:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
except ImportError:  # pragma: no cover - ansible-core requires cryptography
    AESGCM = None

#: the process that made the file and the key (the controller, where Ansible imports the action plugin)
_PID = os.getpid()
_HEADER = struct.Struct('>16sI')     # run, length of what follows
_KEY = AESGCM.generate_key(bit_length=256) if AESGCM is not None else None


def _open():
    try:
        handle = tempfile.TemporaryFile(prefix='netpool-reserve-')
        fcntl.fcntl(handle.fileno(), fcntl.F_SETFL, fcntl.fcntl(handle.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        return handle
    except OSError:  # pragma: no cover - no temporary directory: the role falls back to hostvars
        return None


_FILE = _open() if _KEY is not None else None


def shared():
    """Whether this process shares the file with the other workers: it was forked by the one that made it."""
    return _FILE is not None and os.getpid() != _PID


def new_run():
    """A new run (``held``, run once before the hosts' tasks): its id, the file emptied."""
    os.ftruncate(_FILE.fileno(), 0)
    return os.urandom(16).hex()


def put(run, host, request):
    """Append ``host``'s ``request`` to ``run``, in one write."""
    nonce = os.urandom(12)
    sealed = nonce + AESGCM(_KEY).encrypt(nonce, pickle.dumps((host, request), pickle.HIGHEST_PROTOCOL),
                                          run.encode())
    record = _HEADER.pack(bytes.fromhex(run), len(sealed)) + sealed
    if os.write(_FILE.fileno(), record) != len(record):
        raise OSError('netpool.ipam.reserve: the request of %s was not written whole' % host)


def take(run):
    """``{host: request}`` of every record of ``run`` (the last one of a host wins)."""
    fd, found, offset, cipher = _FILE.fileno(), {}, 0, AESGCM(_KEY)
    data = b''
    size = os.fstat(fd).st_size
    while len(data) < size:
        chunk = os.pread(fd, size - len(data), len(data))
        if not chunk:
            break
        data += chunk
    wanted = bytes.fromhex(run)
    while offset + _HEADER.size <= len(data):
        record_run, length = _HEADER.unpack_from(data, offset)
        start, offset = offset + _HEADER.size, offset + _HEADER.size + length
        if record_run != wanted:
            continue
        sealed = data[start:offset]
        host, request = pickle.loads(cipher.decrypt(sealed[:12], sealed[12:], run.encode()))
        found[host] = request
    return found
