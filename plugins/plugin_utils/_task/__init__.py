# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Running a task on the controller: the action/lookup/inventory adapter (``_adapter``) and the in-process
validation and run (``_inprocess``).

This is a private package: it may change at any time.
"""
