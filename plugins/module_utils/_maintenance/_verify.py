# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A store checked against the invariants every store keeps (``info`` with ``verify: true``).

This is a private module: it may change at any time.

``verify`` is ``Service.verify``: one transaction that finds the problems and,
with ``repair``, rebuilds what is derived. The other functions only read the store
interface, inside that transaction. ``problems`` returns one dict per violation found in a namespace, each with the objects
involved and a ``code`` per kind of problem:

- ``duplicate_holder``: one address held by more than one reservation of the namespace;
- ``reservation_pool_missing``: a reservation of a pool that does not exist;
- ``reservation_outside_pool``: a reservation outside every subnet of its pool;
- ``free_span_overlap``: two stored free spans of a pool share addresses;
- ``free_span_outside_pool``: a stored free span not inside one subnet of its pool;
- ``free_space_mismatch``: the addresses a pool's stored free spans cover are not the derived ones
  (``_space._derive.expected``: allocatable, less what an ancestor withholds (``_tree``), less held in the
  namespace, less resting in any pool of it);
- ``unmanaged_address``: an address the store holds where a pool hands out that this collection does not hold
  (``FreeSpace.unmanaged``: an IP address made by hand in NetBox, or by another tool). It is not handed out, and
  the free-space check leaves it aside: it is not a mismatch that a rebuild could fix, but an address to adopt or
  delete;
- ``parent_missing``: a child pool whose parent does not exist;
- ``child_outside_parent``: a subnet of a child pool (a range of a child by ranges) not inside a subnet of its
  parent (the ranges of a parent by ranges);
- ``pool_overlap``: subnets of two pools of the namespace (ranges of a child by ranges) overlap and neither pool
  descends from the other;
- ``alignment_mismatch``: a reservation aligned with another pool (``align_with``, ``_align``) that no longer sits
  at its aligned address: the owner's reservation there moved or was released (a rerun of its task realigns it);
- ``damaged_row`` (``damaged_free_span`` for a free span): a stored row that cannot be read (a SQL store
  edited by hand or damaged). While a pool, reservation or resting-address row of the namespace is damaged,
  only the damaged rows are reported (the rest cannot be read); a damaged free span skips its pool's
  free-space checks.

The ``free_*`` codes and ``damaged_free_span`` (``REPAIRABLE``) are derived state: rebuilding the pool's free
spans fixes them. Every other code needs a human decision, which its ``message`` describes.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._space import _hostpart
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import AddressOutOfPool, DamagedRow
from ansible_collections.netpool.ipam.plugins.module_utils._space import _derive
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import Tree, footprint, within


DUPLICATE_HOLDER = 'duplicate_holder'
POOL_MISSING = 'reservation_pool_missing'
OUTSIDE_POOL = 'reservation_outside_pool'
FREE_OVERLAP = 'free_span_overlap'
FREE_OUTSIDE = 'free_span_outside_pool'
FREE_MISMATCH = 'free_space_mismatch'
PARENT_MISSING = 'parent_missing'
CHILD_OUTSIDE = 'child_outside_parent'
POOL_OVERLAP = 'pool_overlap'
DAMAGED_ROW = 'damaged_row'
DAMAGED_FREE = 'damaged_free_span'
ALIGNMENT_MISMATCH = 'alignment_mismatch'
UNMANAGED = 'unmanaged_address'

#: what ``repair`` fixes by rebuilding the pool's free spans (derived state: no human decision needed)
REPAIRABLE = frozenset((FREE_OVERLAP, FREE_OUTSIDE, FREE_MISMATCH, DAMAGED_FREE))

_RERUN = ' Then run netpool.ipam.info with verify: true again.'

#: the history actions after which a reservation is gone, its alignment with it (``_misaligned``)
_UNALIGNED = ('release', 'expire', 'reassign')


def problem(code, namespace, message, pools=(), reservations=(), addresses=()):
    """One violation: ``pools`` (names), ``reservations`` (their stored data) and ``addresses`` (addresses,
    ``first-last`` spans or CIDRs) are the objects involved."""
    return {
        'code': code,
        'namespace': namespace,
        'pools': list(pools),
        'reservations': [r.to_data() for r in reservations],
        'addresses': list(addresses),
        'message': message,
        'repairable': code in REPAIRABLE,
        'repaired': False,
    }


def verify(store, namespace, repair, check, history):
    """The store checked against the invariants every store keeps: one namespace, or every namespace with None.
    Without ``repair`` nothing is written. ``repair`` rebuilds the free spans of every pool whose free space
    is wrong (derived state: the only problems that need no human decision) in one transaction, recorded in
    history (``pool`` / ``repair``, through ``history``, the service's); with ``check`` it reports what it
    would repair and writes nothing. Returns ``{'changed': bool, 'problems': [...], 'repaired': [...]}``:
    every problem found (``repaired`` true for those repair fixed) and, per pool rebuilt, its free spans
    before and after."""
    with store.transaction(write=bool(repair), commit=bool(repair) and not check):
        names = [namespace] if namespace is not None else namespaces(store)
        if repair:      # no pool of a namespace being repaired changes meanwhile
            for ns in names:
                store.lock_namespace(ns)
        found = []
        for ns in names:
            found += problems(store, ns)
        repaired = _repair(store, found, history) if repair else []
        return {'changed': bool(repaired), 'problems': found, 'repaired': repaired}


def _repair(store, found, history):
    """Rebuild the free spans of each pool that ``found`` (problems) finds wrong; mark the problems it fixed."""
    broken = {}
    for p in found:
        if p['repairable']:
            broken.setdefault((p['namespace'], p['pools'][0]), []).append(p)
    repaired = []
    for (ns, name), wrong in sorted(broken.items()):
        pool, free = store.get_pool(ns, name), store.free_space()
        try:
            before = [iv.format_span(*s) for s in free.spans(pool)]
        except DamagedRow:          # a damaged free span: derived, rebuilt like any other
            before = None
        free.rebuild(pool)
        after = [iv.format_span(*s) for s in free.spans(pool)]
        left = set(p['code'] for p in free_problems(store, pool))
        for p in wrong:
            p['repaired'] = p['code'] not in left
        if before == after and not any(p['repaired'] for p in wrong):
            for p in wrong:     # never "repair: true rebuilds" again what a rebuild leaves as it was
                p['repairable'] = False
                p['message'] = p['message'].split(' repair: true')[0] + (
                    ' A rebuild of the free spans (repair: true) leaves them as they are: what differs is not in them. '
                    'Look at what the pool derives from (its subnets, reservations, resting addresses).')
            continue
        codes = sorted(set(p['code'] for p in wrong))
        history('pool', 'repair', ns, name, old={'free': before, 'problems': codes}, new={'free': after})
        repaired.append({'namespace': ns, 'pool': name, 'problems': codes, 'free_before': before,
                         'free_after': after})
    return repaired


def namespaces(store):
    """Every namespace that holds a pool or a reservation, sorted."""
    return store.namespaces()


def damaged(store, namespace):
    """The rows of ``namespace`` its store cannot read (``Store.damaged_rows``), as problems."""
    found = []
    for row in store.damaged_rows(namespace):
        if row['table'] == 'free_span':
            found.append(problem(
                DAMAGED_FREE, namespace,
                "The stored free spans of pool '%s' hold a damaged row (%s): %s. Free spans are derived: repair: "
                "true rebuilds the pool's free spans." % (row['pool'], row['row'], row['error']),
                pools=[row['pool']]))
        else:
            found.append(problem(
                DAMAGED_ROW, namespace,
                "A stored row of pool '%s' cannot be read (%s): %s. Restore the store from a backup, or correct or "
                "delete the row by hand (a deleted reservation is made again by its task, a deleted pool by its "
                "netpool.ipam.pool task). The other checks of namespace '%s' run once it can be read."
                % (row['pool'], row['row'], row['error'], namespace) + _RERUN,
                pools=[row['pool']]))
    return found


def problems(store, namespace):
    """The violations of those invariants in ``namespace``."""
    broken = damaged(store, namespace)
    if any(p['code'] == DAMAGED_ROW for p in broken):
        return broken
    skip = set(p['pools'][0] for p in broken)       # a pool whose free spans cannot be read
    return broken + _problems(store, namespace, skip)


def _problems(store, namespace, skip=()):
    pools = store.list_pools(namespace)
    by_name = dict((p.name, p) for p in pools)
    reservations = store.find_reservations(namespace)
    found = _duplicates(namespace, reservations)
    found += _outside(namespace, reservations, by_name)
    for pool in pools:
        found += free_problems(store, pool) if pool.name not in skip else []
    tree = Tree(pools)
    found += _families(namespace, pools, tree)
    found += _overlaps(namespace, pools, tree)
    found += _misaligned(store, namespace, reservations, by_name)
    return found


def _who(r):
    return "pool '%s' owner '%s' key '%s'" % (r.pool, r.owner, r.key)


def _duplicates(namespace, reservations):
    holders = {}
    for r in reservations:
        holders.setdefault((r.version, r.address), []).append(r)
    found = []
    for (_version, _n), held in sorted(holders.items()):
        if len(held) > 1:
            address = held[0].address_str
            found.append(problem(
                DUPLICATE_HOLDER, namespace,
                "%s is held by %d reservations in namespace '%s': %s. An address has one holder: decide which keeps "
                "it and release the others (netpool.ipam.reservation with pool, owner, key and state: absent); a "
                "released one gets a new address when its task runs again." % (
                    address, len(held), namespace, '; '.join(_who(r) for r in held)) + _RERUN,
                pools=sorted(set(r.pool for r in held)), reservations=held, addresses=[address]))
    return found


def _outside(namespace, reservations, by_name):
    found = []
    for r in reservations:
        pool = by_name.get(r.pool)
        if pool is None:
            found.append(problem(
                POOL_MISSING, namespace,
                "The reservation of owner '%s' key '%s' holds %s in pool '%s', which does not exist in namespace "
                "'%s'. Create the pool again with a subnet around %s, or release the reservation "
                "(netpool.ipam.reservation with pool, owner, key and state: absent)."
                % (r.owner, r.key, r.address_str, r.pool, namespace, r.address_str) + _RERUN,
                pools=[r.pool], reservations=[r], addresses=[r.address_str]))
        elif pool.subnet_of(r.version, r.address) is None:
            found.append(problem(
                OUTSIDE_POOL, namespace,
                "The reservation of owner '%s' key '%s' holds %s, outside every subnet of its pool '%s' (%s). "
                "Decide which is right: release the reservation (netpool.ipam.reservation with state: absent), or "
                "give the pool a subnet that covers %s (netpool.ipam.pool)."
                % (r.owner, r.key, r.address_str, pool.name, ', '.join(s.cidr for s in pool.subnets) or 'none',
                   r.address_str) + _RERUN,
                pools=[pool.name], reservations=[r], addresses=[r.address_str]))
    return found


def _misaligned(store, namespace, reservations, by_name):
    """The ``alignment_mismatch`` problems of ``namespace``: each reservation whose last write aligned it (its
    history entry's ``new`` data carries ``align_with``) and that no longer sits at its aligned address. One read
    of the namespace's history."""
    aligned = {}
    for entry in store.find_history(namespace=namespace):
        if entry.get('object') != 'reservation' or not entry.get('address'):
            continue
        try:
            version = iv.parse_address(entry['address']).version
        except (ValueError, TypeError):
            continue
        ident = (entry.get('pool'), entry.get('owner'), entry.get('key'), version)
        new = entry.get('new') if entry.get('action') not in _UNALIGNED else None
        aligned[ident] = new.get('align_with') if isinstance(new, dict) else None
    by_owner = {}
    for r in reservations:
        by_owner.setdefault((r.pool, r.owner, r.key, r.version), r)
    found = []
    for r in reservations:
        align_with = aligned.get((r.pool, r.owner, r.key, r.version))
        pool = by_name.get(r.pool)
        if not align_with or pool is None:
            continue
        source_pool, source = by_name.get(align_with), by_owner.get((align_with, r.owner, r.key, r.version))
        what = None
        if source_pool is None or source is None:
            what = "holds no %s address under key '%s' in pool '%s'" % (_hostpart.family_name(r.version), r.key, align_with)
        else:
            try:
                aligned_address = _hostpart.place(pool, source_pool, source)
            except AddressOutOfPool as e:
                what = 'has no aligned address here: %s' % e.msg
            else:
                if aligned_address != (r.version, r.address):
                    what = 'holds %s there, whose aligned address is %s' % (source.address_str,
                                                                            iv.to_str(*aligned_address))
        if what is None:
            continue
        found.append(problem(
            ALIGNMENT_MISMATCH, namespace,
            "The reservation of owner '%s' key '%s' holds %s in pool '%s', aligned with pool '%s', where the owner "
            "now %s. Run the task that aligned it again (netpool.ipam.reservation with align_with: %s, or the "
            "reserve role with ipam_align_with) to realign it, or reserve it there again. Then run "
            "netpool.ipam.info with verify: true again."
            % (r.owner, r.key, r.address_str, r.pool, align_with, what, align_with),
            pools=[r.pool, align_with], reservations=[r], addresses=[r.address_str]))
    return found


def _spans_text(spans):
    return [iv.format_span(v, a, b) for v, a, b in spans]


def _by_version(spans):
    result = {}
    for v, a, b in spans:
        result.setdefault(v, []).append((a, b))
    return dict((v, iv.merge(s)) for v, s in result.items())


def _difference(a, b):
    """The ``(version, first, last)`` spans of ``a`` not in ``b`` (both as ``_by_version`` gives them)."""
    return [(v, x, y) for v in sorted(a) for x, y in iv.subtract(a[v], b.get(v, []))]


def free_problems(store, pool):
    """The free-space violations of one pool: the free spans its store's free-space component keeps
    (``free_space().spans``) against the derived ones (``_space._derive.expected``)."""
    ns, name = pool.namespace, pool.name
    free = store.free_space()
    stored = sorted(free.spans(pool))
    unmanaged = free.unmanaged(pool)
    expected = _less(_derive.expected(store, pool), unmanaged)     # not a mismatch: not ours (``_unmanaged``)
    found = _unmanaged(pool, unmanaged)
    overlapping, reach = [], None       # reach: (version, last, span) of the span reaching furthest so far
    for span in stored:
        v, first, last = span
        if reach is not None and reach[0] == v and first <= reach[1]:
            overlapping.append((reach[2], span))
        if reach is None or reach[0] != v or last > reach[1]:
            reach = (v, last, span)
    for one, other in overlapping:
        found.append(problem(
            FREE_OVERLAP, ns,
            "The stored free spans %s and %s of pool '%s' overlap: an address in both could be handed out twice. "
            "netpool.ipam.repair rebuilds the pool's free spans from its subnets, reservations and resting addresses."
            % (iv.format_span(*one), iv.format_span(*other), name),
            pools=[name], addresses=_spans_text([one, other])))
    outside = [s for s in stored if not any(sub.covers(*s) for sub in pool.subnets)]
    if outside:
        found.append(problem(
            FREE_OUTSIDE, ns,
            "The stored free span(s) %s of pool '%s' do not lie inside one of its subnets (%s). netpool.ipam.repair "
            "rebuilds the pool's free spans." % (
                ', '.join(_spans_text(outside)), name, ', '.join(s.cidr for s in pool.subnets) or 'none'),
            pools=[name], addresses=_spans_text(outside)))
    have = _by_version([s for s in stored if s not in outside])
    want = _by_version(expected)
    wrongly_free = _difference(have, want)
    not_free = _difference(want, have)
    if wrongly_free or not_free:
        what = []
        if wrongly_free:
            what.append('free but held, resting, excluded (by the pool or a pool it is carved from) or not in a range: '
                        '%s' % ', '.join(_spans_text(wrongly_free)))
        if not_free:
            what.append('allocatable but missing from the free spans: %s' % ', '.join(_spans_text(not_free)))
        found.append(problem(
            FREE_MISMATCH, ns,
            "The free space of pool '%s' is not allocatable less held less resting addresses; %s. netpool.ipam.repair "
            "rebuilds the pool's free spans." % (name, '; '.join(what)),
            pools=[name], addresses=_spans_text(sorted(wrongly_free + not_free))))
    return found


def _less(spans, addresses):
    """``(version, first, last)`` spans less the ``(version, address)`` of ``addresses``."""
    found = []
    for v, a, b in spans:
        found += [(v, x, y) for x, y in iv.subtract([(a, b)], sorted((n, n) for av, n in addresses if av == v))]
    return found


def _unmanaged(pool, unmanaged):
    """The ``unmanaged_address`` problems of a pool, one per address ``FreeSpace.unmanaged`` found (only NetBox,
    which other tools share, has any)."""
    return [problem(
        UNMANAGED, pool.namespace,
        "NetBox holds %s inside what pool '%s' hands out (%s), and no reservation of this collection holds it: it "
        "is not ours (made by hand in NetBox, or by another tool). NetBox will not hand it out, and repair cannot "
        "change that: adopt it with netpool.ipam.adopt, or delete it in NetBox."
        % (iv.to_str(v, n), pool.name, ', '.join(s.cidr for s in pool.subnets)) + _RERUN,
        pools=[pool.name], addresses=[iv.to_str(v, n)]) for v, n in unmanaged]


def _families(namespace, pools, tree):
    found = []
    for pool in pools:
        if pool.parent is None:
            continue
        parent = tree.parent(pool)
        if parent is None:
            found.append(problem(
                PARENT_MISSING, namespace,
                "Pool '%s' is a child of '%s', which does not exist in namespace '%s'. Create '%s' again around %s, "
                "or delete '%s' (netpool.ipam.pool with state: absent) once its reservations are released."
                % (pool.name, pool.parent, namespace, pool.parent, ', '.join(s.cidr for s in pool.subnets),
                   pool.name) + _RERUN,
                pools=[pool.name, pool.parent], addresses=[s.cidr for s in pool.subnets]))
            continue
        theirs = footprint(parent)
        for v, a, b in footprint(pool):
            if within(theirs, v, a, b) != [(a, b)]:
                what = ('range %s' % iv.format_span(v, a, b)) if pool.by_ranges else \
                    ('subnet %s' % next(s.cidr for s in pool.subnets if s.covers(v, a, b)))
                found.append(problem(
                    CHILD_OUTSIDE, namespace,
                    "The %s of child pool '%s' is not inside %s of its parent '%s' (%s). Give the parent a subnet "
                    "that covers it, or delete the child pool and make it again."
                    % (what, pool.name, 'the ranges' if parent.by_ranges else 'a subnet', parent.name,
                       ', '.join(iv.format_span(*span) for span in theirs) if parent.by_ranges
                       else ', '.join(s.cidr for s in parent.subnets) or 'none')
                    + _RERUN,
                    pools=[pool.name, parent.name], addresses=[what.split(' ')[1]]))
    return found


def _overlaps(namespace, pools, tree):
    """Overlapping footprints (``_tree.footprint``: subnets, or a child by ranges' ranges) of two pools of which
    neither descends from the other (a sweep in address order)."""
    ancestors = dict((p.name, set(a.name for a in tree.ancestors(p))) for p in pools)
    spans = sorted((v, a, b, p.name, _named(p, v, a, b)) for p in pools for v, a, b in footprint(p))
    found = []
    for i, (v, _first, last, name, what) in enumerate(spans):
        for v2, first2, _last2, name2, what2 in spans[i + 1:]:
            if v2 != v or first2 > last:
                break
            if name2 == name or name2 in ancestors[name] or name in ancestors[name2]:
                continue
            found.append(problem(
                POOL_OVERLAP, namespace,
                "The %s of pool '%s' overlaps the %s of pool '%s' in namespace '%s', and neither pool "
                "is carved from the other. Decide which pool keeps the addresses: shrink or delete the other "
                "(netpool.ipam.pool), or move one pool to another namespace."
                % (what, name, what2, name2, namespace) + _RERUN,
                pools=[name, name2], addresses=[what.split(' ')[1], what2.split(' ')[1]]))
    return found


def _named(pool, v, a, b):
    """A footprint span as messages name it: ``subnet CIDR``, or ``range FIRST-LAST`` of a child by ranges."""
    if pool.by_ranges:
        return 'range %s' % iv.format_span(v, a, b)
    return 'subnet %s' % next(s.cidr for s in pool.subnets if s.covers(v, a, b))
