# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Action plugin of netpool.ipam.adopt: runs the module in-process on the controller (see plugin_utils/_task/_adapter.py).

A relative ``csv`` or ``leases`` path is looked for as Ansible looks for a file a task names (the role's or the
playbook's ``files/``, then beside the playbook); one found nowhere is relative to the working directory, and the
failure names it there."""

import os

from ansible.errors import AnsibleError

from ansible_collections.netpool.ipam.plugins.plugin_utils._task._adapter import IpamAction


class ActionModule(IpamAction):
    module = 'adopt'

    def task_args(self):
        args = dict(self._task.args)
        for name in ('csv', 'leases'):
            if isinstance(args.get(name), str) and args[name] and not os.path.isabs(os.path.expanduser(args[name])):
                try:
                    args[name] = self._find_needle('files', args[name])
                except AnsibleError:
                    pass
        return args
