# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A store's whole contents as one document, and back: moving between stores, comparing stores.

This is a private module: it may change at any time. ``export_document`` reads
everything through the store interface (pools, their free spans and resting
addresses from the store's free-space component, reservations with their
timestamps and metadata, history);
``import_document`` writes such a document into another store in one
transaction, so any store can move to any other. Free spans are exported
to be seen and compared, but derived state is never trusted: an import
rebuilds them from the subnets, reservations and resting addresses.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, StoreVersion
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool, Reservation
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import SCHEMA_VERSION


def _read(store):
    pools, free = [], store.free_space()
    for pool in store.list_pools():
        data = pool.to_data()
        data['free'] = [iv.format_span(*s) for s in free.spans(pool)]
        data['released'] = [{'address': iv.to_str(v, n), 'until': until} for v, n, until in free.resting(pool)]
        pools.append(data)
    history = []
    for entry in store.find_history():
        entry = dict(entry)
        entry.pop('id', None)
        history.append(entry)
    return {
        'schema_version': SCHEMA_VERSION,
        'pools': pools,
        'reservations': [r.to_data() for r in store.find_reservations()],
        'history': history,
    }


def export_document(store):
    """Everything the store holds, as one JSON-able document."""
    with store.transaction(write=False):
        return _read(store)


def is_empty(document):
    return not (document['pools'] or document['reservations'] or document['history'])


def import_document(store, document, replace=False, check=False):
    """Write ``document`` into ``store``. A store that holds anything is refused unless ``replace``."""
    if not isinstance(document, dict) or not isinstance(document.get('schema_version'), int):
        raise InvalidArgument('The document to import is not a netpool.ipam export (no integer schema_version).')
    if document['schema_version'] > SCHEMA_VERSION:
        raise StoreVersion('The document to import has schema version %d, newer than this netpool.ipam understands '
                           '(%d). Upgrade the collection.' % (document['schema_version'], SCHEMA_VERSION))
    with store.transaction(commit=not check):
        # keep every writer of the namespaces involved out (a shared store may have several)
        namespaces = set(p.namespace for p in store.list_pools())
        namespaces.update(p.get('namespace', 'default') for p in document.get('pools', []))
        for namespace in sorted(namespaces):
            store.lock_namespace(namespace)
        current = _read(store)
        if not is_empty(current) and not replace:
            raise InvalidArgument('The target store already holds %d pool(s) and %d reservation(s). Import into an '
                                  'empty store, or set replace to overwrite it.'
                                  % (len(current['pools']), len(current['reservations'])))
        for r in store.find_reservations():
            store.delete_reservation(r)
        for pool in store.list_pools():
            store.delete_pool(pool.namespace, pool.name)
        store.clear_history()
        pools, free = [], store.free_space()
        for data in document['pools']:
            data = dict(data)
            data.pop('free', None)      # derived: rebuilt below, never taken from the document
            released = data.pop('released', [])
            pool = Pool.from_data(data)
            store.delete_pool(pool.namespace, pool.name)    # what a deleted pool of that name left resting
            store.save_pool(pool)
            pools.append(pool)
            for entry in released:
                version, n, _last = iv.parse_range(entry['address'])
                free.give_back(pool, version, n, entry['until'])     # resting until then
        for data in document['reservations']:
            store.save_reservation(Reservation.from_data(data))
        for pool in pools:
            free.rebuild(pool)
        for entry in document['history']:
            store.add_history(entry)
        return {'changed': current != _read(store), 'before': current}
