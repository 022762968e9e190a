# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The secrets of the store options, found and hidden in one place.

This is a private module: it may change at any time.

A secret is ``store_token`` and any password a ``store`` value carries: the
password of a URL's userinfo (``postgresql://user:PASSWORD@host/db``), a
``password=`` or ``sslpassword=`` query parameter, and the same keywords of a
libpq keyword connection string (``host=db password=PASSWORD``; such a value
is refused, and its password must not show in the refusal either). Both the
text as written and its percent-decoded form are secrets: a driver's message
may quote either.

- ``find(params)``: the secrets of a set of store options (validated or raw
  task arguments, the lookup's keywords).
- ``hide(value, secrets)``: ``value`` (a message, a result, history: strings,
  dicts and lists, recursively) with every secret replaced by ``MASK``.
- ``redact(store)``: the store value as messages name it, each password
  replaced by ``MASK`` and the rest kept.

Every place that echoes a store option, a driver's message or a result
(the runner, the adapters, the lookup, the stores) hides secrets with these.
"""

import re

from urllib.parse import unquote

MASK = '********'

#: where a store value carries a password: group 1 is what comes before it, group 2 the password
_PASSWORDS = (
    re.compile(r'(://[^/@:]*:)([^/@]*)@'),                                       # user:PASSWORD@ of a URL
    re.compile(r'([?&](?:ssl)?password=)([^&]*)'),                               # ?password=PASSWORD of a URL
    re.compile(r"((?:^|\s)(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s']+)"),  # password=PASSWORD of a DSN
)


def passwords(store):
    """The passwords the ``store`` value carries, each as written and percent-decoded (no duplicates)."""
    if not isinstance(store, str):
        return []
    found = []
    for pattern in _PASSWORDS:
        for match in pattern.finditer(store):
            written = match.group(2)
            if written.startswith("'") and written.endswith("'") and len(written) > 1:
                written = written[1:-1]
            for secret in (written, unquote(written), written.replace("\\'", "'").replace('\\\\', '\\')):
                if secret and secret not in found:
                    found.append(secret)
    return found


def find(params):
    """The secrets of the store options in ``params``: the passwords of ``store`` and ``store_token``."""
    found = passwords(params.get('store'))
    token = params.get('store_token')
    if token not in (None, '') and not isinstance(token, (dict, list, tuple)):
        token = str(token)
        if token not in found:
            found.append(token)
    return found


def hide(value, secrets):
    """``value`` with every string of ``secrets`` replaced by ``MASK``, in strings, dicts and lists."""
    if not secrets:
        return value
    if isinstance(value, str):
        # the longest first, so that a secret that holds another one is hidden whole
        for secret in sorted(secrets, key=len, reverse=True):
            value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return dict((k, hide(v, secrets)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [hide(v, secrets) for v in value]
    return value


def redact(store):
    """The ``store`` value as a message may show it: every password replaced by ``MASK``."""
    if not isinstance(store, str):
        return store
    for pattern in _PASSWORDS:
        store = pattern.sub(lambda m: m.group(1) + MASK + m.group(0)[len(m.group(1)) + len(m.group(2)):], store)
    return store
