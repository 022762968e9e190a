# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the reads of one provider process see: the reservations of a namespace, read from the store once.

Terraform refreshes a state by asking the provider to read each resource (ReadResource, ten at once), in a
provider process that lives for one command. Read one by one, a plan with nothing to do costs a store transaction
per reservation: a thousand round trips to PostgreSQL or NetBox. Instead the first read of a reservation in a
namespace reads every reservation of that namespace in one read transaction (``Service.reservations``: the pools,
then the reservations, whatever their number) and the process answers that read and the later ones from it, as
one picture of the store taken at the first read (a refresh of one resource at a time would be no truer: each
read would be its own moment).

A write of this process (a create, an update, a delete) forgets the picture: a read after it reads the store
again. Pools are read one by one, as before (a state holds few), and so is every data source (a data source asks
for what the store holds now).
"""

import threading


class Snapshot(object):
    """The reservations of each namespace read so far by this process, until it writes."""

    def __init__(self):
        self._lock = threading.Lock()
        self._namespaces = {}

    def forget(self):
        """A write of this process: the next read reads the store again."""
        with self._lock:
            self._namespaces = {}

    def reservations(self, namespace, load):
        """``{(pool, owner, key): [reservation dicts, IPv4 first]}`` of ``namespace``; ``load()`` reads them (the
        result of ``Service.reservations``, or None when the store failed, which is returned as None and not
        kept). Reads of the same namespace wait for the one that loads it."""
        with self._lock:
            found = self._namespaces.get(namespace)
            if found is None:
                listed = load()
                if listed is None:
                    return None
                found = {}
                for r in listed['reservations']:        # sorted by pool, key, then family: IPv4 first
                    found.setdefault((r['pool'], r['owner'], r['key']), []).append(r)
                self._namespaces[namespace] = found
            return found


def held(found, family):
    """``(reservation, IPv6 reservation)`` of one owner's ``found`` (``Snapshot.reservations``), as ``get`` reads
    them from the store: the one of ``family`` (``ipv4``, ``ipv6``; None: the first, IPv4 before IPv6), or for
    ``dual`` both (``(None, None)`` unless it holds both)."""
    by_family = dict(('ipv6' if ':' in r['address'] else 'ipv4', r) for r in reversed(found))
    if family == 'dual':
        pair = (by_family.get('ipv4'), by_family.get('ipv6'))
        return pair if None not in pair else (None, None)
    if family is None:
        return (found[0] if found else None), None
    return by_family.get(family), None
