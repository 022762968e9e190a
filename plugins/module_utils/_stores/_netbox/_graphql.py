# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The NetBox store's reads ahead: what a task reads next, fetched in one GraphQL request.

This is a private module: it may change at any time. A change of reservations reads its claims, the namespace's
pools, the pool's IP ranges and what is due at once (``_read_for_change``, ``_mapping.READ_FOR_CHANGE``); a read
of one reservation reads its pool with it (``_read_with_pool``, ``_mapping.READ_WITH_POOL``). What they read is
kept in the transaction (``_client.Transaction``), where the store's own reads find it. Where NetBox's GraphQL
API is off or not allowed, nothing is read ahead and the REST API reads each when asked for.
``GraphqlReads`` is a part of ``_store.NetboxStore``; it asks NetBox through the store's ``client``.
"""

import json
import time

from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreUnavailable
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._client import holding
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._mapping import (
    DUE_MARGIN, READ_FOR_CHANGE, READ_WITH_POOL, TAG, claim, claim_pattern, netbox_time, pools_of, rest_shape)


class GraphqlReads(object):
    """The reads ahead of ``_store.NetboxStore``, one GraphQL request each (a pool nested in another's prefix is
    found by the store's ``_listed``)."""

    def _read_for_change(self, namespace, pool, owners, key):
        """Read at once, in one GraphQL request, what a change of ``owners``' reservations in ``pool`` reads next:
        their claims, the namespace's pools, the pool's IP ranges and what is due in the namespace (see
        ``READ_FOR_CHANGE``). Where GraphQL cannot be used, each is read by the REST API when asked for."""
        tx = self.client.tx
        if tx is None or not self.client.graphql:
            return
        claims = [claim(namespace, pool, owner, key) for owner in owners]
        bound = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(int(time.time()) + DUE_MARGIN))
        # every claim in one question: a regular expression (NetBox allows 10 aliases a query, and its ``in_``
        # lookup of a JSON field matches no string)
        data = self.client.ask(READ_FOR_CHANGE, {
            'claims': claim_pattern(claims), 'pool': pool,
            'from': '1970-01-01T00:00:00+00:00', 'to': netbox_time(bound)})
        if data is None:
            return
        here = self._here(namespace)
        held = [o for o in (rest_shape(o) for o in data['a'] or []) if here(o)]
        for wanted in claims:
            tx.claims[wanted] = holding(held, wanted)
        prefixes = [p for p in (rest_shape(p) for p in data['p'] or []) if here(p) and TAG in p['tags']
                    and isinstance(p['custom_fields'].get('netpool'), dict)]
        tx.listed[namespace] = pools_of(namespace, prefixes)
        tx.ranges[(namespace, pool)] = [r for r in (rest_shape(r) for r in data['r'] or []) if here(r)
                                        and TAG in r['tags']]
        tx.read[namespace] = (bound, [o for o in (rest_shape(o) for o in data['d'] or []) if here(o)])
        vrfs = set((o['vrf'] or {}).get('id') for o in held + prefixes if o.get('vrf'))
        if namespace != 'default' and len(vrfs) == 1:
            self.client.vrfs.setdefault(namespace, int(vrfs.pop()))

    def _here(self, namespace):
        """Whether an object read through GraphQL is in the namespace's VRF."""
        global_table = namespace == 'default'

        def here(obj):
            vrf = obj.get('vrf')
            return vrf is None if global_table else vrf is not None and vrf.get('name') == namespace
        return here

    def _read_with_pool(self, ident):
        """Read a reservation and its pool in one request (NetBox's GraphQL API, a GET): a rerun that changes
        nothing then costs one request. Where GraphQL is off, the REST API reads them in two."""
        namespace, pool = ident[:2]
        wanted = claim(*ident)
        try:
            data = self.client.get(self.client.graphql, {'query': READ_WITH_POOL, 'variables': json.dumps(
                {'claim': claim_pattern([wanted]), 'pool': pool})})
        except StoreUnavailable as e:
            if _retry.kind_of(e) is not None:
                raise       # NetBox is away, not its GraphQL API
            data = None     # GraphQL turned off, or not allowed: the REST API says what is wrong, if anything
        if not isinstance(data, dict) or data.get('errors') or not isinstance(data.get('data'), dict):
            self.client.graphql = None
            return
        global_table = namespace == 'default'

        def here(obj):
            vrf = obj.get('vrf')
            return vrf is None if global_table else vrf is not None and vrf.get('name') == namespace

        held = [dict(o, id=int(o['id']), status={'value': o['status']}, custom_fields=o.get('custom_field_data') or {})
                for o in data['data']['a'] or []]
        self.client.tx.claims[wanted] = holding(held, wanted)
        prefixes = [dict(p, id=int(p['id']), custom_fields=p.get('custom_field_data') or {})
                    for p in data['data']['p'] or [] if here(p) and TAG in [t['slug'] for t in p.get('tags') or []]]
        prefixes = [p for p in prefixes if p['custom_fields'].get('netpool_pool') == pool
                    and isinstance(p['custom_fields'].get('netpool'), dict)]
        found = pools_of(namespace, prefixes, whole=False).get(pool)
        if found is None:   # a pool nested in another's prefix (or none): the namespace's prefixes say
            found = self._listed(namespace).get(pool)
        self.client.tx.pools[(namespace, pool)] = found
