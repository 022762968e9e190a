# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Action plugin of netpool.ipam.repair: runs the module in-process on the controller (see plugin_utils/_task/_adapter.py)."""

from ansible_collections.netpool.ipam.plugins.plugin_utils._task._adapter import IpamAction


class ActionModule(IpamAction):
    module = 'repair'
