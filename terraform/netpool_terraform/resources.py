# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Resources ``netpool_pool`` and ``netpool_reservation``, data sources of both.

Each operation is one call of the collection's service (``_service.Service``: ``pool``, ``reserve``,
``release``, ``get``, ``info``), the calls the modules and the lookup make, so Terraform and Ansible share
one set of rules and one state. What is Terraform's own:

- inputs stay in the state as the configuration wrote them; a read compares them with the store by the
  service's own rules (a pool through the service in check mode, metadata normalised as the store keeps
  it: ``mac = "52-54-00-AA-BB-CC"`` is the stored ``52:54:00:aa:bb:cc``) and writes the store's values into
  the state only where they differ: that difference is the drift the next plan shows and corrects;
- an attribute not given (``metadata``, ``strategy``, ...) is left as the store has it, as the modules do;
- a reservation gone from the store (released by Ansible) reads as gone: the next plan creates it again.
"""

from tf import iface
from tf.types import Bool, List, Map, Number, String, Unknown

from netpool_terraform._base import Base, Object, add_failure, api, known, strings, unknown
from netpool_terraform._planning import NoneLeft, PlannedAddressTaken
from netpool_terraform._snapshot import held


def _one_of(choices, what):
    def check(value):
        if value not in choices:
            raise api.InvalidArgument('%s must be one of %s, got %r.' % (what, ', '.join(sorted(choices)), value))
    return check


def _names(*names):
    """CHECKS for attributes that name something (namespace, pool, owner, key): the service's rule."""
    return dict((name, lambda value, name=name: api.check_name(value, name)) for name in names)


def _metadata_check(normalise):
    """CHECKS for ``metadata``: the values known at plan time, by the store's own rule
    (``api.reservation_metadata``, ``api.pool_metadata``): a MAC netaddr cannot read fails the plan with
    invalid_argument, not the apply."""
    return lambda value: normalise(dict((k, v) for k, v in value.items() if not unknown(v)))


def same_metadata(given, stored, normalise):
    """True when metadata ``given`` (the configuration's) is what the store holds once ``normalise``
    (``api.reservation_metadata`` or ``api.pool_metadata``) has kept it as the store keeps it. The state then keeps
    ``given``: Terraform wants back after apply what it planned from the configuration."""
    try:
        return strings(normalise(given)) == strings(stored)
    except api.IpamError:
        return False


class NotReserved(api.IpamError):
    """The data source netpool_reservation names a reservation that does not exist (the lookup's code)."""
    code = 'not_reserved'


_REQUIRED = dict(required=True)
_REPLACE = dict(required=True, requires_replace=True)
_OPTIONAL = dict(optional=True)
_CHOSEN = dict(optional=True, computed=True)           # given, else what the store has
_COMPUTED = dict(computed=True)

#: the facts of a reservation's subnet, returned by the resource and the data source
_SUBNET_FACTS = {
    'cidr': (String(), _COMPUTED, 'The address with its prefix length, `10.0.0.10/24`.'),
    'prefix_length': (Number(), _COMPUTED, "The prefix length of the address's subnet."),
    'netmask': (String(), _COMPUTED, 'The netmask (IPv4; null for IPv6).'),
    'network': (String(), _COMPUTED, "The CIDR of the address's subnet."),
    'gateway': (String(), _COMPUTED, "The subnet's gateway, or null."),
    'dns': (List(String()), _COMPUTED, "The subnet's DNS servers."),
    'static': (Bool(), _COMPUTED, 'True when the address was asked for (`address`), false when allocated (at '
                                  'plan or at apply).'),
    'created_at': (String(), _COMPUTED, 'When the reservation was made (UTC, ISO 8601).'),
    'expires_at': (String(), _COMPUTED, 'When the lease ends (with `ttl`), else null.'),
}

_NAMESPACE = 'The namespace (address space). Default: the provider\'s `namespace`.'

#: the IPv6 half of ``family = "dual"`` (``address`` and the facts above are the IPv4 one's)
_DUAL_FACTS = {
    'address6': (String(), _COMPUTED, 'With `family = "dual"`, the IPv6 address (`address` is the IPv4 one); '
                                      'else null.'),
    'cidr6': (String(), _COMPUTED, 'With `family = "dual"`, the IPv6 address with its prefix length; else null.'),
    'gateway6': (String(), _COMPUTED, 'With `family = "dual"`, the gateway of the IPv6 subnet, or null.'),
}

#: the values of ``family``: one family, or one address of each (``dual``)
_FAMILY_CHOICES = set(api.FAMILIES) | set(['dual'])


def facts(r, r6=None):
    """The computed attributes of reservation dict ``r`` (docs/design.md#the-model, as the modules return it), and of the IPv6
    reservation ``r6`` of ``family = "dual"`` (None otherwise)."""
    found = dict((k, r[k]) for k in _SUBNET_FACTS)
    found.update(address6=r6 and r6['address'], cidr6=r6 and r6['cidr'], gateway6=r6 and r6['gateway'])
    return found


def get(service, pool, owner, key, namespace, family):
    """``(reservation, IPv6 reservation)`` as dicts, the second for ``family`` dual only; ``(None, None)`` when it
    holds none (for dual: not both)."""
    if family != 'dual':
        return service.get(pool, owner, key, namespace=namespace, family=family), None
    pair = (service.get(pool, owner, key, namespace=namespace, family='ipv4'),
            service.get(pool, owner, key, namespace=namespace, family='ipv6'))
    return pair if None not in pair else (None, None)


def same_address(a, b):
    """True when two address strings are one address (``10.0.0.5`` and ``10.0.0.05`` are not both valid, but
    IPv6 has many spellings)."""
    if a is None or b is None:
        return a is b
    try:
        return api.parse_address(a) == api.parse_address(b)
    except (ValueError, TypeError):
        return a == b


def reservation_id(r):
    return '/'.join((r['namespace'], r['pool'], r['owner'], r['key']))


def parse_id(text, parts, form):
    """An import id split at ``/`` into ``parts`` names (an owner may hold ``/``: the middle part takes them)."""
    pieces = text.split('/')
    if len(pieces) < len(parts) or not all(pieces):
        raise api.InvalidArgument("The import id %r is not %s: give each part, separated by '/'." % (text, form))
    if len(pieces) > len(parts):
        middle = len(parts) - 2
        pieces = pieces[:middle] + ['/'.join(pieces[middle:len(pieces) - 1])] + pieces[-1:]
    return dict(zip(parts, pieces))


def plan_again(who):
    """What to do when the address planned for ``who`` (``pool/owner/key``) is no longer free."""
    return ('Nothing was reserved for %s. Plan again (terraform plan, or terraform apply without a saved plan): the '
            'next plan plans another address.' % who)


class Reservation(Base, iface.Resource):
    """``netpool_reservation``: one address held by ``(namespace, pool, owner, key)``."""

    NAME = 'reservation'

    DESCRIPTION = ('An address of a netpool pool held by an owner (a VM, a host) under a key: the same '
                   'reservation the netpool.ipam Ansible modules and lookup see.')
    ATTRIBUTES = dict([
        ('id', (String(), _COMPUTED, '`namespace/pool/owner/key`.')),
        ('namespace', (String(), dict(optional=True, computed=True, requires_replace=True), _NAMESPACE)),
        ('pool', (String(), _REPLACE, 'The pool to reserve in.')),
        ('owner', (String(), _REPLACE, 'Who holds the address: a VM name, an inventory hostname.')),
        ('key', (String(), dict(optional=True, computed=True, requires_replace=True, default='default'),
                 'Which address of the owner (one per NIC): default `default`.')),
        ('address', (String(), _CHOSEN, 'The address. Give it for a static reservation (a change moves the '
                                        'reservation); leave it out to have one allocated: planned from the store, '
                                        'so known at plan (unless the plan creates the pool, or `family = "dual"`), '
                                        'and reserved exactly by the apply.')),
        ('family', (String(), dict(optional=True, requires_replace=True),
                    '`ipv4` or `ipv6`: allocate from the subnets of that family only. `dual`: one IPv4 address '
                    '(`address`, `cidr`...) and one IPv6 address (`address6`, `cidr6`, `gateway6`) under the same '
                    'owner and key, in one transaction (the pool needs a subnet of each family; no static '
                    '`address`). An address the owner and key hold already of one family is kept.')),
        ('align_with', (String(), dict(optional=True, requires_replace=True),
                        'Another pool of the namespace: reserve the address whose offset in its subnet is the offset '
                        'of this owner\'s reservation (same key, same family) in that pool, placed in the first '
                        'subnet of the family of this pool (the same host part in every network). Known at plan '
                        'when the owner holds its address in that pool already, else after apply (the owner must '
                        'hold one there by then: `depends_on` its reservation). No `address` with it. A change '
                        'replaces the reservation.')),
        ('metadata', (Map(String()), _CHOSEN, 'Free facts (mac, hostname). Left as they are when not given.')),
        ('ttl', (String(), _OPTIONAL, 'A lease: seconds or `30m`, `12h`, `7d`. An expired lease is released by '
                                      'the store, and the next plan reserves again.')),
        ('force', (Bool(), _OPTIONAL, 'Take an excluded address (the gateway, an exclusion) given in `address`.')),
        ('probe', (String(), _OPTIONAL,
                   '`icmp` or `arp`: before a new address is allocated, the provider probes it (ICMP echo with the '
                   'system\'s `ping`; ARP with `arping`, IPv4 only, on the machine\'s interface on that subnet) and '
                   'takes only one that does not answer; one that answers is recorded as held by owner '
                   '`netpool.ipam.probe` (metadata `found_by`, `probe`, `probed_at`, `probed_for`) and the next '
                   'is tried. The address is then known after apply, not at plan. `none` (default): no probe. '
                   'Where the machine cannot probe (no permission, no route), the apply fails and reserves '
                   'nothing. A static `address`, `align_with` and an address that already exists are not probed. '
                   'In a pool where the same apply plans addresses for reservations without `probe`, a probed '
                   'one may take such an address, which then asks to plan again: give the reservations of a '
                   'pool the same `probe`.')),
        ('probe_timeout', (Number(), _OPTIONAL, 'How long each probe waits for an answer, in milliseconds '
                                                '(default 300).')),
        ('probe_tries', (Number(), _OPTIONAL, 'How many answering candidates the reservation may meet before the '
                                              'apply fails with `address_in_use` (default 16).')),
    ] + list(_SUBNET_FACTS.items()) + list(_DUAL_FACTS.items()))

    CHECKS = dict(_names('namespace', 'pool', 'owner', 'key', 'align_with'), family=_one_of(_FAMILY_CHOICES, 'family'),
                  ttl=lambda value: api.parse_duration(value, 'ttl'), probe=_one_of(api.PROBE_METHODS, 'probe'),
                  metadata=_metadata_check(api.reservation_metadata))

    #: computed attributes that a move (a new ``address``) changes
    MOVED = ('static',) + tuple(k for k in _SUBNET_FACTS if k not in ('static', 'created_at', 'expires_at'))

    @staticmethod
    def _dual(state):
        return state.get('family') == 'dual'

    @staticmethod
    def _who(state):
        return '%s/%s/%s' % (known(state.get('pool')), known(state.get('owner')), known(state.get('key')))

    def _namespace(self, state):
        return known(state.get('namespace')) or self.provider.namespace

    def _state(self, found, planned):
        """The new state: ``planned`` with the store's reservation filling what it left unknown; ``found`` is
        ``(reservation, IPv6 reservation of family dual or None)``."""
        r, r6 = found
        state = dict(self.blank(), **planned)
        state.update(facts(r, r6))
        state.update(id=reservation_id(r), namespace=r['namespace'], key=r['key'])
        if known(planned.get('address')) is None or not same_address(planned['address'], r['address']):
            state['address'] = r['address']
        if known(planned.get('metadata')) is None or not same_metadata(planned['metadata'], r['metadata'],
                                                                       api.reservation_metadata):
            state['metadata'] = strings(r['metadata'])
        return state

    def _reserve(self, service, planned, address, from_plan=False, probe=None):
        """The reservation the resource's values ``planned`` ask for, at ``address`` (``from_plan``: an address its
        plan took), as netpool.ipam.reservation's options ask for one: ``(reservation, IPv6 reservation or
        None)``."""
        request = api.ReservationRequest.from_options({
            'pool': planned['pool'], 'owner': planned['owner'], 'key': known(planned.get('key')) or 'default',
            'namespace': self._namespace(planned), 'address': address, 'family': planned.get('family'),
            'metadata': known(planned.get('metadata')), 'ttl': planned.get('ttl'),
            'force': bool(planned.get('force')), 'align_with': planned.get('align_with'), 'planned': from_plan})
        result = service.reserve(request.replace(probe=probe))
        return result['reservation'], result.get('reservation6')

    @staticmethod
    def _probing(state):
        """Whether ``state`` asks for a probe (its address is then chosen at apply, and probed)."""
        return known(state.get('probe')) not in (None, 'none')

    @staticmethod
    def _probe(state):
        """The probe ``state`` asks for (``api.probe_request``), or None."""
        number = dict((k, None if known(state.get(k)) is None else int(state[k])) for k in ('probe_timeout',
                                                                                            'probe_tries'))
        return api.probe_request(known(state.get('probe')), number['probe_timeout'], number['probe_tries'])

    def _ident(self, state):
        """``(namespace, pool, owner, key, family)`` of a reservation of one family whose values are known, else
        None: what ``_planning`` plans for."""
        if self.provider.params is None:
            return None
        ident = (self._namespace(state), known(state.get('pool')), known(state.get('owner')),
                 known(state.get('key')) or 'default', state.get('family'))
        if None in ident[:4] or unknown(ident[4]) or ident[4] == 'dual':
            return None
        return ident

    def create(self, ctx, planned):
        """The reservation: exactly the address planned for it (``static`` false) when the plan planned one, as a
        dynamic one would be; else as asked (``address``, or allocated now)."""
        address = known(planned.get('address')) if planned.get('align_with') is None else None
        from_plan = address is not None and planned.get('static') is False
        ident = self._ident(planned)

        def work(service):
            wanted, from_planner, probe = address, from_plan, self._probe(planned)
            if address is None and planned.get('align_with') is None and ident is not None and probe is None:
                try:        # planned none: never an address this apply planned for another (_planning)
                    found = self.provider.planner.unplanned(service, ident)
                except NoneLeft as e:
                    raise api.PoolExhausted(str(e))
                if found is not None:
                    wanted, from_planner = found['address'], True
            try:
                found = self._reserve(service, planned, wanted, from_planner, probe)
            except (api.AddressInUse, api.AddressExcluded, api.InvalidArgument) as e:
                if not from_plan:
                    raise
                self.provider.planner.applied(ident)
                raise type(e)('%s %s' % (e.msg, plan_again(self._who(planned))), **e.details)
            if from_plan and ident is not None:
                self.provider.planner.applied(ident)
            return self._state(found, planned)
        return self.run(ctx, 'reserve %s' % self._who(planned), work, writes=True)

    def plan_create(self, ctx, config, planned):
        """A new reservation (``_servicer``): its address and its subnet's facts planned from the store
        (``_planning``), which the plan only reads. Left unknown until apply: a static ``address`` (as given), an
        address of ``family = "dual"``, a pool the store does not have yet (created by this plan), values not
        known yet, a pool with no free address (the apply says why)."""
        try:
            ident = self._ident(planned)
            if ident is None or config.get('address') is not None or self._probing(planned):
                return planned      # a probed address is chosen (and probed) at apply
            if planned.get('align_with') is not None:
                return self._plan_aligned(ctx, planned, ident)

            def work(service):
                try:
                    return self.provider.planner.plan(service, ident)
                except api.PoolNotFound:
                    return None
                except PlannedAddressTaken as e:
                    raise self._taken(e, ident)
            found = self.run(ctx, 'plan reservation %s' % self._who(planned), work)
            if found is not None:
                planned.update(dict((k, found[k]) for k in self.MOVED), address=found['address'],
                               id='/'.join(ident[:4]), namespace=ident[0], key=ident[3],
                               **dict((k, None) for k in _DUAL_FACTS))
        except Exception as e:  # pylint: disable=broad-except
            add_failure(ctx.diagnostics, 'plan reservation %s' % self._who(planned), e, self.provider.params)
        return planned

    def _plan_aligned(self, ctx, planned, ident):
        """A new reservation with ``align_with``: the aligned address when the owner holds its address in that
        pool already (``api.aligned``, which only reads), else left unknown: the apply reserves with
        ``align_with``, after the reservations it depends on. Not through the planner: the aligned address is
        the owner's own, whatever else is planned."""
        if unknown(planned['align_with']):
            return planned

        def work(service):
            try:
                return api.aligned(service, ident[1], ident[2], ident[3], ident[0], ident[4], planned['align_with'])
            except api.PoolNotFound:
                return None
        found = self.run(ctx, 'plan reservation %s' % self._who(planned), work)
        if found is not None:
            planned.update(dict((k, found[k]) for k in self.MOVED), address=found['address'],
                           id='/'.join(ident[:4]), namespace=ident[0], key=ident[3],
                           **dict((k, None) for k in _DUAL_FACTS))
        return planned

    def _taken(self, e, ident):
        """The failure of a plan whose address, planned earlier, is no longer free (``PlannedAddressTaken``)."""
        who = '%s/%s/%s' % (ident[1], ident[2], ident[3])
        again = plan_again(who)
        h = e.holder
        if h is None:
            return api.AddressExcluded("%s, planned for %s, is no longer free in pool '%s' (an exclusion, a change "
                                       "of ranges or a reuse delay since it was planned). %s"
                                       % (e.address, who, ident[1], again))
        if (h['owner'], h['key']) == (ident[2], ident[3]):
            return api.InvalidArgument('%s was planned for %s, which holds %s now. %s'
                                       % (e.address, who, h['address'], again))
        return api.AddressInUse("%s, planned for %s, is held by owner '%s' key '%s' in pool '%s' since it was "
                                "planned. %s" % (e.address, who, h['owner'], h['key'], h['pool'], again),
                                holder={'pool': h['pool'], 'owner': h['owner'], 'key': h['key']})

    def read(self, ctx, current):
        """The reservation as the store holds it, from what this process read of its namespace (``_snapshot``)."""
        namespace = current['namespace']
        found = self.provider.snapshot.reservations(namespace, lambda: self.run(
            ctx, 'read reservation %s' % self._who(current), lambda service: service.reservations(namespace)))
        if found is None:       # the store failed: the diagnostic says why
            return None
        r = held(found.get((current['pool'], current['owner'], current['key']), ()), current.get('family'))
        if r[0] is None:
            return None
        return self._state(r, dict(self.blank(), **current))

    def plan(self, ctx, current, planned):
        """An update: what the store will compute anew is unknown until apply."""
        try:
            return self._plan(current, planned)
        except Exception as e:  # pylint: disable=broad-except
            add_failure(ctx.diagnostics, 'plan reservation %s' % self._who(current or {}), e, self.provider.params)
            return planned

    def _plan(self, current, planned):
        ident = self._ident(current) if current is not None else None
        if ident is not None:       # a replacement plans the new one next: its address goes (_planning)
            self.provider.planner.replacing.add(ident)
        if current is not None and not same_address(current.get('address'), known(planned.get('address'))):
            for name in self.MOVED:
                planned[name] = Unknown
        if current is not None and current.get('ttl') != planned.get('ttl'):
            planned['expires_at'] = Unknown
        if current is None and self._dual(planned):
            for name in _DUAL_FACTS:
                planned[name] = Unknown
        return planned

    def update(self, ctx, current, planned):
        address = known(planned.get('address'))
        if same_address(address, current.get('address')):
            address = None          # the address it holds: nothing to move
        return self.run(ctx, 'update reservation %s' % self._who(current), lambda service: self._state(
            self._reserve(service, planned, address), planned), writes=True)

    def delete(self, ctx, current):
        self.run(ctx, 'release reservation %s' % self._who(current), lambda service: service.release(
            current['namespace'], pool=current['pool'], owner=current['owner'], key=current['key'],
            family=current.get('family')), writes=True)

    def import_(self, ctx, id):     # pylint: disable=redefined-builtin
        def work(service):
            wanted = parse_id(id, ('namespace', 'pool', 'owner', 'key'), 'namespace/pool/owner/key')
            r = service.get(wanted['pool'], wanted['owner'], wanted['key'], namespace=wanted['namespace'])
            if r is None:
                raise NotReserved("Owner '%s' holds no address under key '%s' in pool '%s' (namespace '%s'): "
                                  "nothing to import." % (wanted['owner'], wanted['key'], wanted['pool'],
                                                          wanted['namespace']))
            # an owner and key that hold one address of each family were reserved with family = "dual"
            pair = get(service, wanted['pool'], wanted['owner'], wanted['key'], wanted['namespace'], 'dual')
            if pair[0] is not None:
                return self._state(pair, dict(wanted, family='dual'))
            return self._state((r, None), dict(wanted))
        return self.run(ctx, 'import reservation %s' % id, work)


_SUBNET_INPUT = Object(dict(cidr=String(), gateway=String(), dns=List(String()), ranges=List(String()),
                            exclude=List(String())), optional=('gateway', 'dns', 'ranges', 'exclude'))


def subnets_of(pool):
    """A pool's subnets as a configuration would most simply give them: what is the default (no gateway, no
    dns, no exclusions, ranges that are the subnet's usable hosts) left out, as after an import."""
    found = []
    for s in pool['subnets']:
        implicit = api.default_ranges(s['cidr'])
        found.append(dict(cidr=s['cidr'], gateway=s['gateway'], dns=s['dns'] or None,
                          ranges=None if s['ranges'] == implicit else s['ranges'], exclude=s['exclude'] or None))
    return found


def held_ranges(pool):
    """The ranges a child by ranges holds (pool dict ``pool``), in subnet order, as the store reports them."""
    return [r for s in pool['subnets'] for r in s['ranges']]


def same_ranges(given, held):
    """True when the range specs ``given`` (the configuration's) are the ranges ``held``: the same addresses,
    however spelled (``10.0.0.7`` and ``10.0.0.7-10.0.0.7``, one range or two adjacent ones)."""
    def spans(specs):
        try:
            found = [api.parse_range(spec) for spec in specs or []]
        except (ValueError, TypeError):
            return None
        return sorted((v, a, b) for v in set(f[0] for f in found)
                      for a, b in api.merge_intervals([(x, y) for w, x, y in found if w == v]))
    return given is not None and spans(given) is not None and spans(given) == spans(held)


class Pool(Base, iface.Resource):
    """``netpool_pool``: a named set of subnets, or a child pool carved from a parent."""

    NAME = 'pool'

    DESCRIPTION = 'A netpool pool: the same pool the netpool.ipam Ansible modules see.'
    ATTRIBUTES = dict([
        ('id', (String(), _COMPUTED, '`namespace/name`.')),
        ('namespace', (String(), dict(optional=True, computed=True, requires_replace=True), _NAMESPACE)),
        ('name', (String(), _REPLACE, 'The name of the pool, unique in its namespace.')),
        ('subnets', (List(_SUBNET_INPUT), _CHOSEN,
                     'The subnets, each with `cidr` and optionally `gateway`, `dns`, `ranges` (allocatable; default: '
                     'every usable address) and `exclude`. For a child pool, the carved subnet (computed); for a '
                     'child by ranges, its parent\'s subnets with its ranges and the parent\'s gateway and dns.')),
        ('parent', (String(), dict(optional=True, requires_replace=True),
                    'Carve this pool out of that pool (with `prefix_length`), or make it a child holding some '
                    'ranges of that pool (with `ranges`).')),
        ('prefix_length', (Number(), dict(optional=True, requires_replace=True),
                           'The size of the prefix carved from `parent`.')),
        ('ranges', (List(String()), _OPTIONAL,
                    'With `parent` instead of `prefix_length`: the ranges of the parent\'s subnets this child holds, '
                    'exactly (VIPs `10.0.0.240-10.0.0.250` beside nodes in one /24). A change resizes the child in '
                    'place, under the rules of the netpool.ipam.pool module (an address held outside the new ranges '
                    'fails with pool_in_use, unless `force`).')),
        ('strategy', (String(), _CHOSEN, '`first` (lowest free address, the default) or `random`.')),
        ('reuse_delay', (String(), _CHOSEN, 'How long a released address rests before it is handed out again: '
                                            'seconds or `30m`, `12h`, `7d` (default 0).')),
        ('description', (String(), _CHOSEN, 'Free text.')),
        ('metadata', (Map(String()), _CHOSEN, 'Free facts (`domain` for DNS publishing).')),
        ('force', (Bool(), _OPTIONAL, 'Let a change or a destroy release the reservations it leaves outside '
                                      'the pool (else it fails with pool_in_use).')),
    ])

    CHECKS = dict(_names('namespace', 'name', 'parent'), strategy=_one_of(api.STRATEGIES, 'strategy'),
                  reuse_delay=lambda value: api.parse_duration(value, 'reuse_delay'),
                  metadata=_metadata_check(api.pool_metadata))

    def _namespace(self, state):
        return known(state.get('namespace')) or self.provider.namespace

    def _state(self, pool, planned):
        """The new state: ``planned`` with the store's pool dict ``pool`` filling what it left unknown."""
        state = dict(self.blank(), **planned)
        store = dict(id='%s/%s' % (pool['namespace'], pool['name']), namespace=pool['namespace'],
                     subnets=subnets_of(pool), strategy=pool['strategy'], reuse_delay=str(pool['reuse_delay']),
                     description=pool['description'], metadata=strings(pool['metadata']))
        for name, value in store.items():
            if known(state.get(name)) is None:
                state[name] = value
        return state

    def _declare(self, service, planned, check=False):
        """The pool the resource's values ``planned`` declare, as netpool.ipam.pool's options declare one."""
        prefix_length = known(planned.get('prefix_length'))
        return service.pool(api.PoolRequest.from_options({
            'name': planned['name'], 'namespace': self._namespace(planned), 'subnets': known(planned.get('subnets')),
            'parent': planned.get('parent'), 'prefix_length': None if prefix_length is None else int(prefix_length),
            'ranges': known(planned.get('ranges')), 'strategy': known(planned.get('strategy')),
            'reuse_delay': known(planned.get('reuse_delay')), 'description': known(planned.get('description')),
            'metadata': known(planned.get('metadata')), 'force': bool(planned.get('force'))}, check))

    def plan(self, ctx, current, planned):
        """An update: new ranges of a child by ranges give it other subnets, known after apply."""
        try:
            if current is not None and current.get('ranges') != planned.get('ranges'):
                planned['subnets'] = Unknown
        except Exception as e:  # pylint: disable=broad-except
            add_failure(ctx.diagnostics, 'plan pool %s' % (current or {}).get('name'), e, self.provider.params)
        return planned

    def _writes(self, namespace):
        """This process writes a pool of ``namespace`` (``Planner.pool_written``)."""
        if self.provider.planner is not None:
            self.provider.planner.pool_written(namespace)

    def create(self, ctx, planned):
        self._writes(self._namespace(planned))
        return self.run(ctx, 'create pool %s' % planned['name'],
                        lambda service: self._state(self._declare(service, planned)['pool'], planned), writes=True)

    def update(self, ctx, current, planned):
        self._writes(self._namespace(planned))
        return self.run(ctx, 'update pool %s' % planned['name'],
                        lambda service: self._state(self._declare(service, planned)['pool'], planned), writes=True)

    def read(self, ctx, current):
        def work(service):
            try:
                pool = service.info(current['namespace'], pool=current['name'])['pools'][0]
            except api.PoolNotFound:
                return None
            state = dict(self.blank(), **current)
            drift = dict(parent=pool['parent'], strategy=pool['strategy'], description=pool['description'])
            if state.get('metadata') is None or not same_metadata(state['metadata'], pool['metadata'],
                                                                  api.pool_metadata):
                drift['metadata'] = strings(pool['metadata'])
            for name, value in drift.items():
                if state.get(name) != value:
                    state[name] = value
            try:
                if api.parse_duration(state.get('reuse_delay') or 0, 'reuse_delay') != pool['reuse_delay']:
                    state['reuse_delay'] = str(pool['reuse_delay'])
            except api.IpamError:
                state['reuse_delay'] = str(pool['reuse_delay'])
            if pool['by_ranges'] and not same_ranges(state.get('ranges'), held_ranges(pool)):
                state['ranges'] = held_ranges(pool)
            if pool['parent'] is not None or state.get('subnets') is None:
                state['subnets'] = subnets_of(pool)
            elif not self._same_subnets(service, state):
                state['subnets'] = subnets_of(pool)
            return self._state(pool, state)
        return self.run(ctx, 'read pool %s' % current['name'], work)

    def _same_subnets(self, service, state):
        """True when the state's subnets are what the store has, by the service's rules (check mode)."""
        try:
            return not service.pool(api.PoolRequest.from_options({
                'name': state['name'], 'namespace': state['namespace'], 'subnets': state['subnets']}, True))['changed']
        except api.IpamError:
            return False

    def delete(self, ctx, current):
        self._writes(current['namespace'])

        def work(service):
            return service.pool(api.PoolRequest.from_options({
                'name': current['name'], 'namespace': current['namespace'], 'state': 'absent',
                'force': bool(current.get('force'))}))
        self.run(ctx, 'delete pool %s' % current['name'], work, writes=True)

    def import_(self, ctx, id):     # pylint: disable=redefined-builtin
        def work(service):
            wanted = parse_id(id, ('namespace', 'name'), 'namespace/name')
            pool = service.info(wanted['namespace'], pool=wanted['name'])['pools'][0]
            carved = ranges = None
            if pool['by_ranges']:               # a child by ranges: the ranges it holds
                ranges = held_ranges(pool)
            elif pool['parent'] is not None:    # a child pool: the prefix length it was carved with
                carved = int(pool['subnets'][0]['cidr'].split('/')[1])
            return self._state(pool, dict(wanted, parent=pool['parent'], prefix_length=carved, ranges=ranges))
        return self.run(ctx, 'import pool %s' % id, work)


class ReservationData(Base, iface.DataSource):
    """Data source ``netpool_reservation``: a reservation that exists (made by Terraform or by Ansible)."""

    NAME = 'reservation'

    DESCRIPTION = 'Reads a reservation of a netpool pool; fails with not_reserved when there is none.'
    ATTRIBUTES = dict([
        ('id', (String(), _COMPUTED, '`namespace/pool/owner/key`.')),
        ('namespace', (String(), _CHOSEN, _NAMESPACE)),
        ('pool', (String(), _REQUIRED, 'The pool.')),
        ('owner', (String(), _REQUIRED, 'The owner.')),
        ('key', (String(), _CHOSEN, 'The key (default `default`).')),
        ('family', (String(), _OPTIONAL, '`ipv4` or `ipv6`: the address of that family the owner holds under the '
                                         'key; `dual`: both (`address6`, `cidr6`, `gateway6` the IPv6 one). Not '
                                         'given: the one it holds (the IPv4 one where it holds one of each).')),
        ('address', (String(), _COMPUTED, 'The address.')),
        ('metadata', (Map(String()), _COMPUTED, 'Its metadata.')),
    ] + list(_SUBNET_FACTS.items()) + list(_DUAL_FACTS.items()))

    CHECKS = dict(family=_one_of(_FAMILY_CHOICES, 'family'))

    def read(self, ctx, config):
        def work(service):
            namespace = config.get('namespace') or self.provider.namespace
            key = config.get('key') or 'default'
            r, r6 = get(service, config['pool'], config['owner'], key, namespace, config.get('family'))
            if r is None:
                raise NotReserved(
                    "Owner '%s' holds no %saddress under key '%s' in pool '%s' (namespace '%s'). Reserve one with "
                    "resource netpool_reservation or the netpool.ipam.reservation module."
                    % (config['owner'], {'ipv4': 'IPv4 ', 'ipv6': 'IPv6 ', 'dual': 'IPv4 and IPv6 '}.get(
                        config.get('family'), ''), key, config['pool'], namespace))
            state = dict(self.blank(), **config)
            state.update(facts(r, r6), id=reservation_id(r), namespace=namespace, key=key, address=r['address'],
                         metadata=strings(r['metadata']))
            return state
        return self.run(ctx, 'read reservation %s/%s' % (config.get('pool'), config.get('owner')), work)


_SUBNET_READ = Object(dict(cidr=String(), gateway=String(), dns=List(String()), ranges=List(String()),
                           exclude=List(String()), size=Number(), used=Number(), free=Number()))


class PoolData(Base, iface.DataSource):
    """Data source ``netpool_pool``: a pool with its figures."""

    NAME = 'pool'

    DESCRIPTION = 'Reads a netpool pool with its figures (size, used, free).'
    ATTRIBUTES = dict([
        ('id', (String(), _COMPUTED, '`namespace/name`.')),
        ('namespace', (String(), _CHOSEN, _NAMESPACE)),
        ('name', (String(), _REQUIRED, 'The pool.')),
        ('subnets', (List(_SUBNET_READ), _COMPUTED, 'Its subnets: merged ranges and exclusions, and figures.')),
        ('parent', (String(), _COMPUTED, 'The pool it was carved from, or null.')),
        ('by_ranges', (Bool(), _COMPUTED, 'True for a child pool by ranges (it holds the `ranges` of its '
                                          'subnets, on its parent\'s subnets).')),
        ('children', (List(String()), _COMPUTED, 'The pools carved from it.')),
        ('strategy', (String(), _COMPUTED, '`first` or `random`.')),
        ('reuse_delay', (Number(), _COMPUTED, 'Seconds a released address rests.')),
        ('description', (String(), _COMPUTED, 'Free text.')),
        ('metadata', (Map(String()), _COMPUTED, 'Free facts.')),
        ('size', (Number(), _COMPUTED, 'Addresses dynamic allocation may hand out.')),
        ('used', (Number(), _COMPUTED, 'Addresses held.')),
        ('free', (Number(), _COMPUTED, 'Addresses free now.')),
    ])

    def read(self, ctx, config):
        def work(service):
            namespace = config.get('namespace') or self.provider.namespace
            pool = service.info(namespace, pool=config['name'])['pools'][0]
            state = dict(self.blank(), **config)
            state.update((k, pool[k]) for k in ('parent', 'by_ranges', 'children', 'strategy', 'reuse_delay',
                                                'description', 'size', 'used', 'free'))
            state.update(id='%s/%s' % (namespace, pool['name']), namespace=namespace,
                         metadata=strings(pool['metadata']),
                         subnets=[dict((k, s[k]) for k in _SUBNET_READ.attributes) for s in pool['subnets']])
            return state
        return self.run(ctx, 'read pool %s' % config.get('name'), work)
