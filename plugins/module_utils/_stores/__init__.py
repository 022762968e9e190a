# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The stores: the store interface (``_base``), the registry, one module or package per store, and the
waits on a busy store (``_retry``). Imports ``_vocabulary`` and ``_space`` only.

This is a private package: it may change at any time.
"""
