# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What each module does with its validated options: one call of the service.

This is a private module: it may change at any time.

Both adapters use it: the module adapter (``_module.run_module``, which calls
``fail_json``) and the controller-side adapter of the action plugins and the
lookup (``plugin_utils/_task/_adapter.py``, which returns failed results or raises
``AnsibleError``). Nothing here exits or raises anything but ``IpamError``.

Stores are opened once per process and kept (``service_for``): an Ansible
worker (a forked process) or an ``ansible-inventory`` run pays for opening
the store once, not once per task or per templated host. The cache is keyed
by process id, so a forked child never uses a connection its parent opened.
Each process closes the stores it opened when it exits (``close_all``): for
SQLite, closing the last connection folds the write-ahead log back into the
file, so that the ``.sqlite`` file alone holds every change once the play is
over (a user who copies or commits it loses nothing).

A store file that does not exist yet is created only by work that changes
something (``with_service``): a failed task, a read or check mode leaves no
new file behind.
"""

import multiprocessing.util
import os
import traceback

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _requests, _secrets
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    IpamError, InternalError, StoreAbsent, StoreUnavailable, missing_library)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._intervals import HAS_NETADDR, NETADDR_IMPORT_ERROR
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import STORE_ENV
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import DEFAULT_STORE, location, open_store

try:
    # Imported here, at import time, so that Ansible's forked workers inherit it already imported.
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _adopt as _adopting
    IMPORT_ERROR = None
except ImportError as e:  # a library missing: fail the task with a message, not at import
    Service = _adopting = None
    IMPORT_ERROR = e

#: (pid, store options, base_dir) -> Service
_SERVICES = {}
#: pid -> the exit hook of that process that closes its stores (a forked child registers its own)
_CLOSERS = {}


def _store_settings(params, base_dir):
    """The settings a store is opened with in this process, ``(pid, store, store_token, validate_certs, timeout,
    base_dir)``: its service is kept under them (``_SERVICES``)."""
    timeout = _checks.timeout(params.get('timeout'))
    # an empty store is one not given: the environment's, else the default (as when the option is left out)
    store = params.get('store') or os.environ.get(STORE_ENV) or DEFAULT_STORE
    return (os.getpid(), store, params.get('store_token'),
            bool(params.get('validate_certs', True)), timeout, base_dir)


def store_location(params, base_dir=None):
    """Where the store that ``params`` name is, as results and messages show it: a file store's absolute path
    (a relative one resolved against ``base_dir``, else the working directory), a URL with its passwords masked.
    Every result (``store``) and every failure (``store``, and at the end of ``msg``) names it: a user who ran
    from another directory than meant sees which file was read."""
    return location(params.get('store') or os.environ.get(STORE_ENV) or DEFAULT_STORE, base_dir)


def service_for(params, base_dir=None, create=True, must_exist=False):
    """The ``Service`` over the store that ``params`` name, opened once per process.

    ``base_dir`` is the directory a relative store path is relative to (the
    controller's working directory for action plugins and the lookup).
    ``create=False`` (check mode, reads) does not create a store file that does
    not exist yet: such a store reads as empty and is not kept, so a later task
    sees the file once another one has created it. ``must_exist=True`` (a reader that must not take a missing
    store file for an empty one: the inventory plugin) fails ``store_unavailable`` naming the missing file
    (``open_store``).
    """
    settings = _store_settings(params, base_dir)
    service = _SERVICES.get(settings)
    if service is None:
        if not HAS_NETADDR:
            raise missing_library('netaddr', 'for every store (%s)' % NETADDR_IMPORT_ERROR)
        if Service is None:
            raise missing_library(getattr(IMPORT_ERROR, 'name', None) or 'netaddr', 'for every store (%s)'
                                  % IMPORT_ERROR)
        store = open_store(settings[1], token=settings[2], validate_certs=settings[3], timeout=settings[4],
                           base_dir=base_dir, create=create, must_exist=must_exist)
        service = Service(store)
        if not store.absent and not store.behind:     # (one behind is read as it is now, each time)
            _SERVICES[settings] = service
            if settings[0] not in _CLOSERS:
                # Run at the exit of this process: atexit in the controller and ansible-inventory, and the
                # multiprocessing exit of an Ansible worker (a forked process, where atexit does not run).
                _CLOSERS[settings[0]] = multiprocessing.util.Finalize(None, close_all, exitpriority=10)
    return service


def created_message(location):
    """What the controller shows at ``-v`` of a task that made a new store (docs/stores.md, "A store that is not
    there"): the first run of a plan makes its store, which is the normal start and no warning; the line names
    the path, so that a mistyped one (``ipam.sqlte``) or a playbook run from another directory can be seen."""
    return ('netpool.ipam created a new, empty store at %s: there was none there. If you meant an existing store, '
            'check the store option (or NETPOOL_IPAM_STORE) and the directory the command was started from (a '
            'relative path is relative to it); a store made by mistake can be removed.' % location)


def with_service(params, base_dir, work, must_exist=False, created=None):
    """``work(service)`` over the store that ``params`` name.

    A local store file that does not exist yet (or the tables of a PostgreSQL database that has none) is
    created only if ``work`` commits a change: it first runs on the store opened not to create it (empty,
    in memory); if it would commit a change (``StoreAbsent``),
    the store is created and ``work`` runs again on it. So a failure (``pool_not_found`` …), a read or check
    mode never leaves a new store file behind. A SQLite or PostgreSQL store of an older schema version is
    migrated the same way, only by work that commits a change: a read, check mode or a rerun leaves it at its
    version, so controllers still on the older collection go on using a store they share. After ``store_unavailable`` the cached store is dropped: the
    next call (or attempt) opens it again.

    A store that talks to a server marks the failures that are safe to retry (``_retry``): the whole of
    ``work`` is then run again, from its start in a new transaction, within the task's ``timeout``.

    ``must_exist=True``: a store file that does not exist is ``store_unavailable`` (``open_store``).

    ``created``: a list that gets the location (``store_location``) of a store that ``work`` made (its file, or the
    tables of a PostgreSQL database), once: the task that makes a store says so (``created_message``).
    """
    timeout = _store_settings(params, base_dir)[4]
    made = []
    result = _retry.call(lambda: _attempt(params, base_dir, work, must_exist, made), timeout,
                         lambda evidence: _attempt(params, base_dir,
                                                   lambda service: service.store.commit_landed(evidence), must_exist))
    if made and created is not None:
        created.append(store_location(params, base_dir))
    return result


def _attempt(params, base_dir, work, must_exist=False, made=None):
    """One attempt of ``with_service``; ``made`` gets True if the store was made by it."""
    try:
        service = service_for(params, base_dir, create=False, must_exist=must_exist)
        try:
            return _reported(work, service, made)
        except StoreAbsent:
            return _reported(work, service_for(params, base_dir, create=True), made)
        finally:
            if service.store.absent or service.store.behind:    # not kept (see service_for): closed now
                service.store.close()
    except StoreUnavailable:
        forget(params, base_dir)
        raise


def _reported(work, service, made):
    """``work(service)``; then, if its store was made meanwhile (``Store.created``), True in ``made``, once."""
    result = work(service)
    if service.store.created:
        service.store.created = False
        if made is not None:
            made.append(True)
    return result


def close_all():
    """Close every store this process opened (never one its parent opened before a fork)."""
    pid = os.getpid()
    for key in [k for k in _SERVICES if k[0] == pid]:
        try:
            _SERVICES.pop(key).store.close()
        except Exception:  # pylint: disable=broad-except
            pass


def forget(params, base_dir=None):
    """Drop a cached store (after ``store_unavailable``: the next task opens it again)."""
    service = _SERVICES.pop(_store_settings(params, base_dir), None)
    if service is not None:
        try:
            service.store.close()
        except Exception:  # pylint: disable=broad-except
            pass


def pool_subnets(params):
    """``subnets`` from the pool module's options, turning the one-subnet shorthand into a list
    (``_requests.pool_subnets``)."""
    return _requests.pool_subnets(params)


def _pool(service, p, check):
    return service.pool(_requests.PoolRequest.from_options(p, check))


def _range(service, p, check):
    return service.range(p['pool'], p['range'], namespace=p['namespace'], kind=p['kind'], state=p['state'],
                         force=p['force'], check=check)


def _reservation(service, p, check):
    if p['state'] == 'absent':
        return service.release(p['namespace'], pool=p.get('pool'), owner=p.get('owner'), key=p.get('key'),
                               keep_owners=p.get('keep_owners'), check=check, owners=p.get('owners'),
                               family=p.get('family'))
    _checks.reservation_state(p['state'], p.get('keep_owners'))
    return service.reserve(_requests.ReservationRequest.from_options(p, check))


def _info(service, p, check):
    return service.info(_requests.InfoRequest.from_options(p, check))


def _repair(service, p, check):
    """``verify`` with ``repair``; the diff is the free spans of each pool rebuilt, before and after."""
    result = service.verify(p['namespace'], repair=True, check=check)
    result['diff'] = dict((side, dict(('%s/%s' % (r['namespace'], r['pool']), r['free_%s' % side])
                                      for r in result['repaired'])) for side in ('before', 'after'))
    return result


def _adopt(service, p, check, base_dir=None):
    where = dict((k, p.get(k) if p.get(k) is None or k not in ('csv', 'leases')
                  else os.path.join(base_dir or os.getcwd(), p[k])) for k in ('entries', 'csv', 'leases'))
    entries, source = _adopting.read_source(service, leases_format=p.get('leases_format'), key=p.get('key'),
                                            pool=p.get('pool'), **where)
    return _adopting.adopt(service, entries, p['namespace'], p['on_conflict'], check, source)


OPERATIONS = {'pool': _pool, 'range': _range, 'reservation': _reservation, 'info': _info, 'repair': _repair,
              'adopt': _adopt}


def run(name, params, check=False, diff=False, base_dir=None):
    """Run module ``name`` with its validated ``params``; the task result, or ``IpamError``. A task that made the
    store has ``store_created`` true (no warning: the controller's plugins show ``created_message`` at ``-v``)."""
    created = []

    def operation(service):
        if name == 'adopt':     # its source is a file on the controller: a relative path is relative to base_dir
            return _adopt(service, params, check, base_dir)
        return OPERATIONS[name](service, params, check)

    result = with_service(params, base_dir, operation, created=created)
    result['store'] = store_location(params, base_dir)
    if created:
        result['store_created'] = True
    diff_data = result.pop('diff', None)
    if diff and diff_data is not None:
        result['diff'] = diff_data
    return result


def failure(error, params, base_dir=None):
    """The keys of a failed result for ``IpamError`` ``error``, with secrets hidden: ``store`` names the store
    read (``store_location``), and so does the end of ``msg`` unless it already does. ``params`` None: no store
    was named yet (a Terraform provider not configured yet)."""
    if not isinstance(error, IpamError):
        raise TypeError('failure() takes an IpamError')
    result = error.to_result()
    where = None if params is None else store_location(params, base_dir)
    if where:
        result['store'] = where
        if where not in result['msg']:
            result['msg'] = '%s (store: %s)' % (result['msg'].rstrip(), where)
    return _secrets.hide(result, _secrets.find(params or {}))


def attempt(name, params, work, base_dir=None, doing=None):
    """``(work(), None)``, or ``(None, failure)`` when ``work`` raises (``failure_of``): for every way a task runs
    (a module file, an action plugin, the lookup, the inventory)."""
    try:
        return work(), None
    except Exception as e:  # pylint: disable=broad-except
        return None, failure_of(name, e, params, base_dir, doing)


def failure_of(name, error, params, base_dir=None, doing=None, who=None, report=None):
    """The keys of a failed result for any exception ``error``: the one place where a failure becomes a result,
    for the tasks (``attempt``) and for the collection's public entry point (``api.failure``: the Terraform
    provider). An ``IpamError`` gives its code and message (``failure``); any other exception is a bug
    (``unexpected``: ``internal_error``, the traceback in ``exception``). Secrets are hidden either way."""
    if isinstance(error, IpamError):
        return failure(error, params, base_dir)
    return unexpected(name, error, params, doing, base_dir, who, report)


def _doing(name, p):
    """What module ``name`` was doing with options ``p``, for the message of a bug."""
    state = p.get('state') or 'present'
    if name == 'pool':
        return '%s pool %r' % ('deleting' if state == 'absent' else 'creating or updating', p.get('name'))
    if name == 'range':
        return '%s ranges %s of pool %r' % ('removing' if state == 'absent' else 'adding', p.get('range'),
                                            p.get('pool'))
    if name == 'reservation' and state == 'absent':
        if p.get('keep_owners') is not None:
            return 'sweeping pool %r' % (p.get('pool'),)
        return 'releasing the address(es) of owner %r in pool %r' % (p.get('owner') or p.get('owners'), p.get('pool'))
    if name == 'reservation' and p.get('owners') is not None:
        return 'reserving addresses in pool %r for %d owners' % (p.get('pool'), len(p.get('owners') or ()))
    if name == 'reservation':
        return 'reserving an address in pool %r for owner %r' % (p.get('pool'), p.get('owner'))
    if name == 'repair':
        return 'repairing the store'
    if name == 'adopt':
        if p.get('csv') or p.get('leases'):
            return 'adopting addresses from %s' % (p.get('csv') or '%s leases %s' % (p.get('leases_format'), p['leases']))
        return 'adopting addresses from entries'
    return 'reading the store'


#: what the message of a bug asks of a user of Ansible, after "This is a bug in netpool.ipam, not in your"
TASK_REPORT = ('task: please report it at https://github.com/netpool/ipam/issues with the output of the task run '
               'with -vvv and ANSIBLE_DISPLAY_TRACEBACK=error (which show the traceback)')


def unexpected(name, error, params, doing=None, base_dir=None, who=None, report=TASK_REPORT):
    """The keys of a failed result for ``error``, an exception that is not an ``IpamError``: a bug.

    The code is ``internal_error``; ``msg`` says what was being done and asks for a report, and the traceback is
    in ``exception``, never in ``msg``: Ansible shows it when ``ANSIBLE_DISPLAY_TRACEBACK=error`` is set (not at
    -vvv alone, since ansible-core 2.19). Secrets are hidden in both. ``who`` is what failed (default
    ``netpool.ipam.<name>``) and ``report`` what the user is asked (``TASK_REPORT``); ``params`` None: no store
    was named yet.
    """
    where = ''
    if params is not None:
        where = ' in namespace %r of store %s' % (params.get('namespace') or 'default',
                                                  store_location(params, base_dir) or 'given in store')
    bug = InternalError(
        '%s failed unexpectedly while %s%s (%s: %s). This is a bug in netpool.ipam, not in your %s.'
        % (who or 'netpool.ipam.%s' % name, doing or _doing(name, params or {}), where, type(error).__name__, error,
           report or TASK_REPORT),
        exception=''.join(traceback.format_exception(type(error), error, error.__traceback__)))
    return failure(bug, params, base_dir)
