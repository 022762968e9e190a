# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.kea_dhcp6, documented in kea_dhcp6.yml beside this file (docs/publish.md)."""

from __future__ import annotations

from ansible_collections.netpool.ipam.plugins.plugin_utils import _publish
from ansible_collections.netpool.ipam.plugins.plugin_utils._filters import filter_module

def kea_dhcp6(info, config=None):
    return _publish.kea(info, 6, config)


FilterModule = filter_module('kea_dhcp6', kea_dhcp6)
