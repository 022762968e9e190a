# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The runner's cache of services (one per store and its settings, kept for the life of a process): how a test
starts again without it. tests/unit/conftest.py resets it after every test; a test that must see a store opened
afresh within itself calls ``reset()``."""

from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner


def reset():
    """Close the stores the runner opened in this process and forget every service it keeps."""
    _runner.close_all()
    _runner._SERVICES.clear()  # pylint: disable=protected-access
