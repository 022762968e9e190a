# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Allocation: the service (``_service``, ``_pools``) and the rules it calls (``_reshape``, ``_results``,
``_owners`` the returning owner, ``_align`` aligned host parts, ``_dual`` family dual, ``_nextfree`` what a plan
predicts). Imports the folders below it (``_maintenance`` and lower), never ``_task``.

This is a private package: it may change at any time.
"""
