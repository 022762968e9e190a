# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Which store a ``store`` value names, and opening it.

This is a private module: it may change at any time. A path ending in
``.json`` is the JSON store, any other path SQLite; ``postgresql://`` (or
``postgres://``) is PostgreSQL; ``netbox+https://``/``netbox+http://`` is
NetBox (SPEC §1). Store modules are imported only when used, so a missing
optional library only matters to the store that needs it.
"""

import importlib
import os
import re

from ansible_collections.netpool.ipam.plugins.module_utils._errors import InvalidArgument, Unsupported


_PACKAGE = 'ansible_collections.netpool.ipam.plugins.module_utils._stores.'

#: store kind -> (module, class)
STORES = {
    'sqlite': ('_sqlite', 'SqliteStore'),
    'json': ('_json', 'JsonStore'),
    'postgresql': ('_postgresql', 'PostgresqlStore'),
}

DEFAULT_STORE = 'ipam.sqlite'


def store_kind(spec):
    """The kind of store a ``store`` value names."""
    scheme = re.match(r'^([a-z][a-z0-9+.-]*)://', spec)
    if scheme:
        name = scheme.group(1)
        if name in ('postgresql', 'postgres'):
            return 'postgresql'
        if name in ('netbox+https', 'netbox+http'):
            return 'netbox'
        raise InvalidArgument("store '%s' has an unknown scheme '%s://'. Use a file path (.sqlite or .json), "
                              "postgresql://... or netbox+https://..." % (redact(spec), name))
    return 'json' if spec.endswith('.json') else 'sqlite'


#: where a store URL carries a password: ``user:PASSWORD@`` and ``?password=PASSWORD``
_PASSWORDS = (re.compile(r'(://[^/@:]*:)([^/@]*)@'), re.compile(r'([?&]password=)([^&]*)'))


def redact(spec):
    """The store value with any password replaced, for messages."""
    for pattern in _PASSWORDS:
        spec = pattern.sub(lambda m: m.group(1) + '********' + m.group(0)[len(m.group(1)) + len(m.group(2)):], spec)
    return spec


def passwords(spec):
    """The passwords a store value carries (to hide them wherever they might be echoed)."""
    if not isinstance(spec, str):
        return []
    return [m.group(2) for pattern in _PASSWORDS for m in pattern.finditer(spec) if m.group(2)]


def open_store(spec=None, token=None, validate_certs=True, timeout=30, base_dir=None, create=True):
    """Open the store named by ``spec`` (a path, relative to ``base_dir``, or a URL).

    ``create=False`` (check mode, reads): a store file that does not exist is not created, nor are the
    tables of a PostgreSQL database that has none; the store then reads as empty and keeps nothing
    (``store.absent`` is true).
    """
    spec = spec or DEFAULT_STORE
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidArgument('store must be a path or a URL, got %r.' % (spec,))
    kind = store_kind(spec)
    if kind not in STORES:
        raise Unsupported("The %s store is not available in this version of netpool.ipam. "
                          "Use a SQLite or JSON file, or postgresql://..." % kind)
    module, name = STORES[kind]
    cls = getattr(importlib.import_module(_PACKAGE + module), name)
    if kind in ('sqlite', 'json'):
        path = os.path.expanduser(spec)
        if base_dir and not os.path.isabs(path):
            path = os.path.join(base_dir, path)
        return cls(path, timeout=timeout, create=create or os.path.exists(path))
    return cls(spec, timeout=timeout, validate_certs=validate_certs, token=token, create=create)
