# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A netpool.ipam module's task run in-process on the controller: its options validated, the service run.

This is a private module: it may change at any time.

``_adapter`` (every action plugin, the lookup, the inventory) builds on it and imports every store's module and
every module's validator when it is imported; the reserve role's action imports only this (and the local stores),
so that a play of the role alone imports neither the NetBox store (``requests``) nor the validators of the other
modules in the controller (about 0.1 s of CPU for each ansible-playbook).
"""

import os

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._checks import option_errors
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import module_kwargs
from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _secrets


def base_dir():
    """Where a relative store path is: the directory the ansible command was started from."""
    return os.getcwd()


#: module name -> (argument spec, its ArgumentSpecValidator): made once (``validator``), in the controller process
#: when a plugin asks for it at import, and inherited by every forked worker (copying the spec for each task cost
#: more than validating the task's arguments). Validating changes neither.
VALIDATORS = {}


def validator(name):
    """``(argument spec, ArgumentSpecValidator)`` of module ``name``, made the first time it is asked for."""
    if name not in VALIDATORS:
        kwargs = module_kwargs(name)
        VALIDATORS[name] = (kwargs['argument_spec'], ArgumentSpecValidator(**kwargs))
    return VALIDATORS[name]


def _validation(name, args):
    """``(ValidationResult, None)`` of task ``args`` against module ``name``'s spec, or ``(None, failure)``."""
    spec, check = validator(name)
    errors = option_errors(spec, args)
    validation = check.validate(dict(args))
    errors.extend(validation.error_messages)
    if errors:
        msg = 'netpool.ipam.%s: invalid options: %s' % (name, '; '.join(errors))
        hidden = _secrets.find(dict(args))
        return None, _secrets.hide({'failed': True, 'msg': msg, 'error': 'invalid_argument'}, hidden)
    return validation, None


def validate(name, args):
    """``(params, None)`` from task ``args`` validated against module ``name``'s spec, or ``(None, failure)``."""
    validation, failed = _validation(name, args)
    return (None, failed) if failed else (validation.validated_parameters, None)


def run_task(name, args, check=False, diff=False):
    """What a task of module ``name`` with ``args`` returns: its options validated, the service run, every
    failure a failed result with its ``error`` code, secrets hidden. A deprecated option given is reported as
    Ansible reports it for a module (``deprecations``: shown as a deprecation warning)."""
    validation, failed = _validation(name, args)
    if failed:
        return failed
    params, where = validation.validated_parameters, base_dir()
    result, failed = _runner.attempt(
        name, params, lambda: _runner.run(name, params, check=check, diff=diff, base_dir=where), where)
    if failed:
        failed['failed'] = True
        result = failed
    if validation._deprecations:    # pylint: disable=protected-access
        result['deprecations'] = [dict(msg=d['msg'], version=d.get('version'), collection_name=d.get('collection_name'))
                                  for d in validation._deprecations]   # pylint: disable=protected-access
    return result
