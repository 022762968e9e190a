# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Action plugin of netpool.ipam._pools_check: internal to the pools role (roles/pools/tasks/main.yml).

Run once, before the role declares anything; warns and never fails:

- an ``ipam_*`` variable that no role of the collection reads and that looks like one that some role does, as the
  reserve role warns (``_reserve.misspelled``);
- with no pool to declare (``ipam_pools`` empty or not set), a variable that looks like ``ipam_pools`` (the reserve
  role's ``ipam_pool`` too), and that there is nothing to declare.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.netpool.ipam.plugins.plugin_utils._reserve import misspelled

display = Display()


def warnings(pools, names):
    """The warnings of the pools role for its list ``pools`` (``ipam_pools``) and the ``names`` of the variables
    set."""
    names = [name for name in names if name.startswith('ipam_')]
    found = misspelled(names)
    if not pools:
        named = set(name for name, _nearest in found)
        found += misspelled([name for name in names if name not in named], known={'ipam_pools'})
    said = ['netpool.ipam.pools: the variable %s is not one the role reads: did you mean %s?' % pair
            for pair in sorted(found)]
    if not pools:
        said.append('netpool.ipam.pools: nothing to declare: set ipam_pools, the list of the pools to declare.')
    return said


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        for warning in warnings(self._task.args.get('pools'), task_vars or {}):
            display.warning(warning)
        result.update(changed=False)
        return result
