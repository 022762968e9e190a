# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The model and its vocabulary: errors, objects, address arithmetic, secrets, metadata, input checks.
Imports nothing of module_utils outside this folder.

This is a private package: it may change at any time.
"""
