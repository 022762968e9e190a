# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Where the netpool.ipam collection is, and its public entry point: ``import_api()``.

The provider has no allocator of its own: it uses the collection's public entry point,
``ansible_collections.netpool.ipam.plugins.module_utils.api``, of an installed collection, and nothing else of
it. It looks, in this order, in

1. ``NETPOOL_TERRAFORM_COLLECTIONS_PATH``: the collections directory the mirror's launcher records (the one
   the ``mirror`` command found, or was given with ``--collections-path``);
2. ``ANSIBLE_COLLECTIONS_PATH`` (else Ansible's defaults ``~/.ansible/collections`` and
   ``/usr/share/ansible/collections``): where Ansible itself finds collections;
3. ``sys.path`` as it is (a collection already importable).

Each entry is a directory holding ``ansible_collections/netpool/ipam/plugins/module_utils/api.py`` (a public
name, which no move of the collection's private files changes); the first that has it is put at the front of
``sys.path``: this is the only code of the provider that touches ``sys.path``. The collection's ``API_VERSION``
must be one of ``API_VERSIONS``, else the provider says which collection it found and what to install.
"""

import json
import os
import re
import sys

RECORDED_ENV = 'NETPOOL_TERRAFORM_COLLECTIONS_PATH'
DEFAULT_PATHS = ('~/.ansible/collections', '/usr/share/ansible/collections')
#: the collection's files under a collections directory
COLLECTION = os.path.join('ansible_collections', 'netpool', 'ipam')
#: the public entry point, under the collection
API_FILE = os.path.join('plugins', 'module_utils', 'api.py')
#: the versions of the entry point (``api.API_VERSION``) this provider works with
API_VERSIONS = (1,)


class CollectionNotFound(Exception):
    """No netpool.ipam collection where the provider looked, or one whose entry point this provider cannot use."""


def candidates():
    """The collections directories searched, in order."""
    found = []
    for var in (RECORDED_ENV, 'ANSIBLE_COLLECTIONS_PATH', 'ANSIBLE_COLLECTIONS_PATHS'):
        found.extend(p for p in os.environ.get(var, '').split(os.pathsep) if p)
    if not os.environ.get('ANSIBLE_COLLECTIONS_PATH') and not os.environ.get('ANSIBLE_COLLECTIONS_PATHS'):
        found.extend(DEFAULT_PATHS)
    return [os.path.abspath(os.path.expanduser(p)) for p in found]


def holds_collection(path):
    """True when the collections directory ``path`` holds netpool.ipam with its public entry point."""
    return os.path.isfile(os.path.join(path, COLLECTION, API_FILE))


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
    older = [os.path.join(p, COLLECTION) for p in candidates() if os.path.isdir(os.path.join(p, COLLECTION))]
    if older:
        raise CollectionNotFound(mismatch(older[0], None))
    raise CollectionNotFound(
        'The netpool Terraform provider needs the netpool.ipam Ansible collection, and found it in none of %s. '
        'Install it (ansible-galaxy collection install netpool.ipam, or make venv in a checkout) and write the '
        'mirror again with: terraform-provider-netpool mirror DIR --collections-path DIR_HOLDING_ansible_collections'
        % (', '.join(candidates()) or 'no directory',))


def import_api():
    """The collection's public entry point (``plugins/module_utils/api.py``), found as the module's docstring
    says; ``CollectionNotFound`` when there is none, or when its ``API_VERSION`` is not one of ``API_VERSIONS``."""
    ensure()
    from ansible_collections.netpool.ipam.plugins.module_utils import api  # pylint: disable=import-outside-toplevel
    if getattr(api, 'API_VERSION', None) not in API_VERSIONS:
        raise CollectionNotFound(mismatch(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
            api.__file__)))), getattr(api, 'API_VERSION', None)))
    return api


def collection_version(root):
    """The version of the collection at ``root``: its ``MANIFEST.json`` (installed) or ``galaxy.yml`` (a
    checkout); ``unknown`` when neither says."""
    try:
        with open(os.path.join(root, 'MANIFEST.json')) as f:
            return json.load(f)['collection_info']['version']
    except (IOError, OSError, ValueError, KeyError, TypeError):
        pass
    try:
        with open(os.path.join(root, 'galaxy.yml')) as f:
            found = re.search(r'^version:\s*[\'"]?([^\s\'"]+)', f.read(), re.MULTILINE)
        if found:
            return found.group(1)
    except (IOError, OSError):
        pass
    return 'unknown'


def provider_version():
    """This provider's version (the collection's it ships with), or None when it is not installed."""
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    try:
        return metadata.version('terraform-provider-netpool')
    except metadata.PackageNotFoundError:
        return None


def mismatch(root, offered):
    """The message for the collection at ``root`` whose entry point has version ``offered`` (None: it has no
    entry point, older than the provider)."""
    mine = provider_version()
    return ('netpool.ipam %s found at %s offers %s; this provider%s needs API %s: install the netpool.ipam '
            'collection this provider ships with (ansible-galaxy collection install netpool.ipam%s), or the provider '
            'that ships with the collection found (pip install %s), then write the mirror again '
            '(terraform-provider-netpool mirror DIR) and run terraform init -upgrade.'
            % (collection_version(root), root, 'no API (plugins/module_utils/api.py)' if offered is None
               else 'API %s' % (offered,), ' (%s)' % mine if mine else '',
               ' or '.join(str(v) for v in API_VERSIONS), ':==%s' % mine if mine else '',
               os.path.join(root, 'terraform')))
