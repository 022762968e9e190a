# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Action plugin of netpool.ipam.reserve_request: internal to the reserve role (plugin_utils/_reserve.py).

The one task of the role run on every host: the host's request, its role variables as they are for that host
(inventory, group, play vars, role parameters, role defaults: the task's variables), templated in one pass (an
omitted variable is left out) and checked against the role's documented variables (``argument_specs.reserve`` of
roles/reserve/meta/argument_specs.yml, read once by the controller process before it forks the workers), as
Ansible's own ``validate_argument_spec`` would check them.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        # every role variable the host has, templated in one pass: an omitted one is left out
        values = self._templar.template(dict((name, task_vars[name]) for name in _reserve.SPEC if name in task_vars))
        errors = _reserve.validate(values)
        if errors:
            result.update(failed=True, msg=errors)
            return result
        request = dict((field, values[name]) for name, field in _reserve.REQUEST if name in values)
        request['host'] = task_vars.get('inventory_hostname')
        request['facts'] = self._templar.template(_reserve.mac_facts(task_vars.get('ansible_facts'), request.get('key')))
        result.update(changed=False, request=request)
        return result
