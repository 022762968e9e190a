# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """Attributes shared by every netpool.ipam module (``netpool.ipam.attributes``)."""

    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying the store.
    support: full
  diff_mode:
    description: Returns the object before and after the change when in diff mode.
    support: full
  platform:
    description: Runs on the controller, in-process, whatever the targets of the play are.
    support: full
    platforms: all
  action_group:
    description: Use C(group/netpool.ipam.all) in C(module_defaults) to set options of every module of the collection.
    support: full
    membership:
      - netpool.ipam.all
"""

    # For modules that only read (netpool.ipam.info): nothing to predict or to diff.
    INFO = r"""
attributes:
  check_mode:
    description: Can run in check_mode; it only reads, so it behaves the same.
    support: full
    details: The module only reads the store (but with the deprecated O(repair=true), where check mode reports
      what would be repaired and writes nothing).
  diff_mode:
    description: Has no diff to return.
    support: N/A
    details: The module only reads the store.
  platform:
    description: Runs on the controller, in-process, whatever the targets of the play are.
    support: full
    platforms: all
  action_group:
    description: Use C(group/netpool.ipam.all) in C(module_defaults) to set options of every module of the collection.
    support: full
    membership:
      - netpool.ipam.all
"""
