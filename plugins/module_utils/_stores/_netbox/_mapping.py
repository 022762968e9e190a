# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How this collection's objects are kept in NetBox: the mapping of docs/stores.md, both ways.

This is a private module: it may change at any time. Pools are prefixes, what a subnet hands out is IP ranges,
reservations and rests are IP addresses (see ``_netbox``): the names NetBox is asked about (tag, custom fields,
GraphQL queries), and the conversions between NetBox's objects and ``_model``'s. No request is sent here.
"""

import binascii
import os
import re

from urllib.parse import quote

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool, Reservation


TAG = 'netpool'
#: custom fields this store keeps, created on first use: name -> (type, object types, extra settings)
FIELDS = {
    'netpool_pool': ('text', ['ipam.prefix', 'ipam.iprange', 'ipam.ipaddress'], {'filter_logic': 'exact'}),
    'netpool_claim': ('text', ['ipam.ipaddress'], {'filter_logic': 'exact', 'unique': True}),
    'netpool_owner': ('text', ['ipam.ipaddress'], {'filter_logic': 'exact'}),
    'netpool_expires': ('datetime', ['ipam.ipaddress'], {'filter_logic': 'exact'}),
    'netpool': ('json', ['ipam.prefix', 'ipam.ipaddress'], {'filter_logic': 'disabled'}),
}
PAGE = 1000
#: a reservation by its claim and its pool's prefixes, in one GraphQL request
READ_WITH_POOL = ' '.join('''
query ($claim: String!, $pool: String!) {
  a: ip_address_list(filters: {custom_field_data: {path: "netpool_claim", lookup: {string_lookup: {regex: $claim}}}}) {
    id address status custom_field_data vrf { id name } }
  p: prefix_list(filters: {custom_field_data: {path: "netpool_pool", lookup: {string_lookup: {exact: $pool}}}}) {
    id prefix custom_field_data vrf { id name } tags { slug } } }'''.split())
#: what a change of a pool's reservations reads, in one GraphQL request (``NetboxStore._read_for_change``): the
#: reservations of its claims, the prefixes of every pool (the pool's tree), the pool's IP ranges, and the IP
#: addresses whose netpool_expires is due (leases that ran out, rests that are over)
READ_FOR_CHANGE = ' '.join('''
query ($claims: String!, $pool: String!, $from: String!, $to: String!) {
  a: ip_address_list(filters: {custom_field_data: {path: "netpool_claim", lookup: {string_lookup: {regex: $claims}}}}) {
    id address status custom_field_data vrf { id name } }
  p: prefix_list(filters: {custom_field_data: {path: "netpool_pool", lookup: {string_lookup: {starts_with: ""}}}}) {
    id prefix custom_field_data vrf { id name } tags { slug } }
  r: ip_range_list(filters: {custom_field_data: {path: "netpool_pool", lookup: {string_lookup: {exact: $pool}}}}) {
    id start_address end_address custom_field_data vrf { id name } tags { slug } }
  d: ip_address_list(filters: {custom_field_data: {path: "netpool_expires", lookup: {datetime_lookup: {range: {
    start: $from, end: $to}}}}}) {
    id address status custom_field_data vrf { id name } } }'''.split())
#: how far past the wall clock ``expect`` reads what is due (the service's clock runs a moment later)
DUE_MARGIN = 300
#: the token of a history entry in a changelog message
TOKEN = re.compile(r'^[0-9a-f]{12}$')
#: the most addresses a NetBox IP range holds
RANGE_LIMIT = 2 ** 32 - 1
DNS_NAME = re.compile(r'^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}'
                      r'[A-Za-z0-9])?)*$')


#: what ends the claim of an IPv6 reservation (an owner and key hold one reservation of each family: ``family: dual``)
IPV6 = '/ipv6'


def claim(namespace, pool, owner, key, version=4):
    """The unique claim of a reservation: its identity, each part percent-encoded, joined by ``/``; an IPv6
    reservation's ends in ``/ipv6`` (``version`` 6). An IPv6 reservation made before 1.1.0 holds the claim without
    it: it is read as the IPv6 reservation of its owner and key all the same (its address says its family), and
    takes its ``/ipv6`` claim when it is written again, or when an IPv4 reservation of that owner and key is made
    (``Client.reclaim``)."""
    base = '/'.join(quote(part, safe='') for part in (namespace, pool, owner, key))
    return base + IPV6 if version == 6 else base


def claims_of(base):
    """The claims an owner and key's reservations may hold, from the claim ``base`` of its IPv4 one."""
    return (base, base + IPV6)


def claim_pattern(bases):
    """A regular expression matching every claim of the owners and keys of claims ``bases`` (``claims_of``)."""
    return '^(%s)(%s)?$' % ('|'.join(re.escape(c) for c in bases), re.escape(IPV6))


def netbox_time(stamp):
    """An ISO time of the service (``...Z``) as NetBox takes a datetime custom field."""
    return None if stamp is None else stamp.replace('Z', '+00:00')


def expiring(stamp):
    """List parameters selecting IP addresses whose ``netpool_expires`` is at or before ``stamp`` (NetBox's
    ``__lte`` alone also matches addresses without one)."""
    return {'cf_netpool_expires__lte': netbox_time(stamp), 'cf_netpool_expires__empty': 'false'}


def address_cidr(version, n, prefix_length):
    return '%s/%d' % (iv.to_str(version, n), prefix_length)


def address_of(address):
    """``(version, int)`` of a NetBox address ``a.b.c.d/len``."""
    parsed = iv.parse_address(address.split('/')[0])
    return parsed.version, int(parsed)


def held_by(custom_fields):
    """The pools a prefix holds, ``(name, entry)``, outermost first: the one its ``netpool_pool`` names, then the
    child pools as wide as it, in its ``netpool`` data's ``nested`` (NetBox keeps one prefix per cidr in a VRF).
    An entry is a pool's settings (``pool``), its subnet there (``subnet``), the subnet's place among the pool's
    (``index``) and how many subnets the pool has (``of``; data written before it: as many as read)."""
    data = custom_fields['netpool']
    found = [(custom_fields['netpool_pool'], data)]
    found += [(entry.get('name'), entry) for entry in data.get('nested') or [] if isinstance(entry, dict)]
    return found


def pools_of(namespace, prefixes, whole=True):
    """The pools the prefixes hold, by name. ``whole``: the prefixes are all of the namespace's; otherwise (those
    naming one pool) a pool some of whose subnets are nested in another pool's prefix is left out: the caller
    reads the namespace's."""
    by_pool = {}
    for p in prefixes:
        for name, entry in held_by(p['custom_fields']):
            by_pool.setdefault(name, []).append((entry, p['id']))
    pools = {}
    for name, group in by_pool.items():
        group.sort(key=lambda held: held[0].get('index', 0))
        if not whole and len(group) < max(entry.get('of', 0) for entry, _id in group):
            continue
        data = dict(group[0][0]['pool'], namespace=namespace, name=name,
                    subnets=[entry['subnet'] for entry, _id in group])
        pool = Pool.from_data(data)
        pool.prefix_ids = dict((s.cidr, ident) for s, (_entry, ident) in zip(pool.subnets, group))
        pools[name] = pool
    return pools


def pool_entry(pool, index):
    """What a prefix holds of ``pool``, whose subnet ``index`` it is (see ``held_by``)."""
    settings = pool.to_data()
    for k in ('namespace', 'name', 'subnets'):
        settings.pop(k)
    return {'pool': settings, 'subnet': pool.subnets[index].to_data(), 'index': index, 'of': len(pool.subnets)}


def prefix_body(holders):
    """The prefix of one cidr held by ``holders``, ``(pool, index)`` outermost first: named for the first, the
    others nested in its data (its VRF and changelog message are added when it is sent)."""
    pool, index = holders[0]
    data = pool_entry(pool, index)
    if len(holders) > 1:
        data['nested'] = [dict(pool_entry(p, i), name=p.name) for p, i in holders[1:]]
    names = ', '.join(p.name for p, _i in holders)
    return {'prefix': pool.subnets[index].cidr, 'status': 'active', 'tags': [{'slug': TAG}],
            'description': ('netpool %s/%s %s' % (pool.namespace, names, pool.description or ''))[:200],
            'custom_fields': {'netpool_pool': pool.name, 'netpool': data}}


def reservation_of(namespace, obj):
    cf = obj['custom_fields'] or {}
    data = cf.get('netpool') or {}
    version, n = address_of(obj['address'])
    r = Reservation(namespace, cf['netpool_pool'], cf['netpool_owner'], data.get('key'), version, n,
                    static=bool(data.get('static')), metadata=data.get('metadata'),
                    created_at=data.get('created_at'), updated_at=data.get('updated_at'),
                    expires_at=data.get('expires_at'))
    r.netbox_id = obj.get('id')
    return r


def ours(obj):
    """True for an IP address that is a reservation of this collection (active, with a claim)."""
    claimed = (obj.get('custom_fields') or {}).get('netpool_claim')
    return obj.get('status', {}).get('value') == 'active' and bool(claimed)


def claim_body(r, message):
    """What an IP address holding reservation ``r`` carries, but for its address and VRF."""
    data = {'key': r.key, 'static': r.static, 'metadata': r.metadata, 'created_at': r.created_at,
            'updated_at': r.updated_at, 'expires_at': r.expires_at}
    return {'status': 'active', 'tags': [{'slug': TAG}],
            'dns_name': r.owner if DNS_NAME.match(r.owner) else '',
            'description': ('netpool %s/%s %s/%s' % (r.namespace, r.pool, r.owner, r.key))[:200],
            'custom_fields': {'netpool_claim': claim(*r.ident), 'netpool_pool': r.pool, 'netpool_owner': r.owner,
                              'netpool_expires': netbox_time(r.expires_at), 'netpool': data},
            'changelog_message': message}


def unclaimed_body(obj, message):
    """What puts an IP address this collection claimed (``NetboxStore.adopt_reservation``) back as it was before:
    its status, tags, DNS name and description, and no claim."""
    return {'status': (obj.get('status') or {}).get('value') or 'active',
            'tags': [{'slug': t['slug']} for t in obj.get('tags') or []], 'dns_name': obj.get('dns_name') or '',
            'description': obj.get('description') or '', 'address': obj['address'],
            'custom_fields': dict((name, None) for name in ('netpool_claim', 'netpool_pool', 'netpool_owner',
                                                            'netpool_expires', 'netpool')),
            'changelog_message': message}


def changelog_message(entry):
    """The changelog message of the writes made for a history entry: ``netpool:``, a token of its own, then
    what it names (each word percent-encoded). NetBox keeps 200 characters: the words cut off are read back
    from the objects' own data."""
    words = [entry['object'], entry['action'], entry['namespace'], entry['pool'] or '-']
    if entry.get('owner') is not None:
        words += [entry['owner'], entry['key'], entry.get('address') or '-']
        if entry['action'] == 'reassign':
            words += [(entry.get('new') or {}).get(k) or '-' for k in ('owner', 'key', 'pool')]
    text = 'netpool: %s %s' % (binascii.hexlify(os.urandom(6)).decode(), ' '.join(quote(w, safe='') for w in words))
    # the pool an aligned write follows (_align), or where an adopted address was read (_adopt): a word read back
    # whole, or not written at all
    extra = (entry.get('new') or {}).get('source' if entry['action'] == 'adopt' else 'align_with') \
        if entry['action'] != 'reassign' else None
    if extra and entry.get('owner') is not None and len(text) + 1 + len(quote(extra, safe='')) <= 200:
        text += ' ' + quote(extra, safe='')
    return text[:200]


def pool_data(namespace, name, snapshots):
    """A pool's data from change log snapshots of the prefixes changed for it, or None if none held it."""
    held = []
    for d in snapshots:
        cf = (d or {}).get('custom_fields') or {}
        if isinstance(cf.get('netpool'), dict) and cf.get('netpool_pool') is not None:
            held += [entry for n, entry in held_by(cf) if n == name]
    if not held:
        return None
    held.sort(key=lambda entry: entry.get('index', 0))
    return dict(held[0].get('pool') or {}, namespace=namespace, name=name, subnets=[e.get('subnet') for e in held])


def rest_shape(obj):
    """An object read through GraphQL in the shape the REST API gives it (what this store reads)."""
    found = dict(obj, id=int(obj['id']), custom_fields=obj.get('custom_field_data') or {})
    if 'status' in obj:
        found['status'] = {'value': obj['status']}
    if 'tags' in obj:
        found['tags'] = [t['slug'] for t in obj.get('tags') or []]
    if found.get('vrf'):
        found['vrf'] = dict(found['vrf'], id=int(found['vrf']['id']))
    return found
