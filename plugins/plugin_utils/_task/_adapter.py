# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The controller-side adapter: what the action plugins and the lookup share.

This is a private module: it may change at any time.

- ``IpamAction`` is the whole of every action plugin: it validates the task's
  arguments against the module's own argument spec (``_options.MODULES``),
  runs the service in-process on the controller (no connection to the host,
  nothing copied to it) and honours the task's check and diff modes
  (``_inprocess.run_task``).
- ``plugin_call`` / ``LookupIpamError`` do the same for the lookup and the
  inventory, which raise ``AnsibleError`` instead.

Every one of them turns a failure into the keys of a failed result, with its
``error`` code, through ``_runner.attempt``, as a module file does.

A store found unavailable by one item of a task's loop is not tried again by
the items after it: they fail at once with the same message, saying so (a
wrong PostgreSQL port would otherwise cost every pool of roles/pools the
task's whole ``timeout``). Ansible runs a task's loop for one host in one
worker process, forked for that task alone, so what an item found lasts for
that loop only; the item that found it tries again when ``until`` asks it to.

A relative store path is relative to the directory ``ansible-playbook`` /
``ansible-inventory`` was started from (the controller's working directory).
"""

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.netpool.ipam.plugins.module_utils._task._options import MODULES
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import preload
from ansible_collections.netpool.ipam.plugins.plugin_utils._task._inprocess import base_dir, run_task, validator

# Ansible loads action and lookup plugins in the controller process and forks a worker per host and task:
# the stores the registry names for it (``_registry.PRELOADED``, and why) are imported here, once, not per host.
preload()


#: module name -> (argument spec, its ArgumentSpecValidator) of every module, made here, once (_inprocess.VALIDATORS)
for _name in MODULES:
    validator(_name)


#: the store options of a task (``_store_of``) -> (the item of its loop that found that store unavailable, its failure)
UNAVAILABLE = {}

#: what the items after it say
NOT_TRIED = ' (not tried again: an earlier item of this loop found the store unavailable)'


def _store_of(args):
    """What names and reaches a task's store: the items of a loop with these alike reach the same store."""
    return repr([args.get(k) for k in ('store', 'store_token', 'validate_certs')])


def _item_of(task_vars):
    """The item of the loop the task runs for (as text), or None outside a loop."""
    loop_var = task_vars.get('ansible_loop_var')
    return None if loop_var is None else repr(task_vars.get(loop_var))


class IpamAction(ActionBase):
    """One netpool.ipam module, run in-process on the controller. Subclasses set ``module``."""

    module = None
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        try:
            result = super(IpamAction, self).run(tmp, task_vars)
        except AnsibleActionFail as e:    # async, which a controller-side task has no use for
            return {'failed': True, 'msg': str(e), 'error': 'invalid_argument'}
        store, item = _store_of(self._task.args), _item_of(task_vars or {})
        if store in UNAVAILABLE and UNAVAILABLE[store][0] != item:
            result.update(UNAVAILABLE[store][1])
            return result
        outcome = run_task(self.module, self.task_args(), bool(self._task.check_mode), bool(self._task.diff))
        if outcome.get('error') == 'store_unavailable' and item is not None:
            UNAVAILABLE[store] = (item, dict(outcome, msg=outcome['msg'] + NOT_TRIED))
        if outcome.get('store_created'):
            Display().v(_runner.created_message(outcome['store']))
        result.update(outcome)
        return result

    def task_args(self):
        """The task's arguments as the module takes them (a subclass may resolve a path on the controller)."""
        return self._task.args


class LookupIpamError(AnsibleError):
    """An ``AnsibleError`` carrying the ``error`` code (also at the end of its message).

    Its cause (the traceback of a bug, ``InternalTraceback``) is not part of its message: Ansible shows it only
    when asked for tracebacks.
    """

    _include_cause_message = False

    def __init__(self, msg, code):
        super(LookupIpamError, self).__init__('%s (error %s)' % (msg, code))
        self.error = code


class InternalTraceback(Exception):
    """The traceback of a bug in the lookup, secrets hidden: the cause of its ``LookupIpamError``, which
    Ansible shows when asked for tracebacks (``ANSIBLE_DISPLAY_TRACEBACK=error``)."""


def lookup_store(params):
    """The store the lookup reads, as its messages name it (``_runner.store_location``)."""
    return _runner.store_location(params, base_dir())


def lookup_call(params, call, doing):
    """Run ``call(service)`` for the lookup; ``IpamError`` becomes ``LookupIpamError``, and so does any other
    exception (a bug: ``internal_error``, its traceback shown at -vvv)."""
    return plugin_call(params, call, doing, 'lookup netpool.ipam.address', 'address lookup')


def plugin_call(params, call, doing, plugin, name, must_exist=False):
    """Run ``call(service)`` for controller-side plugin ``plugin`` (its name in messages, ``name`` in the message
    of a bug); any failure raises ``LookupIpamError`` (an ``AnsibleError``) with its error code, secrets hidden.
    ``must_exist``: a store file that does not exist is ``store_unavailable``, not an empty store."""
    where = base_dir()
    created = []
    result, failure = _runner.attempt(
        name, params, lambda: _runner.with_service(params, where, call, must_exist=must_exist, created=created),
        where, doing)
    for location in created:    # (the lookup with allocate, on a store that was not there)
        Display().v(_runner.created_message(location))
    if failure is None:
        return result
    error = LookupIpamError('%s: %s' % (plugin, failure['msg']), failure['error'])
    if 'exception' in failure:      # a bug: its traceback is the cause, shown when tracebacks are asked for
        raise error from InternalTraceback(failure['exception'])
    raise error
