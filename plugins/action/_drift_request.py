# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Action plugin of netpool.ipam._drift_request: internal to the drift role (plugin_utils/_drift.py).

On every host, the role's first task: the addresses the host has configured, checked (a host whose addresses are
wrong fails alone), and whether the role reads the store once for the batch (``batched``: the play runs its hosts
together and no condition may skip a task run once, as for the reserve role) or each host reads it alone.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.plugin_utils import _drift, _reserve


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        host = (task_vars or {}).get('inventory_hostname')
        try:
            addresses = _drift.configured(self._task.args.get('addresses'), host)
        except IpamError as e:
            result.update(failed=True, **e.to_result())
            return result
        result.update(changed=False, addresses=addresses, batched=_reserve.batched(self._task))
        return result
