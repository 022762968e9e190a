# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the shipped tools share: the public entry point of the collection they lie in (``import_api``)."""

import os
import sys
import types


def import_api():
    """``plugins/module_utils/api.py`` of the collection this tool lies in (a checkout or an installed copy):
    its directory comes first for ``ansible_collections.netpool.ipam``, before any other installed netpool.ipam.
    The tool and the entry point are of one version: no version to check."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name, path in (('ansible_collections', []), ('ansible_collections.netpool', []),
                       ('ansible_collections.netpool.ipam', [root])):
        module = sys.modules.get(name) or types.ModuleType(name)
        module.__path__ = path + [p for p in getattr(module, '__path__', []) if p not in path]
        sys.modules[name] = module
    from ansible_collections.netpool.ipam.plugins.module_utils import api  # pylint: disable=import-outside-toplevel
    return api
