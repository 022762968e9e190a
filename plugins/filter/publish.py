# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The publish filters (issue 15): an ``info`` result in the formats of Kea, dnsmasq, BIND and /etc/hosts.

Each filter is documented in the YAML file of its name beside this one. The rendering is in
``plugin_utils/_publish.py``; this file only turns its errors into ``AnsibleFilterError``.
"""

from __future__ import annotations

import functools

from ansible.errors import AnsibleFilterError

from ansible_collections.netpool.ipam.plugins.module_utils._errors import IpamError
from ansible_collections.netpool.ipam.plugins.plugin_utils import _publish


def _filter(render, name):
    @functools.wraps(render)
    def run(*args, **kwargs):
        try:
            return render(*args, **kwargs)
        except IpamError as exc:
            raise AnsibleFilterError('netpool.ipam.%s: %s (error %s)' % (name, exc.msg, exc.code))
    return run


def kea_dhcp4(info, config=None):
    return _publish.kea(info, 4, config)


def kea_dhcp6(info, config=None):
    return _publish.kea(info, 6, config)


class FilterModule:
    """netpool.ipam's publish filters."""

    def filters(self):
        return dict((name, _filter(render, name)) for name, render in (
            ('kea_dhcp4', kea_dhcp4),
            ('kea_dhcp6', kea_dhcp6),
            ('dnsmasq_hosts', _publish.dnsmasq),
            ('bind_zones', _publish.bind_zones),
            ('etc_hosts', _publish.hosts),
        ))
