# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Running a task: option specs (``_options``), the runner (``_runner``), a module file run directly
(``_module``). The top of module_utils.

This is a private package: it may change at any time.
"""
