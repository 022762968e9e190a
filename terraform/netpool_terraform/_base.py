# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the provider, its resources and its data sources share: Terraform values (``Object``, ``unknown``,
``known``, ``strings``), the diagnostics of a failure (``add_failure``, ``add_bug``), the collection's service
(``runner``) and ``Base``, the class of every resource and data source.

Both ``provider`` and ``resources`` import this module, and ``provider`` imports ``resources``: nothing here
imports either, so the package has no import loop.
"""

import importlib
import json
import traceback

import msgpack
from tf.schema import Attribute, Schema
from tf.types import TfType, Unknown

from netpool_terraform import _collection

_collection.ensure()

# pylint: disable=wrong-import-position
from ansible_collections.netpool.ipam.plugins.module_utils import _secrets  # noqa: E402
from ansible_collections.netpool.ipam.plugins.module_utils._errors import IpamError  # noqa: E402

ISSUES = 'https://github.com/netpool/ipam/issues'


def runner():
    """The collection's ``_runner`` module (the service over a store), imported at its first use.

    Terraform starts the provider 3 to 5 times for one command, and most of those processes never touch the
    store: one answers the schema, one validates the configuration. The service, the stores and what they import
    are a third of a start's own time, paid only by a process that reads, writes or plans a new reservation
    (its address is read from the store).
    """
    return importlib.import_module('ansible_collections.netpool.ipam.plugins.module_utils._runner')


class Object(TfType):
    """A Terraform object type (the ``tf`` framework has none): ``attributes`` maps names to types; those in
    ``optional`` may be left out of a configuration (Terraform sets them null)."""

    def __init__(self, attributes, optional=()):
        self.attributes = attributes
        self.optional = sorted(optional)

    def encode(self, value):
        if value is None or unknown(value):
            return value
        return dict((k, t.encode(value.get(k))) for k, t in self.attributes.items())

    def decode(self, value):
        if value is None or unknown(value):
            return value
        return dict((k, t.decode(value.get(k))) for k, t in self.attributes.items())

    def tf_type(self):
        kind = ['object', dict((k, json.loads(t.tf_type())) for k, t in self.attributes.items())]
        if self.optional:
            kind.append(self.optional)
        return json.dumps(kind, separators=(',', ':')).encode()


def unknown(value):
    """True for a value Terraform does not know yet: the framework's ``Unknown``, or an unknown value with
    refinements (Terraform 1.6+ sends those as msgpack extension 12, which the framework passes on as is)."""
    return value is Unknown or isinstance(value, msgpack.ExtType)


def known(value):
    """``value``, or None when Terraform does not know it yet."""
    return None if unknown(value) else value


def strings(mapping):
    """A metadata dict as Terraform holds it (map of strings): numbers and booleans written as HCL writes them."""
    if mapping is None:
        return None
    return dict((k, json.dumps(v) if isinstance(v, bool) else str(v)) for k, v in mapping.items())


def add_failure(diags, summary, error, params):
    """An error diagnostic for ``IpamError`` ``error``: the summary names what failed and the SPEC code."""
    failure = runner().failure(error, dict((k, v) for k, v in params.items() if not unknown(v)))
    diags.add_error('%s (error %s)' % (summary, failure['error']), failure['msg'])


def add_bug(diags, doing, error, params):
    """An ``internal_error`` diagnostic for an exception that is not an ``IpamError``: a bug, with its traceback."""
    hidden = _secrets.find(dict((k, v) for k, v in (params or {}).items() if not unknown(v)))
    trace = ''.join(traceback.format_exception(type(error), error, error.__traceback__))
    diags.add_error(
        'Cannot %s (error internal_error)' % doing,
        _secrets.hide('The netpool provider failed unexpectedly (%s: %s). This is a bug in the provider, not in your '
                      'configuration: please report it at %s with this message.\n\n%s'
                      % (type(error).__name__, error, ISSUES, trace), hidden))


class Base(object):
    """What the resources and data sources of this provider share: ``self.provider`` runs their work."""

    #: the type name without the provider's prefix
    NAME = None
    #: name -> (type, Attribute keyword arguments, description)
    ATTRIBUTES = {}
    DESCRIPTION = ''

    def __init__(self, provider):
        self.provider = provider

    @classmethod
    def get_name(cls):
        return cls.NAME

    @classmethod
    def get_schema(cls):
        attributes = [Attribute(name, kind, description=doc, **flags) for name, (kind, flags, doc) in cls.ATTRIBUTES.items()]
        return Schema(version=0, attributes=attributes, description=cls.DESCRIPTION)

    @classmethod
    def blank(cls):
        """A state with every attribute null: a state must name them all."""
        return dict((name, None) for name in cls.ATTRIBUTES)

    #: attribute -> a function that raises ``IpamError`` for a value the service would refuse: checked at plan
    CHECKS = {}

    def validate(self, diags, type_name, config):
        """The framework's checks, then ``CHECKS`` on the values known: an error at plan time, not at apply."""
        try:
            super(Base, self).validate(diags, type_name, config)   # pylint: disable=no-member
            for name, check in self.CHECKS.items():
                value = config.get(name)
                if value is None or unknown(value):
                    continue
                try:
                    check(value)
                except IpamError as e:
                    diags.add_error('Invalid %s of %s (error %s)' % (name, type_name, e.code), e.msg, path=[name])
        except Exception as e:  # pylint: disable=broad-except
            add_bug(diags, 'validate %s' % type_name, e, None)

    def run(self, ctx, doing, work, writes=False):
        """``work(service)`` in the provider's store thread (``NetpoolProvider.run``); ``writes``: it changes the
        store, so the reservations this process read are read again after it (``_snapshot``)."""
        return self.provider.run(ctx.diagnostics, doing, work, writes)

    def upgrade(self, ctx, version, old):
        """Schema version 0 is the only one: nothing to upgrade (the framework's default warns on every plan)."""
        return old
