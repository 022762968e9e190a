# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The collection's programmatic entry point: what a program outside Ansible may use of netpool.ipam.

This module is public, unlike every other module of ``module_utils`` (their names start with ``_``: they may
change at any time). Its names (``__all__``) and what they do are covered by the collection's semantic
versioning: a name is removed or changes its meaning only in a new major version of the collection, and then
``API_VERSION`` grows by one. A name added in a minor version leaves ``API_VERSION`` as it is.

Its users: the Terraform provider (``terraform/netpool_terraform``, which finds this file and checks
``API_VERSION``: docs/developing.md, "The public entry point") and the scripts of ``tools/``. Nothing inside
``plugins/`` imports it: it sits above them all.

What it offers:

- running: ``run`` (a module's work, as a task), ``with_service`` (any work over the ``Service`` of a store),
  ``store_location``, ``pool_subnets``, and ``failure``, the failed result of any exception, written once for
  the modules, the plugins and the provider (``_runner.failure_of``);
- the errors a caller catches (``IpamError`` and the codes it tells apart);
- the checks of input: ``store_options``, ``check_name``, ``parse_duration``, ``FAMILIES``, ``STRATEGIES``,
  ``reservation_metadata``, ``pool_metadata``;
- addresses: ``parse_address``, ``parse_range``, ``merge_intervals``, ``default_ranges``;
- requests: ``ReservationRequest`` and ``PoolRequest``, each parsed from its module's options
  (``from_options``) and handed whole to ``Service.reserve`` / ``Service.pool``;
- reading a plan: ``aligned`` (the address ``align_with`` would give, read only);
- probing: ``probe_request`` (what ``reserve(probe=...)`` takes, from the ``probe`` options);
- stores: ``store_kind``, ``open_store``, ``redact``, ``export_document``, ``import_document``, ``merge_documents``,
  ``MergeRefused``, ``STORE_SCHEMA_VERSION``.

The ``Service`` that ``with_service`` hands its work is the collection's own: the methods a caller may use are
``pool``, ``range``, ``reserve``, ``release``, ``get``, ``info``, ``reservations``, ``free_addresses`` and
``returning``, with the arguments the modules give them (``reserve`` and ``pool`` take a request whole).

Importing this module imports neither the service nor the stores: the functions that need them import them at
their first call (Terraform starts its provider several times per command, and most starts never touch a
store).
"""

from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _align, _probe
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import (
    _checks, _intervals, _metadata, _model, _requests, _secrets)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressExcluded, AddressInUse, InvalidArgument, IpamError, PoolExhausted, PoolNotFound)
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _registry

#: the version of this entry point: one more at each change of a name or of what it does that is not an addition
API_VERSION = 1

# MergeRefused and STORE_SCHEMA_VERSION are given by __getattr__ (at the bottom), which pylint does not read
# pylint: disable=undefined-all-variable
__all__ = [
    'API_VERSION',
    # running
    'run', 'with_service', 'store_location', 'pool_subnets', 'failure',
    # errors
    'IpamError', 'InvalidArgument', 'PoolNotFound', 'AddressInUse', 'AddressExcluded', 'PoolExhausted',
    # checks of input
    'store_options', 'check_name', 'parse_duration', 'FAMILIES', 'STRATEGIES', 'reservation_metadata',
    'pool_metadata',
    # addresses
    'parse_address', 'parse_range', 'merge_intervals', 'default_ranges',
    # requests
    'ReservationRequest', 'PoolRequest',
    # reading a plan
    'aligned',
    # probing
    'probe_request', 'PROBE_METHODS',
    # stores
    'store_kind', 'open_store', 'redact', 'export_document', 'import_document', 'merge_documents', 'MergeRefused',
    'STORE_SCHEMA_VERSION',
]
# pylint: enable=undefined-all-variable


def _runner():
    """The runner (the service and the stores behind it), imported at its first use."""
    from ansible_collections.netpool.ipam.plugins.module_utils._task import _runner as runner  # pylint: disable=import-outside-toplevel
    return runner


# running


def run(name, params, check=False, diff=False, base_dir=None):
    """Run module ``name`` (``pool``, ``range``, ``reservation``, ``info``) with its options ``params`` as a task
    does; its result, or ``IpamError``."""
    return _runner().run(name, params, check=check, diff=diff, base_dir=base_dir)


def with_service(params, base_dir, work, must_exist=False):
    """``work(service)`` over the store that the store options ``params`` name (a relative path relative to
    ``base_dir``): its result. Retried from its start on a store that asks for it; a store file is created
    only if ``work`` changes something."""
    return _runner().with_service(params, base_dir, work, must_exist=must_exist)


def store_location(params, base_dir=None):
    """Where the store that ``params`` name is, as messages show it (a file's absolute path, a URL with its
    password masked)."""
    return _runner().store_location(params, base_dir)


def pool_subnets(params):
    """The ``subnets`` of the pool module's options (``params``) as ``Service.pool`` takes them."""
    return _requests.pool_subnets(params)


def failure(error, params, doing=None, who='netpool.ipam', report=None, base_dir=None):
    """The keys of a failed result (``failed``, ``error``, ``msg``, ``store``; ``exception`` for a bug) for any
    exception ``error`` raised while ``doing`` (``'reading pool web'``; default ``'reading the store'``), secrets
    of ``params`` hidden (None: no store named yet). An ``IpamError`` gives its code and message; any other
    exception is a bug: ``internal_error``, a message naming ``who`` failed and asking for a report (``report``:
    what the user is asked, after "This is a bug in netpool.ipam, not in your"; default: a task's), the traceback
    in ``exception``."""
    return _runner().failure_of(None, error, params, base_dir=base_dir, doing=doing, who=who, report=report)


# checks of input


def store_options():
    """The store options (``store``, ``store_token``, ``validate_certs``, ``timeout``, ``namespace``): name ->
    Ansible argument spec (``type``, ``default``, ``fallback`` with its environment variables, ``no_log``)."""
    from ansible_collections.netpool.ipam.plugins.module_utils._task import _options  # pylint: disable=import-outside-toplevel
    return _options.STORE_OPTIONS


check_name = _checks.check_name
parse_duration = _checks.parse_duration
#: the address families, name -> IP version
FAMILIES = _checks.FAMILIES
#: the allocation strategies of a pool
STRATEGIES = _checks.STRATEGIES
reservation_metadata = _metadata.reservation
pool_metadata = _metadata.pool

# addresses

parse_address = _intervals.parse_address
parse_range = _intervals.parse_range
merge_intervals = _intervals.merge


def default_ranges(cidr):
    """The ranges a subnet hands out when none are given: its usable addresses (``['10.0.0.1-10.0.0.254']``)."""
    return _model.Subnet(_intervals.parse_network(cidr)).to_data()['ranges']


# requests

#: a reservation task: ``ReservationRequest.from_options(options)`` from netpool.ipam.reservation's options
#: (``planned``, a Terraform plan's address, besides), ``replace(field=value)`` for a copy
ReservationRequest = _requests.ReservationRequest
#: a pool task: ``PoolRequest.from_options(options)`` from netpool.ipam.pool's options
PoolRequest = _requests.PoolRequest

# reading a plan

aligned = _align.aligned

# probing

#: what ``Service.reserve(probe=...)`` and ``reserve_owners(probe=...)`` take: ``probe_request(method, timeout_ms,
#: tries)``, None for ``none`` (``invalid_argument`` for a value out of range)
probe_request = _probe.request
#: the values of the ``probe`` option
PROBE_METHODS = _probe.METHODS

# stores

store_kind = _registry.store_kind
open_store = _registry.open_store
redact = _secrets.redact


def export_document(store):
    """The whole state of an open store (``open_store``) as one document: pools, reservations, resting addresses,
    history."""
    from ansible_collections.netpool.ipam.plugins.module_utils._maintenance import _transfer  # pylint: disable=import-outside-toplevel
    return _transfer.export_document(store)


def import_document(store, document, replace=False, check=False):
    """Write ``document`` (``export_document``'s) into an open store, in one transaction: ``changed`` and ``before``.
    A store that holds anything is refused unless ``replace``; ``check``: write nothing."""
    from ansible_collections.netpool.ipam.plugins.module_utils._maintenance import _transfer  # pylint: disable=import-outside-toplevel
    return _transfer.import_document(store, document, replace=replace, check=check)


def merge_documents(base, ours, theirs):
    """Three JSON store documents merged object by object: ``(text, conflicts)``; ``MergeRefused`` when the merge
    is a document the store would refuse to read."""
    from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json_document  # pylint: disable=import-outside-toplevel
    return _json_document.merge(base, ours, theirs)


def __getattr__(name):
    """What the JSON document and the store interface define, imported at their first use: ``MergeRefused``
    (the exception of ``merge_documents``: ``kind``, ``detail``) and ``STORE_SCHEMA_VERSION`` (the schema version
    of the documents ``export_document`` gives and the JSON store keeps)."""
    if name == 'MergeRefused':
        from ansible_collections.netpool.ipam.plugins.module_utils._stores import _json_document  # pylint: disable=import-outside-toplevel
        return _json_document.Refused
    if name == 'STORE_SCHEMA_VERSION':
        from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base  # pylint: disable=import-outside-toplevel
        return _base.SCHEMA_VERSION
    raise AttributeError('module %r has no attribute %r' % (__name__, name))
