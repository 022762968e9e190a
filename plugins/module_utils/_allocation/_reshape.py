# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A pool's subnets given anew: built from the subnet dicts of a ``pool`` task, resized, split or merged
(docs/design.md#pools-and-ranges).

This is a private module: it may change at any time.

``edit_ranges`` adds or removes ranges and exclusions (netpool.ipam.range); ``sources`` finds, for each subnet
dict, the old subnet whose values it keeps where it gives none (the same cidr; a resized or split subnet, whose
values ``carry`` hands over; none for a merge, which ``check_merge``
refuses when it would drop a value); ``subnet`` builds the new Subnet; ``check_resized`` refuses a new cidr
that would leave a reservation on its network or broadcast address or its gateway; ``check_overlap`` refuses
subnets (a child by ranges: ranges) that overlap another pool of the namespace; ``carve`` gives a child pool its
prefix, ``hold_ranges`` a child by ranges its ranges, and ``check_gained`` refuses ranges that would take an
address another pool holds (docs/design.md#trees). The input checks are ``_checks``'; the service decides when this runs.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space import _tree
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressInUse, AddressOutOfPool, InvalidArgument, PoolExhausted, PoolInUse, PoolOverlap)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Subnet


def usable_only(subnet, spans):
    """Spans less the subnet's network/broadcast (IPv6: subnet-router) addresses."""
    usable = iv.usable(subnet.network)
    return iv.intersect(spans, [usable] if usable else [])


def edit_ranges(pool, specs, kind, state, force):
    """A copy of ``pool`` with the range specs added (``state`` present) or removed, as allocatable ranges or
    exclusions (``kind``), merged; network and broadcast addresses left out of allocatable ranges unless
    ``force``. A range not inside one subnet of the pool is address_out_of_pool (docs/design.md#pools-and-ranges)."""
    new = pool.copy()
    attr = 'ranges' if kind == 'allocatable' else 'exclude'
    for spec in specs:
        version, first, last = _checks.span(spec, 'range')
        subnet = next((s for s in new.subnets if s.covers(version, first, last)), None)
        if subnet is None:
            raise AddressOutOfPool("The range %s is not inside one subnet of pool '%s' (%s)."
                                   % (spec, pool.name, ', '.join(s.cidr for s in new.subnets)))
        spans = [(first, last)]
        if state == 'present':
            if kind == 'allocatable' and not force:
                spans = usable_only(subnet, spans)
            setattr(subnet, attr, iv.merge(getattr(subnet, attr) + spans))
        else:
            setattr(subnet, attr, iv.subtract(getattr(subnet, attr), spans))
    return new


def network_of(spec):
    """The parsed cidr of a subnet dict, or None (``_checks.subnet_network`` then says what is wrong with it)."""
    if isinstance(spec, dict) and spec.get('cidr'):
        try:
            return iv.parse_network(spec['cidr'])
        except (ValueError, TypeError):
            pass
    return None


def implicit_ranges(subnet):
    """True if the subnet's ranges are its usable hosts: ranges never given (the model stores them always)."""
    usable = iv.usable(subnet.network)
    return subnet.ranges == ([usable] if usable else [])


def sources(name, specs, olds, force):
    """For each subnet dict of a ``pool`` task, the Subnet whose values it keeps where it gives none, or None
    (docs/design.md#pools-and-ranges).

    The same cidr is that subnet. A new cidr that contains, or is contained in, exactly one subnet of the
    pool (one no other dict keeps as it is) is that subnet resized (``carry``); several new cidrs may come
    from one (a split). A new cidr containing several subnets merges them: it is a new subnet, and
    ``check_merge`` refuses it when it would drop what they had.
    """
    networks = [network_of(spec) for spec in specs]
    kept = set(str(n.cidr) for n in networks if n is not None)
    by_cidr = dict((s.cidr, s) for s in olds)
    found = [None] * len(specs)
    resized = {}        # old cidr -> the indexes of the dicts it became
    for i, network in enumerate(networks):
        if network is None:
            continue
        cidr = str(network.cidr)
        if cidr in by_cidr:
            found[i] = by_cidr[cidr]
            continue
        nested = [s for s in olds if s.cidr not in kept and s.version == network.version
                  and s.first <= network.last and network.first <= s.last]
        if len(nested) == 1:
            resized.setdefault(nested[0].cidr, []).append(i)
        elif nested:
            check_merge(name, specs[i], cidr, nested)
    for cidr, indexes in resized.items():
        carried = carry(name, by_cidr[cidr], [(specs[i], networks[i]) for i in indexes], force)
        for i, subnet in zip(indexes, carried):
            found[i] = subnet
    return found


def carry(name, old, targets, force):
    """What subnet ``old`` hands to the subnets it was resized into (``targets``: (dict, network) pairs):
    its dns, and the gateway, explicit ranges and exclusions that fall inside each. One that falls inside
    none of them, and that they do not all give anew, is invalid_argument; implicit ranges stay implicit."""
    spans = iv.merge((int(n.first), int(n.last)) for _spec, n in targets)
    new = ' and '.join(str(n.cidr) for _spec, n in targets)
    new = ('its new cidrs ' if len(targets) > 1 else 'its new cidr ') + new
    implicit = implicit_ranges(old)

    def anew(key):
        return all(spec.get(key) is not None for spec, _n in targets)

    if old.gateway is not None and not iv.contains(spans, old.gateway) and not anew('gateway'):
        raise InvalidArgument("The gateway %s of subnet %s in pool '%s' is outside %s. Give a gateway anew "
                              "inside the new cidr, or keep the cidr."
                              % (iv.to_str(old.version, old.gateway), old.cidr, name, new))
    for what, key, kind, olds in (('range', 'ranges', 'allocatable', [] if implicit else old.ranges),
                                  ('exclusion', 'exclude', 'excluded', old.exclude)):
        left = [] if anew(key) else iv.subtract(olds, spans)
        for first, last in olds:
            if iv.intersect([(first, last)], left):
                raise InvalidArgument(
                    "The %s %s of subnet %s in pool '%s' is not inside %s. Give %s anew with the new cidr, or "
                    "remove it first (netpool.ipam.range with kind: %s and state: absent)."
                    % (what, iv.format_span(old.version, first, last), old.cidr, name, new, key, kind))
    carried = []
    for _spec, network in targets:
        here = [(int(network.first), int(network.last))]
        subnet = Subnet(network, dns=old.dns, exclude=iv.intersect(old.exclude, here),
                        gateway=old.gateway if old.gateway is not None and iv.contains(here, old.gateway) else None)
        if not implicit:
            ranges = iv.intersect(old.ranges, here)
            subnet.ranges = iv.merge(ranges if force else usable_only(subnet, ranges))
        carried.append(subnet)
    return carried


def check_merge(name, spec, cidr, nested):
    """invalid_argument if the subnet ``cidr``, which merges the subnets ``nested``, would drop a value of
    theirs it does not give anew: which subnet's gateway or exclusions it should keep is not guessed."""
    dropped = []
    for s in nested:
        if s.gateway is not None and spec.get('gateway') is None:
            dropped.append(('gateway', 'the gateway %s of %s' % (iv.to_str(s.version, s.gateway), s.cidr)))
        if s.dns and spec.get('dns') is None:
            dropped.append(('dns', 'the dns %s of %s' % (', '.join(s.dns), s.cidr)))
        for key, what, olds in (('ranges', 'ranges', [] if implicit_ranges(s) else s.ranges),
                                ('exclude', 'exclusions', s.exclude)):
            if olds and spec.get(key) is None:
                dropped.append((key, 'the %s %s of %s' % (what, ', '.join(
                    iv.format_span(s.version, a, b) for a, b in olds), s.cidr)))
    if dropped:
        keys = []
        for key, _text in dropped:
            if key not in keys:
                keys.append(key)
        raise InvalidArgument("The subnet %s of pool '%s' merges its subnets %s, and nothing carries over into a "
                              "merge: it would drop %s. Give %s anew with it."
                              % (cidr, name, ' and '.join(s.cidr for s in nested),
                                 '; '.join(text for _key, text in dropped), ', '.join(keys)))


def subnet(spec, old=None, force=False):
    """A Subnet from a module's subnet dict; keys not given keep ``old``'s values."""
    network = _checks.subnet_network(spec)
    gateway = old.gateway if old is not None and spec.get('gateway') is None else None
    if spec.get('gateway') is not None:
        gateway = _checks.gateway(spec['gateway'], network)
    dns = old.dns if old is not None and spec.get('dns') is None else []
    if spec.get('dns') is not None:
        dns = _checks.dns(spec['dns'])
    new = Subnet(network, gateway=gateway, dns=dns)
    ranges = _checks.spans(new, spec.get('ranges'), 'ranges')
    if ranges is not None:
        new.ranges = iv.merge(ranges if force else usable_only(new, ranges))
    elif old is not None:
        new.ranges = old.ranges
    exclude = _checks.spans(new, spec.get('exclude'), 'exclude')
    new.exclude = iv.merge(exclude) if exclude is not None else (old.exclude if old is not None else [])
    return new


def landmarks(subnet):
    """``{address: what}`` of a subnet's network and broadcast (IPv6: subnet-router) addresses and gateway."""
    found = {}
    if subnet.version == 4 and subnet.prefix_length <= 30:
        found[subnet.first], found[subnet.last] = 'network address', 'broadcast address'
    elif subnet.version == 6 and subnet.prefix_length <= 127:
        found[subnet.first] = 'subnet-router address'
    if subnet.gateway is not None:
        found.setdefault(subnet.gateway, 'gateway')
    return found


def check_resized(store, now, old, pool):
    """invalid_argument if a resized subnet of ``pool`` (a new cidr over one or more of the ``old`` pool's
    subnets: resized, split or merged) would leave a reservation of the namespace (the pool's or a child
    pool's) on what its new cidr makes its network or broadcast address, or on its gateway (docs/design.md#pools-and-ranges),
    naming the owner and the address. One indexed look-up per address; one that already was such an address
    of the old subnets (a reservation forced there on purpose) is left as it is."""
    kept = set(s.cidr for s in old.subnets)
    for new in pool.subnets:
        if new.cidr in kept:
            continue
        olds = [source for source in old.subnets if source.overlaps(new)]
        if not olds:
            continue        # a new subnet: nothing of the namespace is held there
        before = {}
        for source in olds:
            before.update(landmarks(source))
        for n, what in sorted(landmarks(new).items()):
            holder = None if n in before else store.holder(pool.namespace, new.version, n)
            if holder is not None and not holder.expired(now):
                raise InvalidArgument(
                    "The new subnet %s of pool '%s' would leave owner '%s' key '%s' (pool '%s') on %s, the %s "
                    "of %s. Release or move that reservation first, or choose another cidr."
                    % (new.cidr, pool.name, holder.owner, holder.key, holder.pool,
                       holder.address_str, what, new.cidr),
                    holder={'pool': holder.pool, 'owner': holder.owner, 'key': holder.key,
                            'address': holder.address_str})


def _named(version, first, last, pool, subnet=None):
    """A footprint span as messages name it: a subnet's cidr, or a child by ranges' range."""
    if not pool.by_ranges:
        # a span of the footprint may run across two adjacent subnets: the one where it starts names it
        subnet = subnet or next(s for s in pool.subnets if s.covers(version, first, first))
        return 'subnet %s' % subnet.cidr
    return 'range %s' % iv.format_span(version, first, last)


def check_overlap(store, pool):
    """pool_overlap unless the pool's subnets (a child by ranges: its ranges, ``_tree.footprint``) are clear of
    every other pool of the namespace but its ancestors and descendants."""
    seen = []
    for subnet in pool.subnets:
        for other in seen:
            if other.overlaps(subnet):
                raise InvalidArgument('The subnets %s and %s of pool %s overlap; give each address once.'
                                      % (other.cidr, subnet.cidr, pool.name))
        seen.append(subnet)
    others = store.list_pools(pool.namespace)
    tree = _tree.Tree([p for p in others if p.name != pool.name] + [pool])
    # a pool overlaps its ancestors and descendants (carved children) by design
    related = set(p.name for p in tree.ancestors(pool) + tree.descendants(pool))
    mine = _tree.footprint(pool)
    for other in others:
        if other.name == pool.name or other.name in related:
            continue
        for v, a, b in _tree.footprint(other):
            for first, last in _tree.within(mine, v, a, b):
                raise PoolOverlap("The %s of pool '%s' overlaps the %s of pool '%s' in namespace '%s' (%s). Pools of "
                                  "one namespace may not overlap: choose another %s or namespace."
                                  % (_named(v, first, last, pool), pool.name, _named(v, a, b, other),
                                     other.name, pool.namespace, iv.format_span(v, first, last),
                                     'range' if pool.by_ranges else 'subnet'),
                                  other_pool=other.name)


def carve(store, old, new, parent_name, prefix_length, find):
    """Give ``new`` the first free aligned /prefix_length of its parent (docs/design.md#trees); ``find(namespace, name)``
    is the parent pool or pool_not_found."""
    if old is not None:
        if old.parent != parent_name:
            raise InvalidArgument("Pool '%s' exists and is not a child of '%s'. Pools do not change parents: "
                                  "delete it first." % (old.name, parent_name))
        if old.by_ranges:
            raise InvalidArgument("Child pool '%s' holds ranges of '%s', not a prefix: give its ranges, or delete it "
                                  "and carve it again with prefix_length." % (old.name, parent_name))
        if old.subnets[0].prefix_length != prefix_length:
            raise InvalidArgument("Child pool '%s' has the prefix %s; it cannot be resized to /%d. Delete it "
                                  "and create it again." % (old.name, old.subnets[0].cidr, prefix_length))
        return
    parent = find(new.namespace, parent_name)
    tree = _tree.Tree.of(store, new.namespace)
    held = [(r.version, r.address) for r in store.find_reservations(parent.namespace, parent.name)]
    held += [(v, n) for v, n, _until in store.free_space().resting(parent)]
    if not any(s.prefix_length <= prefix_length <= (32 if s.version == 4 else 128) for s in parent.subnets):
        raise InvalidArgument("A /%d cannot be carved from pool '%s': none of its subnets (%s) can hold one. "
                              "Give a prefix_length between the parent's prefix length and 32 (IPv4) or 128 (IPv6)."
                              % (prefix_length, parent_name, ', '.join(s.cidr for s in parent.subnets)))
    for subnet in parent.subnets:
        bits = 32 if subnet.version == 4 else 128
        if not subnet.prefix_length <= prefix_length <= bits:
            continue
        obstacles = tree.carved(parent, subnet) + [(n, n) for v, n in held if v == subnet.version]
        # a parent by ranges holds only its ranges of the subnet: the prefix lies inside them
        obstacles += iv.subtract([(subnet.first, subnet.last)], _tree.within(
            _tree.footprint(parent), subnet.version, subnet.first, subnet.last))
        start = iv.first_aligned_block(iv.merge(obstacles), subnet.first, subnet.last,
                                       1 << (bits - prefix_length))
        if start is not None:
            network = iv.parse_network('%s/%d' % (iv.to_str(subnet.version, start), prefix_length))
            # nothing of the parent is copied: what it withholds (gateway, exclusions, network and
            # broadcast addresses) is derived at allocation (``_tree``), so a later change holds here too
            new.subnets = [Subnet(network)]
            new.parent = parent_name
            return
    raise PoolExhausted("Pool '%s' has no free /%d left for child pool '%s'."
                        % (parent_name, prefix_length, new.name))


def hold_ranges(old, new, parent, specs, force):
    """Give ``new`` exactly the ranges ``specs`` of its parent's subnets (docs/design.md#trees, a child by ranges): one subnet
    per parent subnet they touch, of the parent's cidr, holding no gateway, dns or exclusion of its own (the
    parent's hold in it, derived: ``_tree``). Ranges are merged; network and broadcast addresses are left out
    unless ``force``. A range outside the parent's subnets (a parent by ranges: its ranges) is
    address_out_of_pool. A rerun with other ranges resizes the child: the exclusions it was given
    (netpool.ipam.range) stay with their subnet, and one on a subnet its ranges leave is invalid_argument. The
    other pools, the reservations and the child pools are checked by the caller (``check_overlap``,
    ``check_gained``, ``outside``)."""
    if old is not None:
        if old.parent != parent.name:
            raise InvalidArgument("Pool '%s' exists and is not a child of '%s'. Pools do not change parents: "
                                  "delete it first." % (old.name, parent.name))
        if not old.by_ranges:
            raise InvalidArgument("Child pool '%s' is the prefix %s carved from '%s', not a child by ranges: give "
                                  "prefix_length, or delete it and create it again with ranges."
                                  % (old.name, ', '.join(s.cidr for s in old.subnets), parent.name))
    if not specs:
        raise InvalidArgument("Child pool '%s' would hold no range of '%s'. Keep a range, or delete the child pool "
                              "(netpool.ipam.pool with state: absent)." % (new.name, parent.name))
    theirs = _tree.footprint(parent)
    placed = {}
    for spec in specs:
        version, first, last = _checks.span(spec, 'ranges')
        subnet = next((s for s in parent.subnets if s.covers(version, first, last)), None)
        if subnet is None or _tree.within(theirs, version, first, last) != [(first, last)]:
            raise AddressOutOfPool(
                "The range %s is not inside %s of pool '%s' (%s): a child by ranges holds ranges of its parent's "
                "subnets. Give ranges inside them." % (
                    spec, 'the ranges' if parent.by_ranges else 'one subnet', parent.name,
                    ', '.join(iv.format_span(*span) for span in theirs) if parent.by_ranges
                    else ', '.join(s.cidr for s in parent.subnets)))
        placed.setdefault(subnet.cidr, []).append((first, last))
    olds = dict((s.cidr, s) for s in old.subnets) if old is not None else {}
    for cidr, gone in sorted(olds.items()):
        if cidr not in placed and gone.exclude:
            raise InvalidArgument(
                "Child pool '%s' has the exclusions %s on %s, which its new ranges leave. Remove them first "
                "(netpool.ipam.range with kind: excluded and state: absent), or keep a range on %s."
                % (new.name, ', '.join(iv.format_span(gone.version, a, b) for a, b in gone.exclude), cidr, cidr))
    subnets = []
    for ps in parent.subnets:
        if ps.cidr in placed:
            subnet = Subnet(ps.network, exclude=olds[ps.cidr].exclude if ps.cidr in olds else [])
            subnet.ranges = iv.merge(placed[ps.cidr] if force else usable_only(subnet, placed[ps.cidr]))
            if not subnet.ranges:
                raise InvalidArgument("The ranges %s of child pool '%s' hold no address of %s but its network or "
                                      "broadcast address." % (', '.join(specs), new.name, ps.cidr))
            subnets.append(subnet)
    new.subnets = subnets
    new.parent = parent.name
    new.by_ranges = True


def check_shape(store, now, old, new, tree):
    """What a new shape of pool ``new`` (``old``: None for a new pool) must not do to the other pools and the
    reservations of its namespace: overlap a pool it does not descend from (a carved child is carved clear),
    take what another pool holds (a child by ranges), leave a holder on a landmark of a resized subnet."""
    if new.parent is None or new.by_ranges:
        check_overlap(store, new)
    if new.by_ranges:
        check_gained(store, now, old, new, tree)
    if old is not None:
        check_resized(store, now, old, new)


def follow(parent, children):
    """``(child, moved)`` for each child by ranges of ``parent`` (its new shape) that ``rehome`` moves, updated when
    the parent is."""
    found = [(child, rehome(child, parent)) for child in children if child.by_ranges]
    for _child, moved in found:
        if moved is not None:
            moved.updated_at = parent.updated_at
    return [(child, moved) for child, moved in found if moved is not None]


def rehome(child, parent):
    """``child`` (a child by ranges) on the subnets ``parent`` has now, or None if they are the ones it is on: a
    resized subnet of its parent gives the child's subnet its cidr (the parent's cidrs are the child's, derived
    from the parent when it changes, never given). Its exclusions go with the ranges they lie beside; a range no
    longer inside one subnet of the parent is invalid_argument naming it."""
    moved = child.copy()
    moved.subnets = []
    for old in child.subnets:
        for a, b in old.ranges:
            ps = next((s for s in parent.subnets if s.covers(old.version, a, b)), None)
            if ps is None:
                raise InvalidArgument(
                    "The new subnets of pool '%s' would leave the range %s of its child pool '%s' (a child by "
                    "ranges) across two subnets or outside them. Shrink or delete the child first."
                    % (parent.name, iv.format_span(old.version, a, b), child.name))
            subnet = next((s for s in moved.subnets if s.cidr == ps.cidr), None)
            if subnet is None:
                subnet = Subnet(ps.network, exclude=[])
                subnet.ranges = []
                moved.subnets.append(subnet)
            subnet.ranges = iv.merge(subnet.ranges + [(a, b)])
            here = [(ps.first, ps.last)]
            subnet.exclude = iv.merge(subnet.exclude + iv.intersect(old.exclude, here))
    order = [s.cidr for s in parent.subnets]
    moved.subnets.sort(key=lambda s: order.index(s.cidr))
    if [s.to_data() for s in moved.subnets] == [s.to_data() for s in child.subnets]:
        return None
    return moved


def check_gained(store, now, old, new, tree):
    """address_in_use, naming the holder, if the ranges a child by ranges gains (``new`` against ``old``) take an
    address held by a pool other than the child and the pools below it (its parent's, mostly): it holds exactly
    its ranges, free of its parent's reservations. An expired lease is not held."""
    gained = _tree.footprint(new)
    if old is not None:
        had = _tree.footprint(old)
        gained = [(v, a, b) for v in sorted(set(s[0] for s in gained))
                  for a, b in iv.subtract([(x, y) for w, x, y in gained if w == v], [(x, y) for w, x, y in had if w == v])]
    mine = set([new.name] + [p.name for p in tree.descendants(new)])
    for v, a, b in gained:
        for r in store.find_reservations(new.namespace, version=v, first=a, last=b):
            if r.pool not in mine and not r.expired(now):
                raise AddressInUse(
                    "The ranges of child pool '%s' would take %s, held by owner '%s' key '%s' in pool '%s'. Release "
                    "or move that reservation first, or give ranges without it."
                    % (new.name, r.address_str, r.owner, r.key, r.pool),
                    holder={'pool': r.pool, 'owner': r.owner, 'key': r.key, 'address': r.address_str})


def outside(store, new, children, force):
    """The reservations of pool ``new`` its new subnets (a child by ranges: ranges) leave outside, which ``force``
    releases: pool_in_use for a child pool they leave outside, and without ``force`` for a reservation."""
    mine = _tree.footprint(new)
    for child in children:
        for v, a, b in _tree.footprint(child):
            if _tree.within(mine, v, a, b) != [(a, b)]:
                raise PoolInUse("The child pool '%s' (%s) would lie outside pool '%s'. Remove the child pool first."
                                % (child.name, _named(v, a, b, child), new.name), pools=[child.name])
    found = [r for r in store.find_reservations(new.namespace, new.name)
             if new.subnet_of(r.version, r.address) is None]
    if found and not force:
        raise PoolInUse("The change to pool '%s' would leave %d reservation(s) outside every %s: %s. "
                        "Release them first, or set force: true to release them."
                        % (new.name, len(found), 'range' if new.by_ranges else 'subnet',
                           ', '.join('%s (owner %s key %s)' % (r.address_str, r.owner, r.key) for r in found[:20])),
                        addresses=[r.address_str for r in found])
    return found
