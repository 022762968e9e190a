# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Where the netpool.ipam collection is, so that the provider imports its service and stores.

The provider has no allocator of its own: it imports ``ansible_collections.netpool.ipam.plugins.module_utils``
from an installed collection. It looks, in this order, in

1. ``NETPOOL_TERRAFORM_COLLECTIONS_PATH``: the collections directory the mirror's launcher records (the one
   the ``mirror`` command found, or was given with ``--collections-path``);
2. ``ANSIBLE_COLLECTIONS_PATH`` (else Ansible's defaults ``~/.ansible/collections`` and
   ``/usr/share/ansible/collections``): where Ansible itself finds collections;
3. ``sys.path`` as it is (a collection already importable).

Each entry is a directory holding ``ansible_collections/netpool/ipam``; the first that has it is put at
the front of ``sys.path``.
"""

import os
import sys

RECORDED_ENV = 'NETPOOL_TERRAFORM_COLLECTIONS_PATH'
DEFAULT_PATHS = ('~/.ansible/collections', '/usr/share/ansible/collections')


class CollectionNotFound(Exception):
    """No netpool.ipam collection where the provider looked."""


def candidates():
    """The collections directories searched, in order."""
    found = []
    for var in (RECORDED_ENV, 'ANSIBLE_COLLECTIONS_PATH', 'ANSIBLE_COLLECTIONS_PATHS'):
        found.extend(p for p in os.environ.get(var, '').split(os.pathsep) if p)
    if not os.environ.get('ANSIBLE_COLLECTIONS_PATH') and not os.environ.get('ANSIBLE_COLLECTIONS_PATHS'):
        found.extend(DEFAULT_PATHS)
    return [os.path.abspath(os.path.expanduser(p)) for p in found]


def holds_collection(path):
    return os.path.isfile(os.path.join(path, 'ansible_collections', 'netpool', 'ipam', 'plugins', 'module_utils',
                                       '_service.py'))


def locate():
    """The collections directory that holds netpool.ipam, or None when it is importable from sys.path only."""
    for path in candidates():
        if holds_collection(path):
            return path
    return None


def ensure():
    """Make ``ansible_collections.netpool.ipam`` importable; the directory used (None: sys.path had it)."""
    path = locate()
    if path is not None:
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
        return path
    if any(holds_collection(p) for p in sys.path if p):
        return None
    raise CollectionNotFound(
        'The netpool Terraform provider needs the netpool.ipam Ansible collection, and found it in none of %s. '
        'Install it (ansible-galaxy collection install netpool.ipam, or make venv in a checkout) and write the '
        'mirror again with: terraform-provider-netpool mirror DIR --collections-path DIR_HOLDING_ansible_collections'
        % (', '.join(candidates()) or 'no directory',))
