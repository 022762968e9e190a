# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Maintenance: verify and repair (``_verify``), export and import of a whole state (``_transfer``).
Imports ``_vocabulary``, ``_space`` and ``_stores``; the service calls it, never the reverse.

This is a private package: it may change at any time.
"""
