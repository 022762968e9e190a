# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the shipped tools share: finding the collection they lie in (a checkout or an installed copy)."""

import importlib
import os
import sys
import types


def import_collection(probe):
    """Make ``ansible_collections.netpool.ipam`` the collection this tool lies in, unless ``probe`` (a module of
    the collection) already imports from an installed one."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        importlib.import_module('ansible_collections.netpool.ipam.' + probe)
        return
    except ImportError:
        pass
    for name, path in (('ansible_collections', []), ('ansible_collections.netpool', []),
                       ('ansible_collections.netpool.ipam', [root])):
        module = sys.modules.get(name) or types.ModuleType(name)
        module.__path__ = list(getattr(module, '__path__', [])) + path
        sys.modules[name] = module
