# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Which store a ``store`` value names, and opening it.

This is a private module: it may change at any time. A path ending in
``.json`` is the JSON store, any other path SQLite; ``postgresql://`` (or
``postgres://``) is PostgreSQL; ``netbox+https://``/``netbox+http://`` is
NetBox (docs/design.md#naming-a-store). Store modules are imported only when used, so a missing
optional library only matters to the store that needs it.
"""

import importlib
import os
import re

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, StoreUnavailable, missing_store
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._secrets import redact


_PACKAGE = 'ansible_collections.netpool.ipam.plugins.module_utils.'

#: store kind -> (module, class) under _stores
STORES = {
    'sqlite': ('_sqlite', 'SqliteStore'),
    'json': ('_json', 'JsonStore'),
    'postgresql': ('_postgresql', 'PostgresqlStore'),
    'netbox': ('_netbox._store', 'NetboxStore'),
}

#: store kind -> (module, class) of its free-space component (``_space._interface.FreeSpace``): the span
#: implementation for the stores that keep free spans, NetBox's own beside its client
FREE_SPACE = {
    'sqlite': ('_space._spans', 'Spans'),
    'json': ('_space._spans', 'Spans'),
    'postgresql': ('_space._spans', 'Spans'),
    'netbox': ('_stores._netbox._freespace', 'NetboxFreeSpace'),
}


#: the stores an action plugin imports when it is loaded (``preload()``): Ansible loads action and lookup plugins
#: in the controller process and forks a worker per host and task, so what is imported then is imported once, not
#: once per host. The local stores (standard library only) and the NetBox store (``requests``): about 0.12 s of
#: CPU once per ansible-playbook, against as much in every worker of a NetBox task (half the Ansible side's CPU of
#: 50 hosts, one task each). PostgreSQL's driver is left to the workers that use it.
PRELOADED = ('sqlite', 'json', 'netbox')


def _class(module, name):
    return getattr(importlib.import_module(_PACKAGE + module), name)


def modules(*kinds):
    """The modules (under ``plugins/module_utils/``) of these store kinds and of their free space, every kind's
    when none is named. A module file imports them all by name (``_task/_module.py``): AnsiballZ packs only what
    a module's source imports, and this registry imports a store by the string above."""
    names = []
    for kind in kinds or tuple(STORES):
        for module in ('_stores.' + STORES[kind][0], FREE_SPACE[kind][0]):
            if module not in names:
                names.append(module)
    return names


def preload(*kinds):
    """Import the modules of these store kinds (``PRELOADED`` when none is named) and of their free space now,
    in the process that forks the workers. A store whose library is missing is reported when it is opened."""
    for module in modules(*(kinds or PRELOADED)):
        try:
            importlib.import_module(_PACKAGE + module)
        except ImportError:  # pragma: no cover - reported when the store is opened
            pass


DEFAULT_STORE = 'ipam.sqlite'

#: file store kind -> its name in messages, and the file a directory given as store could hold
FILE_KINDS = {'sqlite': ('SQLite', 'ipam.sqlite'), 'json': ('JSON', 'ipam.json')}

#: the keywords of a libpq connection string (PostgreSQL 17's list)
LIBPQ_KEYWORDS = frozenset((
    'host', 'hostaddr', 'port', 'dbname', 'user', 'password', 'passfile', 'require_auth', 'channel_binding',
    'connect_timeout', 'client_encoding', 'options', 'application_name', 'fallback_application_name',
    'keepalives', 'keepalives_idle', 'keepalives_interval', 'keepalives_count', 'tcp_user_timeout',
    'replication', 'gssencmode', 'sslmode', 'requiressl', 'sslnegotiation', 'sslcompression', 'sslcert', 'sslkey',
    'sslpassword', 'sslcertmode', 'sslrootcert', 'sslcrl', 'sslcrldir', 'sslsni', 'requirepeer',
    'ssl_min_protocol_version', 'ssl_max_protocol_version', 'krbsrvname', 'gsslib', 'gssdelegation', 'service',
    'target_session_attrs', 'load_balance_hosts'))

#: one ``word = value`` pair of a libpq keyword connection string (a value may be single-quoted)
_DSN_PAIR = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:'(?:[^'\\]|\\.)*'|[^\s']*)\s*")


def dsn_keywords(spec):
    """The libpq keywords of a store value that is a libpq keyword connection string, else ``[]``.

    A value is such a string (``host=db dbname=ipam``), not a path, when the whole of it is ``word=value``
    pairs separated by whitespace and at least one word is a libpq keyword. A path starts with ``word=`` only
    when its first directory or its file name does: such a path is written ``./host=db`` (or as an absolute
    path), which is never a connection string.
    """
    pos, words = 0, []
    while pos < len(spec):
        pair = _DSN_PAIR.match(spec, pos)
        if pair is None or pair.end() == pos:
            return []
        words.append(pair.group(1))
        pos = pair.end()
    return [word for word in words if word.lower() in LIBPQ_KEYWORDS]


#: the scheme of a store URL (compiled once, in the controller, before Ansible forks its workers)
_SCHEME = re.compile(r'^([a-z][a-z0-9+.-]*)://')


def store_kind(spec):
    """The kind of store a ``store`` value names."""
    scheme = _SCHEME.match(spec)
    if scheme:
        name = scheme.group(1)
        if name in ('postgresql', 'postgres'):
            return 'postgresql'
        if name in ('netbox+https', 'netbox+http'):
            return 'netbox'
        raise InvalidArgument("store '%s' has an unknown scheme '%s://'. Use a file path (.sqlite or .json), "
                              "postgresql://... or netbox+https://..." % (redact(spec), name))
    keywords = dsn_keywords(spec)
    if keywords:
        # the value itself is not shown: it may hold a password in a form that only libpq would read
        raise InvalidArgument('store looks like a libpq keyword connection string (keywords %s), which netpool.ipam '
                              'does not take: write it as a URL, postgresql://user:password@host:port/dbname (or '
                              'give the password in store_token instead). A file whose name starts with '
                              'word=value is written ./NAME.' % ', '.join(keywords))
    return 'json' if spec.endswith('.json') else 'sqlite'


def location(spec=None, base_dir=None):
    """Where the store ``spec`` names is, as results and messages show it: a file store's absolute path, a
    URL with every password masked (``_secrets.redact``). None for a value that names no store (a libpq keyword
    string is never shown: it may carry a password in a form only libpq reads)."""
    spec = spec or DEFAULT_STORE
    if not isinstance(spec, str) or not spec.strip():
        return None
    try:
        kind = store_kind(spec)
    except InvalidArgument:
        return None if dsn_keywords(spec) else redact(spec)
    if kind in ('sqlite', 'json'):
        path = os.path.expanduser(spec)
        if base_dir and not os.path.isabs(path):
            path = os.path.join(base_dir, path)
        return os.path.abspath(path)
    return redact(spec)


def open_store(spec=None, token=None, validate_certs=True, timeout=30, base_dir=None, create=True,
               must_exist=False):
    """Open the store named by ``spec`` (a path, relative to ``base_dir``, or a URL).

    ``create=False`` (check mode, reads): a store file that does not exist is not created, nor are the
    tables of a PostgreSQL database that has none; the store then reads as empty and keeps nothing
    (``store.absent`` is true). Nor is a SQLite or PostgreSQL store of an older schema version migrated: it is
    read as today's version, left as it is (``store.behind`` is its version).

    ``must_exist=True`` (a reader, which never creates a store: the inventory plugin): a store file (SQLite,
    JSON) that does not exist is ``store_unavailable`` naming its path, not an empty store. A PostgreSQL or
    NetBox store is not checked (a database without tables still reads as empty).
    """
    spec = spec or DEFAULT_STORE
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidArgument('store must be a path or a URL, got %r.' % (spec,))
    kind = store_kind(spec)
    cls = _class('_stores.' + STORES[kind][0], STORES[kind][1])
    if kind in ('sqlite', 'json'):
        path = os.path.expanduser(spec)
        if base_dir and not os.path.isabs(path):
            path = os.path.join(base_dir, path)
        if os.path.isdir(path):
            name, example = FILE_KINDS[kind]
            directory = os.path.abspath(path)
            example = os.path.join(directory, example)
            raise StoreUnavailable('Cannot open the %s store %s: it is a directory, not a store file. Name a file in '
                                   'it, for example store: %s (or NETPOOL_IPAM_STORE=%s): the store is created there '
                                   'by the first change.' % (name, directory, example, example))
        exists = os.path.exists(path)
        # (a missing directory is its own error; an older SQLite file is migrated only by work that may change it)
        store = cls(path, timeout=timeout, create=create or exists, **({'migrate': create} if kind == 'sqlite' else {}))
        if must_exist and not exists:
            store.close()
            raise missing_store('%s store %s' % (FILE_KINDS[kind][0], os.path.abspath(path)))
    else:
        store = cls(spec, timeout=timeout, validate_certs=validate_certs, token=token, create=create,
                    **({'migrate': create} if kind == 'postgresql' else {}))
    store.use_free_space(_class(*FREE_SPACE[kind])(store))
    return store
