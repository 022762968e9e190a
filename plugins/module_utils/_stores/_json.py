# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The JSON store: one readable document, for small setups kept in git.

This is a private module: it may change at any time.

- One document with a top-level integer ``schema_version``, sorted keys and
  a stable order of pools, reservations and history, so it diffs well.
- Every transaction holds an exclusive ``flock`` on ``<file>.lock`` (shared
  for reads) from read to write: no lost updates across processes.
- A change is written to a temporary file in the same directory, fsynced
  and renamed over the document (then the directory is fsynced): a reader or
  a crash sees the old document or the new one, never half of one. The new
  document keeps the mode and the group of the one it replaces (and its owner,
  when root writes it: ``_json_file``), so a store shared by a group stays
  shared; a new document (and lock file) is made 0600, a lock file made beside
  an existing document takes that document's mode and group.
- A write the disk refuses (full, read-only, no permission) is ``store_unavailable``
  and leaves the file as it was; the failed change is dropped from memory, so
  the next transaction reads the file again (see ``_write`` for a failure after
  the rename).
- A transaction that changes nothing does not rewrite the file.
- A store the user may read but not write (the file or its directory not
  writable: permissions, ``chattr +i``, a read-only mount) is read as usual
  (the lock file opened read-only, or, when it cannot be opened at all, the
  document read unlocked: it is only ever replaced by a rename); a change
  fails ``store_unavailable`` saying it is read-only, before anything is
  written, and even when a rename would have been allowed (a file the user
  made read-only is not replaced behind their back).
- A document of an older schema version is migrated in memory each time it
  is read; a read or check mode writes nothing (a plan kept in git is not
  rewritten by them), and the first transaction that changes something writes
  it at this version.
- The whole document is read and written by each change: fine for a few
  thousand reservations, slow past that (see docs/performance.md).
"""

import bisect
import contextlib
import errno
import fcntl
import json
import os
import time

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressInUse, StoreBusy, StoreUnavailable, read_only)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool, Reservation
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import (
    SCHEMA_VERSION, SpanStore, check_schema_version)
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json_file
from ansible_collections.netpool.ipam.plugins.module_utils._stores._json_document import (
    DAMAGE, MIGRATIONS, Refused, State, damage, read)


class JsonStore(SpanStore):
    kind = 'json'

    def __init__(self, path, timeout=30, create=True):
        self.absent = not create
        self.path = os.path.abspath(path)
        self.timeout = timeout
        self._lock_path = self.path + '.lock'
        self._state = None
        self._stat = None        # (inode, size, mtime) of the document self._state was read from
        self._pinned = None      # that document, kept open
        self._dirty = False
        self._locked = False     # whether the open transaction holds the lock file's flock
        if not os.path.isdir(os.path.dirname(self.path)):
            raise StoreUnavailable('Cannot open the JSON store %s: the directory %s does not exist. '
                                   'Create it or point store at another path.'
                                   % (path, os.path.dirname(self.path)))

    # -- transactions ---------------------------------------------------
    @contextlib.contextmanager
    def transaction(self, write=True, commit=True):
        if self.absent:     # reads as empty, keeps nothing, creates no file
            self._state = State({})
            self._dirty = False
            try:
                yield self
            finally:
                self._state = None
            self._refuse_absent(write, commit, self._dirty)
            return
        fd = self._lock(write, create=write and commit)
        self._locked = fd is not None
        try:
            self._load()
            self._dirty = False
            try:
                yield self
            except BaseException:
                self._state = None      # drop what the failed work changed in memory
                raise
            if self._dirty:
                if commit and write:
                    try:
                        self._write()
                    except BaseException:
                        self._forget()  # the next transaction reads the file again: a failed change is not kept
                        raise
                else:
                    self._state = None
        finally:
            if fd is not None:
                os.close(fd)            # releases the flock

    def _lock(self, write, create=True):
        """The lock file's descriptor, flocked (exclusive for ``write``). Without ``create`` (a read, check
        mode) a lock file that is not there is not made, and None is returned: no writer ever ran here, and
        a writer that starts meanwhile replaces the document in one rename, so reading it unlocked sees the
        old document or the new one, never half of one."""
        try:
            fd = self._open_lock(create)
        except OSError as e:
            if not create and e.errno == errno.ENOENT:
                return None
            if e.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise StoreUnavailable('Cannot create the lock file %s: %s' % (self._lock_path, e.strerror))
            try:    # a read-only store (or lock file): flock works on a descriptor opened for reading
                fd = os.open(self._lock_path, os.O_RDONLY)
            except OSError:
                return None     # read unlocked (see above); ``_write`` refuses to write without the lock
        deadline = time.monotonic() + self.timeout
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, (fcntl.LOCK_EX if write else fcntl.LOCK_SH) | fcntl.LOCK_NB)
                return fd
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise StoreUnavailable('Cannot lock %s: %s' % (self._lock_path, e.strerror))
            if time.monotonic() >= deadline:
                os.close(fd)
                raise StoreBusy('The JSON store %s stayed locked by another writer for more than %s seconds. '
                                'Retry, or raise timeout.' % (self.path, self.timeout))
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def _open_lock(self, create):
        """The lock file opened for writing; made (when ``create``) 0600, or with the mode and group of the
        document beside it (a lock file a group member cannot open would make the store read-only to them)."""
        try:
            return os.open(self._lock_path, os.O_RDWR)
        except OSError as e:
            if not create or e.errno != errno.ENOENT:
                raise
        try:
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as e:
            if e.errno != errno.EEXIST:
                raise
            return os.open(self._lock_path, os.O_RDWR)     # another process made it meanwhile
        try:
            if os.path.exists(self.path):
                _json_file.keep_access(fd, self.path)
        except OSError:
            pass    # the lock file works as made; only its sharing is lost
        return fd

    def _pin(self, f):
        """Keep the document last read or written open, so that its inode number cannot be given to a
        newer document while ``self._stat`` is compared against it."""
        if self._pinned is not None:
            self._pinned.close()
        self._pinned = f
        st = os.fstat(f.fileno()) if f is not None else None
        self._stat = (st.st_ino, st.st_size, st.st_mtime_ns) if st else None

    def _load(self):
        """Read the document, unless the one in memory is still the one on disk (every write
        replaces the file: a new inode; an edit in place changes size or mtime)."""
        try:
            f = open(self.path)
        except OSError as e:
            if e.errno != errno.ENOENT:
                raise StoreUnavailable('Cannot read the JSON store %s: %s' % (self.path, e.strerror))
            self._state = State({})
            self._pin(None)
            return
        st = os.fstat(f.fileno())
        if self._state is not None and (st.st_ino, st.st_size, st.st_mtime_ns) == self._stat:
            f.close()
            return
        try:
            document = json.load(f)
        except ValueError as e:
            f.close()
            raise StoreUnavailable('The JSON store %s is not valid JSON (%s). Restore it from version control '
                                   'or a backup.' % (self.path, e))
        except OSError as e:
            f.close()
            raise StoreUnavailable('Cannot read the JSON store %s: %s' % (self.path, e.strerror))
        try:
            self._state = self._parse(document)
        except BaseException:
            f.close()
            raise
        self._pin(f)

    def _parse(self, document):
        version = document.get('schema_version') if isinstance(document, dict) else None
        if not isinstance(version, int) or isinstance(version, bool):
            raise StoreUnavailable('%s is not a netpool.ipam JSON store: it has no integer schema_version.' % self.path)
        check_schema_version(version, MIGRATIONS, 'JSON store %s' % self.path)
        try:
            while version < SCHEMA_VERSION:
                document = MIGRATIONS[version](document)
                version += 1
        except DAMAGE as e:
            raise self._damaged('', e)
        try:
            return read(document)     # the check the git merge driver runs on a merge too (tools/merge_plan.py)
        except Refused as e:
            if e.kind == 'held_twice':
                raise StoreUnavailable(
                    'The JSON store %s gives one address to two reservations: %s. This happens when two branches '
                    'of a git-kept plan each reserved the same free address and were merged. Nothing was changed. '
                    'Resolve it by hand: delete one of the two reservation lines from the file (the reservation '
                    'you keep stays where it is), commit, and run the playbook again: the owner whose line you '
                    'deleted is given a new free address.' % (self.path, e.detail))
            if e.kind == 'overlap':
                raise StoreUnavailable(
                    'The JSON store %s holds pools that overlap: %s. Pools of one namespace may not overlap (a '
                    'child pool lies inside its parent); this happens when two branches of a git-kept plan each '
                    'changed a pool and were merged. Nothing was changed. Resolve it by hand: edit the subnets of '
                    'one of the pools in the file (or move it to another namespace), commit, and run the playbook '
                    'again.' % (self.path, e.detail))
            raise StoreUnavailable('The JSON store %s is not a valid netpool.ipam document (%s). Restore it from '
                                   'version control or a backup.' % (self.path, e.detail))

    def _damaged(self, what, error):
        """The error for a document that cannot be read as netpool.ipam data (``what``: the entry, if known)."""
        return StoreUnavailable('The JSON store %s is not a valid netpool.ipam document (%s). Restore it from '
                                'version control or a backup.' % (self.path, damage(what, error)))

    def _write(self):
        """Replace the document by the state in memory (see the module docstring); ``StoreUnavailable`` when
        the disk refuses. ``transaction`` drops the state in memory when this raises."""
        directory = os.path.dirname(self.path)
        self._check_writable(directory)
        new = not os.path.exists(self.path)     # (under the exclusive lock: no other writer makes it meanwhile)
        self._replace(self._state.document(), directory)
        self.created = self.created or new
        # The document is replaced: from here on every reader sees the change, so no failure may say "not
        # changed" (``_sync_directory``). Either way the state in memory is dropped (by ``transaction``, or
        # here), so the next transaction reads the file again rather than trusting memory.
        self._sync_directory(directory)
        # Keep the new document open (``_pin``). Reopening it can only fail for reasons that do not touch what
        # was written and synced (no file descriptor left, the file replaced by hand meanwhile): the change is
        # done and durable, so this is success; the state in memory is dropped and the next transaction reads
        # the file again (and reports whatever then stops it from reading it).
        try:
            self._pin(open(self.path))
        except OSError:
            self._forget()

    def _check_writable(self, directory):
        """``StoreUnavailable`` (read only) unless the document, its ``directory`` and its lock file let this user
        write."""
        if os.path.exists(self.path) and not os.access(self.path, os.W_OK):
            raise read_only('JSON store %s' % self.path, 'the file is not writable by the user running Ansible')
        if not os.access(directory, os.W_OK):
            raise read_only('JSON store %s' % self.path, 'its directory %s is not writable by the user running '
                            'Ansible' % directory)
        if not self._locked:
            raise read_only('JSON store %s' % self.path, 'its lock file %s cannot be opened by the user running '
                            'Ansible' % self._lock_path)

    def _replace(self, text, directory):
        _json_file.replace(self.path, text, directory)

    def _sync_directory(self, directory):
        _json_file.sync_directory(self.path, directory)

    def _forget(self):
        """Drop the document in memory: the next transaction reads the file again."""
        self._state = None
        try:
            self._pin(None)
        except OSError:
            self._pinned = self._stat = None

    def reservation_transaction(self, namespace, pool, owners, key, commit, as_rerun, change):
        """A write transaction flocks the lock file at once: a rerun is answered in a read transaction first."""
        return self._rerun_read_first(namespace, pool, owners, key, commit, as_rerun, change)

    def lock_pool(self, namespace, name):
        """The exclusive lock of the transaction already excludes every other writer."""

    def lock_namespace(self, namespace):
        """The exclusive lock of the transaction already excludes every other writer."""

    def close(self):
        self._state = None
        self._pin(None)

    def _changed(self):
        self._dirty = True
        return self._state

    # -- pools ----------------------------------------------------------
    def get_pool(self, namespace, name):
        ident = (namespace, name)
        state = self._state
        if ident not in state.pools:
            return None
        if ident not in state.parsed:
            try:
                state.parsed[ident] = Pool.from_data(state.pools[ident])
            except DAMAGE as e:
                raise self._damaged('pool %s/%s: ' % (namespace, name), e)
        return state.parsed[ident]

    def list_pools(self, namespace=None):
        return [self.get_pool(*ident) for ident in sorted(self._state.pools)
                if namespace is None or ident[0] == namespace]

    def save_pool(self, pool):
        state = self._changed()
        ident = (pool.namespace, pool.name)
        state.pools[ident] = pool.to_data()
        state.parsed.pop(ident, None)
        state.free.setdefault(ident, [])
        state.released.setdefault(ident, {})

    def delete_pool(self, namespace, name, keep_resting=False):
        state = self._changed()
        for table in (state.pools, state.parsed, state.free) + (() if keep_resting else (state.released,)):
            table.pop((namespace, name), None)

    # -- reservations ---------------------------------------------------
    def get_reservation(self, namespace, pool, owner, key, version=None):
        for v in (4, 6) if version is None else (version,):
            ident = (namespace, pool, owner, key, v)
            if ident in self._state.reservations:
                return self._reservation(ident)
        return None

    def holder(self, namespace, version, address):
        ident = self._state.holders.get((namespace, version, address))
        return self._reservation(ident) if ident else None

    def _reservation(self, ident):
        data = self._state.reservations[ident]
        version, address = self._state.places[ident]
        # every field was checked when the document was read (``check_reservation``)
        return Reservation(*ident[:4], version=version, address=address, static=data['static'],
                           metadata=data['metadata'], created_at=data['created_at'],
                           updated_at=data['updated_at'], expires_at=data['expires_at'])

    def _matching(self, namespace, pool, owner, key, version, first, last, expires_before):
        """The identities of the reservations matching every filter given."""
        state = self._state
        for ident, data in state.reservations.items():
            if any(want is not None and want != have for want, have in zip((namespace, pool, owner, key), ident)):
                continue
            if expires_before is not None and (data['expires_at'] is None or data['expires_at'] > expires_before):
                continue
            v, n = state.places[ident]
            if version is not None and (v != version or (first is not None and n < first)
                                        or (last is not None and n > last)):
                continue
            yield ident

    def find_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                          first=None, last=None, expires_before=None):
        places = self._state.places
        found = sorted(self._matching(namespace, pool, owner, key, version, first, last, expires_before),
                       key=lambda i: i[:2] + places[i])
        return [self._reservation(ident) for ident in found]

    def count_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                           first=None, last=None, expires_before=None):
        return sum(1 for _ident in self._matching(namespace, pool, owner, key, version, first, last, expires_before))

    def save_reservation(self, reservation):
        state = self._changed()
        r = reservation
        held = state.holders.get((r.namespace, r.version, r.address))
        if held is not None and held != r.ident:
            raise AddressInUse('%s is already held in namespace %s' % (r.address_str, r.namespace))
        state.put(r.to_data(), r.version, r.address)

    def delete_reservation(self, reservation):
        self._changed().drop(reservation.ident)

    # -- free spans -----------------------------------------------------
    def _spans(self, namespace, pool):
        return self._state.free.setdefault((namespace, pool), [])

    def free_first(self, namespace, pool, version, lo, hi):
        spans = self._spans(namespace, pool)
        i = bisect.bisect_left(spans, (version, lo, -1))
        if i < len(spans) and spans[i][0] == version and spans[i][1] <= hi:
            return spans[i]
        return None

    def free_at(self, namespace, pool, version, address):
        spans = self._spans(namespace, pool)
        i = bisect.bisect_right(spans, (version, address, float('inf'))) - 1
        if i >= 0 and spans[i][0] == version and spans[i][1] <= address <= spans[i][2]:
            return spans[i]
        return None

    def free_spans(self, namespace, pool, version=None, lo=None, hi=None):
        spans = self._spans(namespace, pool)
        if version is None:
            return list(spans)
        lo = 0 if lo is None else lo
        return [s for s in spans if s[0] == version and lo <= s[1] and (hi is None or s[1] <= hi)]

    def add_free(self, namespace, pool, spans):
        target = self._changed().free.setdefault((namespace, pool), [])
        for span in spans:
            bisect.insort(target, tuple(span))

    def remove_free(self, namespace, pool, spans):
        target = self._changed().free.setdefault((namespace, pool), [])
        for span in spans:
            target.remove(tuple(span))

    def clear_free(self, namespace, pool):
        self._changed().free[(namespace, pool)] = []

    # -- released addresses ---------------------------------------------
    def add_released(self, namespace, pool, version, address, until):
        self._changed().released.setdefault((namespace, pool), {})[(version, address)] = until

    def released(self, namespace, pool, due=None, address=None):
        resting = self._state.released.get((namespace, pool), {})
        if address is not None:
            resting = dict((a, resting[a]) for a in [tuple(address)] if a in resting)
        items = sorted(resting.items())
        return [(v, n, until) for (v, n), until in items if due is None or until <= due]

    def remove_released(self, namespace, pool, version, address):
        self._changed().released.get((namespace, pool), {}).pop((version, address), None)

    # -- history --------------------------------------------------------
    def add_history(self, entry):
        self._changed().add_history(dict(entry))

    def find_history(self, namespace=None, pool=None, owner=None, address=None):
        wanted = (('namespace', namespace), ('pool', pool), ('owner', owner), ('address', address))
        # an owner's history in a pool is one group of the document, an address's is indexed: read those only
        group = (namespace, pool, owner) if None not in (namespace, pool, owner) else None
        named = (namespace, address) if group is None and None not in (namespace, address) else None
        return [dict(e) for e in self._state.all_history(group, named)
                if all(v is None or e.get(k) == v for k, v in wanted)]

    def clear_history(self):
        state = self._changed()
        state.history.clear()
        state.addressed = None
        state.rendered.clear()
        state.lines = dict((k, v) for k, v in state.lines.items() if len(k) != 2)
