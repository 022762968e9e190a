# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The errors of netpool.ipam: one exception class per error code (docs/errors.md).

This is a private module: it may change at any time. Stores and the service
raise these; modules, action plugins and the lookup translate them into
``fail_json``/``AnsibleError`` at one place.
"""

import difflib
import sys


class IpamError(Exception):
    """A failure that the user can act on. ``code`` is the result's ``error``."""

    code = 'invalid_argument'

    def __init__(self, msg, **details):
        super(IpamError, self).__init__(msg)
        self.msg = msg
        self.details = details

    def to_result(self):
        """The keys a failed task returns besides ``failed``."""
        result = dict(self.details)
        result['msg'] = self.msg
        result['error'] = self.code
        return result


class AddressInUse(IpamError):
    code = 'address_in_use'


class AddressOutOfPool(IpamError):
    code = 'address_out_of_pool'


class AddressExcluded(IpamError):
    code = 'address_excluded'


class NotReserved(IpamError):
    """The owner holds no reservation where one is needed: the pool ``align_with`` names (the lookup without
    ``allocate`` and the Terraform data source say ``not_reserved`` of their own)."""
    code = 'not_reserved'


class AdoptConflict(IpamError):
    """``netpool.ipam.adopt`` with ``on_conflict: fail`` met entries it cannot adopt: the result lists them
    (``conflicts``) and nothing was written."""
    code = 'adopt_conflict'


class PoolExhausted(IpamError):
    code = 'pool_exhausted'


class PoolNotFound(IpamError):
    code = 'pool_not_found'


class PoolOverlap(IpamError):
    code = 'pool_overlap'


class PoolInUse(IpamError):
    code = 'pool_in_use'


class InvalidArgument(IpamError):
    code = 'invalid_argument'


class StoreBusy(IpamError):
    code = 'store_busy'


class StoreUnavailable(IpamError):
    code = 'store_unavailable'


class DamagedRow(StoreUnavailable):
    """A row of a SQL store that cannot be read as netpool.ipam data (edited by hand, damaged): the message names
    the table and the row. ``info`` with ``verify`` reports such rows as problems instead of failing."""


class StoreAbsent(StoreUnavailable):
    """Work on a store file that does not exist (opened with ``create=False``), or on a store of an older schema
    version opened not to migrate it (``Store.behind``), would commit a change.

    Nothing was written and no file was created; ``_runner.with_service`` then creates (or migrates) the store
    and runs the work again. Seen by a user only as ``store_unavailable`` if raised anywhere else.
    """


class StoreVersion(IpamError):
    code = 'store_version'


class Unsupported(IpamError):
    """What a store cannot hold (a store kind not available, a feature the store cannot express)."""
    code = 'unsupported'


class InternalError(IpamError):
    """A bug: an exception that is not an ``IpamError``. The result carries its traceback in ``exception``
    (shown by Ansible at -vvv), never in ``msg``."""
    code = 'internal_error'


def did_you_mean(name, names):
    """`` Did you mean 'web'?`` for the names of ``names`` nearest to ``name`` (``difflib``, at most three), or
    an empty string when none is near."""
    if not isinstance(name, str):
        return ''
    close = difflib.get_close_matches(name, sorted(set(n for n in names if isinstance(n, str) and n != name)), n=3)
    if not close:
        return ''
    return ' Did you mean %s?' % ' or '.join("'%s'" % n for n in close)


def pool_not_found(name, namespace, names, then=''):
    """``pool_not_found`` for pool ``name`` of ``namespace``, whose pools are ``names``: the nearest names, or,
    when the namespace has no pool at all, the likeliest cause (another store than the one meant); ``then``
    (what to do) ends the message."""
    if names:
        hint = did_you_mean(name, names)
    else:
        hint = (" Namespace '%s' of this store has no pool at all: is this the store you meant? A relative store "
                "path is relative to the directory the command (ansible-playbook, terraform) was started from."
                % namespace)
    return PoolNotFound("Pool '%s' does not exist in namespace '%s'.%s%s" % (name, namespace, hint, then))


def read_only(store, why):
    """``store_unavailable`` for a change to a store that can be read but not written (``store``: "SQLite store
    PATH"; ``why``: what is not writable). Carries ``read_only: true``."""
    return StoreUnavailable(
        'The %s is read-only (%s): it can be read, but not changed, and nothing was written. To change it, give the '
        'user running Ansible on the controller write access to the file and its directory (chmod or chown, '
        'chattr -i, a writable mount), or copy it to a writable place and point store there.' % (store, why),
        read_only=True)


def missing_store(store):
    """``store_unavailable`` for a read of a store file that does not exist (``store``: "SQLite store PATH"): a
    reader never creates a store, and an empty answer would hide a wrong path."""
    return StoreUnavailable(
        'The %s does not exist, and reading never creates a store. Check the path (store, or NETPOOL_IPAM_STORE; a '
        'relative path is relative to the directory the command was started from), or create the store first: '
        'declaring a pool (netpool.ipam.pool) creates it.' % store)


def missing_library(library, needed_for, requirement=None):
    """``store_unavailable`` for a Python library missing on the controller, saying how to install it.

    ``requirement`` is what pip installs (``psycopg[binary]``), ``library`` by default.
    """
    requirement = requirement or library
    if requirement != library:
        requirement = "'%s'" % requirement      # quoted for the shell: psycopg[binary] is a glob
    return StoreUnavailable(
        'netpool.ipam needs the Python library %s %s, and the Python that runs it on the controller (%s) does not '
        'have it. Install it with: %s -m pip install %s (the requirements.txt of the netpool.ipam collection pins '
        'the version it is tested with).' % (library, needed_for, sys.executable, sys.executable, requirement),
        library=library, python=sys.executable)


ERRORS = dict((cls.code, cls) for cls in (
    AddressInUse, AddressOutOfPool, AddressExcluded, AdoptConflict, NotReserved, PoolExhausted, PoolNotFound,
    PoolOverlap, PoolInUse, InvalidArgument, StoreBusy, StoreUnavailable, StoreVersion, Unsupported, InternalError))
