# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the JSON store writes its document's file: a temporary file of the same directory, given the mode and group
of the document it replaces, synced and renamed over it, then the directory synced.

This is a private module: it may change at any time. The store (``_json``) says when it writes, under which lock,
and what is kept in memory when a write fails.
"""

import errno
import glob
import os
import stat
import tempfile

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreUnavailable


#: a directory fsync failing with these means the file system does not sync directories at all
_NO_DIRECTORY_SYNC = (errno.EINVAL, errno.EOPNOTSUPP, getattr(errno, 'ENOTSUP', errno.EOPNOTSUPP))


def strerror(error):
    return error.strerror or str(error)


def write_remedy(error, directory):
    """What the user can do about ``error`` (an ``OSError`` writing into ``directory``)."""
    code = error.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        return 'The disk (or the quota) of %s is full: free some space and retry.' % directory
    if code == errno.EFBIG:
        return 'The file size limit (ulimit -f) is too small for the store: raise it and retry.'
    if code in (errno.EACCES, errno.EPERM):
        return ('The user running Ansible on the controller needs write access to the directory %s (it writes a '
                'temporary file there and renames it over the store): fix the permissions and retry.' % directory)
    if code == errno.EROFS:
        return 'The file system of %s is mounted read-only: remount it writable or point store elsewhere.' % directory
    return 'Check the disk and the directory %s, and retry.' % directory


def keep_access(fd, like):
    """Give the file open as ``fd`` the mode and group of the file ``like`` (its owner too when root writes):
    a store shared by a group stays shared after a change. False when the group cannot be kept (this user is not
    in it)."""
    st = os.stat(like)
    os.fchmod(fd, stat.S_IMODE(st.st_mode) & 0o666)
    mine = os.fstat(fd)
    owner = st.st_uid if os.geteuid() == 0 else -1
    if mine.st_gid != st.st_gid or (owner != -1 and mine.st_uid != owner):
        try:
            os.fchown(fd, owner, st.st_gid)
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.EACCES):
                raise
            return False
    return True


def replace(path, text, directory):
    """Write ``text`` to a temporary file of ``directory``, synced, and rename it over the document; a failure
    removes the temporary file and is ``StoreUnavailable`` saying the store was not changed."""
    prefix = '.%s.' % os.path.basename(path)
    # Temporary files are only made under the exclusive lock we hold: any left is a killed writer's.
    for stale in glob.glob(os.path.join(glob.escape(directory), glob.escape(prefix) + '*')):
        try:
            os.unlink(stale)
        except OSError:
            pass
    tmp, kept = None, True
    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
        with os.fdopen(fd, 'w') as f:
            kept = not os.path.exists(path) or keep_access(f.fileno(), path)
            if kept:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
        if kept:
            os.replace(tmp, path)
            tmp = None
    except OSError as e:
        raise StoreUnavailable('Cannot write the JSON store %s: %s. The store was not changed. %s'
                               % (path, strerror(e), write_remedy(e, directory)))
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    if not kept:
        raise StoreUnavailable('Cannot write the JSON store %s: its group (gid %d) is one the user running '
                               'Ansible is not in, and the changed document would lose it. The store was not '
                               'changed. Add the user to the group, or give the file a group of theirs.'
                               % (path, os.stat(path).st_gid))


def sync_directory(path, directory):
    """Sync ``directory`` after the rename. A directory that cannot be synced leaves the rename possibly not
    durable (a power cut could undo it): that is reported as store_unavailable saying the change was written
    (running the task again is safe: it finds the change done), unless the file system does not sync
    directories at all (EINVAL, EOPNOTSUPP: SQLite ignores that too)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as e:
        if e.errno not in _NO_DIRECTORY_SYNC:
            raise StoreUnavailable('The change was written to the JSON store %s, but syncing its directory %s '
                                   'failed: %s. The change is in the file, but a crash or power cut of this '
                                   'machine could undo it. Check the disk; running the task again is safe (it '
                                   'finds the change done).' % (path, directory, strerror(e)))
