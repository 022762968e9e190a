# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a task asks of the service, as one object: a reservation, a pool, a read.

This is a private module: it may change at any time.

Every entry point builds its request with one parser, ``from_options``, from the options of the module of that
name (``netpool.ipam.reservation``, ``pool``, ``info``): the module and the reserve role (whose variables become
the reservation module's options, plugin_utils/_reserve.py) through the runner, the lookup from its terms, the
Terraform provider from a resource's values (through ``api``). The service takes the request whole
(``Service.reserve``, ``Service.pool``, ``Service.info``): a new option is a field here, its check in
``_checks``, and the rule that reads it.

A request is a plain value: its fields (``FIELDS``: name and default) are attributes, ``replace`` gives a copy
with some changed, and an unknown field is a ``TypeError``, as a misspelled keyword argument is. ``checked()``
runs the checks of input of docs/design.md#errors in the order the service always ran them, and gives the
request the service works on.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument

#: the pool module's one-subnet shorthand: these top-level options become ``subnets[0]``
SHORTHAND = ('cidr', 'gateway', 'dns', 'ranges', 'exclude')


class Request(object):
    """A value with named fields (``FIELDS``: ``(name, default)``), each an attribute."""

    FIELDS = ()

    def __init__(self, **fields):
        names = [name for name, _default in self.FIELDS]
        unknown = sorted(set(fields) - set(names))
        if unknown:
            raise TypeError('%s has no field %s (its fields: %s)'
                            % (type(self).__name__, ', '.join(unknown), ', '.join(names)))
        for name, default in self.FIELDS:
            setattr(self, name, fields.get(name, default))

    def fields(self):
        """``{name: value}`` of every field."""
        return dict((name, getattr(self, name)) for name, _default in self.FIELDS)

    def replace(self, **changes):
        """A copy with ``changes`` (field: value)."""
        return type(self)(**dict(self.fields(), **changes))

    def __eq__(self, other):
        return type(other) is type(self) and other.fields() == self.fields()

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, ', '.join('%s=%r' % (name, getattr(self, name))
                                                          for name, _default in self.FIELDS))

    @classmethod
    def of(cls, first, options, name):
        """``first`` when it is a request of this kind already (and ``options`` empty), else one with ``first``
        as its field ``name`` and ``options`` as the others: what ``Service.reserve('lan', 'web1', key='mgmt')``
        and ``Service.reserve(request)`` both become."""
        if isinstance(first, cls):
            if options:
                raise TypeError('a %s is given whole: %s are its fields' % (cls.__name__, ', '.join(sorted(options))))
            return first
        return cls(**dict(options, **{name: first}))


class ReservationRequest(Request):
    """A reservation task (``state: present`` of netpool.ipam.reservation): ``owner`` (one) or ``owners`` (a batch:
    each an owner, or ``{owner, address, metadata}``), in ``pool``, under ``key``. ``planned``: ``address`` is one a
    plan took from ``free_addresses`` (the Terraform provider; ``Service.reserve``). ``probe``: None, a
    ``_probe.Probe``, or the checked ``(method, timeout, tries)`` of the ``probe`` options (a new probe for each
    task it runs)."""

    FIELDS = (('pool', None), ('owner', None), ('owners', None), ('key', 'default'), ('namespace', 'default'),
              ('address', None), ('family', None), ('metadata', None), ('ttl', None), ('force', False),
              ('reassign', False), ('check', False), ('align_with', None), ('planned', False), ('probe', None))

    @classmethod
    def from_options(cls, options, check=False):
        """The request of netpool.ipam.reservation's ``options`` (a module's validated parameters, or what a
        caller gives of them: a missing one is its default); ``check``: check mode."""
        p = dict((name, value) for name, value in options.items() if value is not None)
        return cls(pool=p.get('pool'), owner=p.get('owner') if p.get('owners') is None else None,
                   owners=p.get('owners'), key=p.get('key', 'default'), namespace=p.get('namespace', 'default'),
                   address=p.get('address'), family=p.get('family'), metadata=p.get('metadata'), ttl=p.get('ttl'),
                   force=p.get('force', False), reassign=p.get('reassign', False), check=check,
                   align_with=p.get('align_with'), planned=p.get('planned', False),
                   probe=_checks.probe_options(p.get('probe'), p.get('probe_timeout'), p.get('probe_tries')))

    @property
    def batch(self):
        """Whether this is a batch (``owners``: its result lists ``reservations``)."""
        return self.owners is not None

    def checked(self):
        """The request checked (docs/design.md#errors: ``invalid_argument`` naming what is wrong), as the service
        works on it: ``Checked``, with ``asked`` (``(owner, (version, n) or None, metadata)`` for each owner, in
        list order), ``version`` (4, 6, or None: any; None with ``dual``), ``dual`` and ``ttl`` in seconds."""
        asked = _checks.owner_requests(self.owners, self.address, self.metadata) if self.batch \
            else [(self.owner, self.address, self.metadata)]
        if self.planned and (self.address is None or self.force or self.reassign or self.align_with is not None):
            raise InvalidArgument('planned takes an address that free_addresses gave, without force, reassign or '
                                  'align_with.')
        if self.align_with is None or not self.batch:
            dual = _checks.family(self.family, dual=True) == _checks.DUAL
        if self.align_with is not None:
            _checks.align_arguments(self.pool, self.align_with, asked, self.force, self.reassign)
            dual = _checks.family(self.family, dual=True) == _checks.DUAL
        reassign = self.reassign if self.align_with is None else False
        version = None
        if dual:
            ttl, asked = _checks.dual_arguments(self.namespace, self.pool, asked, self.key, self.ttl, reassign)
        else:
            version, ttl, asked = _checks.reserve_arguments(self.namespace, self.pool, asked, self.key, self.family,
                                                            self.ttl, reassign)
        return Checked(self.replace(ttl=ttl), asked, version, dual)


class Checked(object):
    """A ``ReservationRequest`` after its checks (``ReservationRequest.checked``): its fields, and ``asked``,
    ``version`` and ``dual``."""

    def __init__(self, request, asked, version, dual):
        self.request, self.asked, self.version, self.dual = request, asked, version, dual

    def __getattr__(self, name):
        if name == 'request':       # asked before __init__ set it (a copy being made): not a field
            raise AttributeError(name)
        return getattr(self.request, name)

    @property
    def owners_asked(self):
        """The owners of the task, in list order."""
        return [owner for owner, _address, _metadata in self.asked]


class PoolRequest(Request):
    """A pool task (netpool.ipam.pool): create, change (``state: present``) or delete (``absent``) pool ``name``.
    ``subnets``: the subnet specs (``Service.pool``); ``ranges`` without them: a child by ranges of ``parent``."""

    FIELDS = (('name', None), ('namespace', 'default'), ('state', 'present'), ('subnets', None), ('parent', None),
              ('prefix_length', None), ('strategy', None), ('reuse_delay', None), ('description', None),
              ('metadata', None), ('force', False), ('check', False), ('ranges', None))

    @classmethod
    def from_options(cls, options, check=False):
        """The request of netpool.ipam.pool's ``options`` (``subnets``, or the one-subnet shorthand ``cidr`` ...;
        ``ranges`` without ``cidr`` are a child's: the ranges of its parent's subnets it holds)."""
        p = dict((name, value) for name, value in options.items() if value is not None)
        return cls(name=p.get('name'), namespace=p.get('namespace', 'default'), state=p.get('state', 'present'),
                   subnets=pool_subnets(p), parent=p.get('parent'), prefix_length=p.get('prefix_length'),
                   strategy=p.get('strategy'), reuse_delay=p.get('reuse_delay'), description=p.get('description'),
                   metadata=p.get('metadata'), force=p.get('force', False), check=check,
                   ranges=p.get('ranges') if p.get('cidr') is None else None)

    def checked(self):
        """The request checked (``_checks.pool_arguments``), ``reuse_delay`` in seconds, ``metadata`` and
        ``ranges`` normalised."""
        reuse_delay, metadata, ranges = _checks.pool_arguments(self)
        return self.replace(reuse_delay=reuse_delay, metadata=metadata, ranges=ranges)


class InfoRequest(Request):
    """A read (netpool.ipam.info): what the filters select; ``verify`` (or ``repair``) also checks the store."""

    FIELDS = (('namespace', 'default'), ('pool', None), ('owner', None), ('key', None), ('address', None),
              ('history', False), ('map', False), ('verify', False), ('repair', False), ('check', False))

    @classmethod
    def from_options(cls, options, check=False):
        """The request of netpool.ipam.info's ``options``."""
        p = dict((name, value) for name, value in options.items() if value is not None)
        return cls(check=check, **dict((name, p[name]) for name, _default in cls.FIELDS
                                       if name in p and name != 'check'))

    @property
    def filters(self):
        """What the read selects, as ``Results.info`` takes it: ``(namespace, pool, owner, key, address, history,
        map)``."""
        return (self.namespace, self.pool, self.owner, self.key, self.address, self.history, self.map)


def pool_subnets(options):
    """``subnets`` from the pool module's options, turning the one-subnet shorthand into a list; None when the
    options give no subnet."""
    if options.get('subnets') is not None:
        return [dict((k, v) for k, v in subnet.items() if v is not None) for subnet in options['subnets']]
    if options.get('cidr') is None:
        return None
    return [dict((k, options[k]) for k in SHORTHAND if options.get(k) is not None)]
