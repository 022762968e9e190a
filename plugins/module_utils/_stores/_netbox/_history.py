# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The NetBox store's history: NetBox's own change log, read back as history entries.

This is a private module: it may change at any time. Every change the store makes carries a changelog message
``netpool: <token> <object> <action> ...`` (``_mapping.changelog_message``); ``find_history`` groups the changes
by that token and reads what they name from the message, ``old`` and ``new`` from NetBox's snapshots, leaving
out what an undo message took back. ``commit_landed`` asks the change log whether a write whose answer was lost
was kept. ``NetboxHistory`` is a part of ``_store.NetboxStore``; it asks NetBox through the store's ``client``.
"""

from urllib.parse import quote, unquote

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import Unsupported
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._mapping import (
    TOKEN, changelog_message, pool_data, reservation_of)


class NetboxHistory(object):
    """The history part of ``_store.NetboxStore``: what its transactions wrote, read from NetBox's change log."""

    def commit_landed(self, evidence):
        """Whether the writes of a transaction that NetBox went away from are in NetBox (``_retry``): those it
        answered and were not undone (``kept``), or the write whose answer was lost, found in NetBox's change log by
        the history token of its changelog message (one request: NetBox applies a request whole, a bulk allocation
        of many reservations too, or not at all)."""
        if evidence['kept']:
            return True
        if not evidence['tokens']:
            return False
        token = evidence['tokens'][0]
        found = self.client.get('/core/object-changes/', {'q': token, 'limit': 10})['results']
        return any((c.get('message') or '').startswith('netpool: %s ' % token) for c in found)

    def add_history(self, entry):
        """NetBox keeps the history: the writes made for this entry carry it in their changelog message."""
        message = changelog_message(entry)
        for kept in self.client.tx.unnamed:
            kept[1] = message
        self.client.tx.unnamed = []
        self.client.tx.history.append(dict(entry))

    def find_history(self, namespace=None, pool=None, owner=None, address=None):
        """The changes this collection made, from NetBox's change log, oldest first, then those of the transaction
        under way (not sent yet: a lease that ran out in this task, for the returning owner).

        An owner's history in a pool, or an address's, asks NetBox for the messages that name them (the words
        ``namespace pool owner``, or the address, in that order in every message: ``changelog_message``), and for
        the undo messages apart, so that the question does not read the whole change log."""
        if owner is not None and namespace is not None and pool is not None:
            searches = [' %s ' % ' '.join(quote(w, safe='') for w in (namespace, pool, owner)), 'netpool: undo']
        elif address is not None:
            searches = [' %s' % quote(address, safe=''), 'netpool: undo']
        else:
            searches = ['netpool:']
        changes = {}
        for q in searches:
            for change in self.client.all('/core/object-changes/', {'q': q, 'ordering': 'time'}):
                changes[change['id']] = change
        entries = self._entries(sorted(changes.values(), key=lambda c: (c['time'], c['id'])), namespace, pool,
                                owner, address)
        tx = self.client.tx
        for entry in (tx.history if tx is not None else ()):
            if all(want is None or want == entry.get(k) for k, want in (
                    ('namespace', namespace), ('pool', pool), ('owner', owner), ('address', address))):
                entries.append(dict(entry))
        return entries

    def _entries(self, changes, namespace, pool, owner, address):
        """The history entries that ``changes`` (of the change log, oldest first) make, those filtered."""
        groups, undone = {}, set()     # token of a history entry -> the changes made for it, in order
        for change in changes:
            words = (change.get('message') or '').split(' ')
            if words[:2] == ['netpool:', 'undo']:
                undone.update(words[2:])            # what a task that failed made, and deleted again
            elif len(words) > 5 and words[0] == 'netpool:' and TOKEN.match(words[1]):
                groups.setdefault(words[1], []).append(change)
        entries = []
        for changes in sorted((g for token, g in groups.items() if token not in undone),
                              key=lambda group: (group[0]['time'], group[0]['id'])):
            entry = self._entry(changes)
            if all(want is None or want == entry[k] for k, want in (
                    ('namespace', namespace), ('pool', pool), ('owner', owner), ('address', address))):
                entries.append(entry)
        return entries

    def _entry(self, changes):
        """The history entry that the changes carrying one message made: what it names, from the message;
        ``old`` and ``new``, from what NetBox recorded before and after them."""
        words = [unquote(w) for w in changes[0]['message'].split(' ')[2:]]
        words += [None] * (10 - len(words))
        obj, action, namespace, pool = words[:4]
        entry = {'time': changes[0]['time'][:19] + 'Z', 'namespace': namespace, 'pool': pool, 'object': obj,
                 'action': action, 'owner': words[4], 'key': words[5], 'address': words[6], 'old': None, 'new': None}
        if obj == 'reservation':
            held = [(self._snapshot(namespace, c.get('prechange_data')), self._snapshot(namespace, c.get('postchange_data')))
                    for c in changes if c['changed_object_type'] == 'ipam.ipaddress']
            before = [old for old, _new in held if old is not None]
            after = [new for _old, new in held if new is not None]
            entry['old'] = before[0].to_data() if before else None
            entry['new'] = after[-1].to_data() if after else None
            if action == 'reassign':
                entry['new'] = {'owner': words[7], 'key': words[8], 'pool': words[9]}
            elif words[7] is not None and entry['new'] is not None:     # an aligned write, or an adoption's source
                entry['new']['source' if action == 'adopt' else 'align_with'] = words[7]    # (changelog_message)
            if entry['address'] == '-':
                entry['address'] = (after or before)[-1].address_str if after or before else None
        else:
            prefixes = [c for c in changes if c['changed_object_type'] == 'ipam.prefix']
            entry['old'] = pool_data(namespace, pool, [c.get('prechange_data') for c in prefixes])
            entry['new'] = pool_data(namespace, pool, [c.get('postchange_data') for c in prefixes])
        return entry

    def _snapshot(self, namespace, data):
        """The reservation an IP address held in a change log snapshot, or None."""
        if not data or not (data.get('custom_fields') or {}).get('netpool_claim'):
            return None
        return reservation_of(namespace, data)

    def clear_history(self):
        raise Unsupported("NetBox keeps its change log itself: the NetBox store cannot replace a whole state's "
                          "history. Import into a SQLite, JSON or PostgreSQL store instead.")
