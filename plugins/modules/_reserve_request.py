#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: _reserve_request
short_description: Internal to role netpool.ipam.reserve, not for playbooks - a host's request and the role's batch
version_added: 1.0.0
description:
  - B(Internal:) a part of role C(netpool.ipam.reserve) (its C(tasks/main.yml)), not for use in playbooks or
    roles of your own. Its name, options and output may change in any release, with the role. Run the role
    instead (R(Roles and playbooks,ansible_collections.netpool.ipam.docsite.roles)).
  - Named C(reserve_request) in 1.0.0; the leading underscore marks it private.
  - On every host, reads the host's request - the role's variables (C(ipam_pool), C(ipam_key)...) as they are for
    the host, from any level (inventory, group, play, role parameters, role defaults) - and checks it; a host whose
    variables are wrong fails alone. Where the play runs its hosts together (the C(linear) strategy and those built
    on it) and no C(when) applies to the role, the request waits for the task run once after it and is C(changed)
    when the host's address will change; otherwise the host's address is reserved there, for that host alone.
  - With O(batch), run once after the requests, it reserves every waiting request of the batch in inventory order,
    one transaction per group (M(netpool.ipam.reservation) with C(owners)), and returns the index of what each
    host got.
  - The work is done by the action plugin, on the controller; this module only documents it. It is not in the
    action group C(group/netpool.ipam.all); it reads the store settings that C(module_defaults) give that group
    itself, and the role's variables win over them.
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
options:
  batch:
    description: Reserve for the waiting requests of the batch (run once, after the requests).
    type: bool
    default: false
attributes:
  check_mode:
    description: The request reads variables and the store only; the batch predicts, as M(netpool.ipam.reservation).
    support: full
  diff_mode:
    description: Has no diff to return.
    support: none
  platform:
    description: Runs on the controller, in-process, whatever the targets of the play are.
    support: full
    platforms: all
notes:
  - The request holds the store settings, C(ipam_store_token) too, so the role runs this task with C(no_log).
"""

EXAMPLES = r"""
# see roles/reserve/tasks/main.yml
"""

RETURN = r"""
request:
  description: The host's request (C(host), C(state), C(owner), C(pool), C(key), the store settings... and the
    gathered facts that name its MAC), for the task run once.
  returned: without O(batch), where the request waits for the task run once
  type: dict
batched:
  description: Whether the request waits for the task run once.
  returned: without O(batch)
  type: bool
entry:
  description: What the host got (its reservation, address, CIDR, gateway...), where it was reserved alone.
  returned: without O(batch), where the host was reserved alone
  type: dict
hosts:
  description: What each host of the batch got, by host.
  returned: with O(batch)
  type: dict
table:
  description: A line per host - pool, address, gateway.
  returned: success, where something was reserved
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.netpool.ipam.plugins.module_utils._task._options import STORE_OPTIONS


def main():
    # The action plugin does the work, on the controller; the module itself is never sent to a host.
    argument_spec = dict(batch=dict(type='bool', default=False))
    argument_spec.update(STORE_OPTIONS)
    module = AnsibleModule(argument_spec=argument_spec, supports_check_mode=True)
    module.fail_json(msg='netpool.ipam._reserve_request runs on the controller (its action plugin), as part of '
                         'role netpool.ipam.reserve')


if __name__ == '__main__':
    main()
