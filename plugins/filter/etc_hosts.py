# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.etc_hosts, documented in etc_hosts.yml beside this file (docs/publish.md)."""

from __future__ import annotations

from ansible_collections.netpool.ipam.plugins.plugin_utils import _publish
from ansible_collections.netpool.ipam.plugins.plugin_utils._filters import filter_module

FilterModule = filter_module('etc_hosts', _publish.hosts)
