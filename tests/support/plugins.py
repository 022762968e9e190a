# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The plugins run as Ansible runs them, in process: the lookup, an action plugin, a module file, and the
params a module's argument spec gives."""

import json

import pytest
import yaml

from ansible import constants as C
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.testing import patch_module_args

from ansible_collections.netpool.ipam.plugins.action import (
    adopt as adopt_action, info as info_action, pool as pool_action, range as range_action,
    reservation as reservation_action)
from ansible_collections.netpool.ipam.plugins.doc_fragments.probe import ModuleDocFragment as ProbeFragment
from ansible_collections.netpool.ipam.plugins.doc_fragments.store import ModuleDocFragment as StoreFragment
from ansible_collections.netpool.ipam.plugins.lookup import address
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import module_kwargs
from ansible_collections.netpool.ipam.plugins.modules import (
    adopt as adopt_module, info as info_module, pool as pool_module, range as range_module,
    reservation as reservation_module)
from ansible_collections.netpool.ipam.tests.support.reliability import action

ACTIONS = {'pool': pool_action, 'range': range_action, 'reservation': reservation_action, 'info': info_action,
           'adopt': adopt_action}
MODULES = {'pool': pool_module, 'range': range_module, 'reservation': reservation_module, 'info': info_module,
           'adopt': adopt_module}


def lookup(terms, **kwargs):
    """Run the lookup with the options its DOCUMENTATION (and the store.plugin and probe doc fragments) declare."""
    options = yaml.safe_load(StoreFragment.PLUGIN)['options']
    options.update(yaml.safe_load(ProbeFragment.DOCUMENTATION)['options'])
    options.update(yaml.safe_load(address.DOCUMENTATION)['options'])
    plugin = address.LookupModule()
    plugin._load_name = 'netpool.ipam.address'
    C.config.initialize_plugin_configuration_definitions('lookup', plugin._load_name, options)
    return plugin.run(terms, variables={}, **kwargs)


def run_action(module, args):
    """The action plugin of ``module`` run on ``args``: its result."""
    return action(ACTIONS[module].ActionModule, args).run(task_vars={})


def run_module(module, args, capsys):
    """The module file of ``module`` run on ``args`` (its ``main()``): the JSON it prints."""
    capsys.readouterr()
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            MODULES[module].main()
    return json.loads(capsys.readouterr().out)


def params(module, store, **given):
    """Module ``module``'s validated params, as AnsibleModule / the action plugin would give them."""
    result = ArgumentSpecValidator(**module_kwargs(module)).validate(dict(given, store=store))
    assert not result.error_messages, result.error_messages
    return result.validated_parameters
