# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the provider, its resources and its data sources share: the collection's public entry point (``api``),
Terraform values (``Object``, ``unknown``, ``known``, ``strings``), the diagnostic of a failure (``add_failure``)
and ``Base``, the class of every resource and data source.

Both ``provider`` and ``resources`` import this module, and ``provider`` imports ``resources``: nothing here
imports either, so the package has no import loop.
"""

import json

import msgpack
from tf.schema import Attribute, Schema
from tf.types import TfType, Unknown

from netpool_terraform import _collection

#: the collection's public entry point (``plugins/module_utils/api.py``), the provider's only way into it. It
#: imports the service and the stores at their first use (``api.with_service``): Terraform starts the provider 3
#: to 5 times for one command, and most of those processes never touch the store (one answers the schema, one
#: validates the configuration); the service, the stores and what they import are a third of a start's own time.
api = _collection.import_api()

ISSUES = 'https://github.com/netpool/ipam/issues'
#: what the message of a bug asks of a Terraform user, after "This is a bug in netpool.ipam, not in your"
REPORT = 'configuration: please report it at %s with this message' % ISSUES


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


def add_failure(diags, doing, error, params=None, summary=None):
    """An error diagnostic for any exception ``error`` raised while ``doing`` (``'reserve web/vm1/default'``), by
    the collection's one way to turn a failure into a result (``api.failure``), secrets of ``params`` (the store
    options; None: not configured yet) hidden. Its summary is ``summary`` (default ``Cannot <doing>``; always that
    for a bug) and the error code: an ``IpamError``'s (``(error pool_exhausted)``), else ``internal_error``, a
    bug, whose detail asks for a report and ends with the traceback."""
    known_params = None if params is None else dict((k, v) for k, v in params.items() if not unknown(v))
    failure = api.failure(error, known_params, 'trying to %s' % doing, who='The netpool Terraform provider',
                          report=REPORT)
    detail = failure['msg'] + ('\n\n%s' % failure['exception'] if failure.get('exception') else '')
    if failure.get('exception') or not summary:
        summary = 'Cannot %s' % doing
    diags.add_error('%s (error %s)' % (summary, failure['error']), detail)


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
        """The resource's schema, made once per class: the framework asks for it at every call it serves (a plan
        of 1,000 resources asked a thousand times, 26 attributes built each time)."""
        if '_schema' not in cls.__dict__:
            attributes = [Attribute(name, kind, description=doc, **flags)
                          for name, (kind, flags, doc) in cls.ATTRIBUTES.items()]
            cls._schema = Schema(version=0, attributes=attributes, description=cls.DESCRIPTION)
        return cls._schema

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
                except api.IpamError as e:
                    diags.add_error('Invalid %s of %s (error %s)' % (name, type_name, e.code), e.msg, path=[name])
        except Exception as e:  # pylint: disable=broad-except
            add_failure(diags, 'validate %s' % type_name, e, self.provider.params)

    def run(self, ctx, doing, work, writes=False):
        """``work(service)`` in the provider's store thread (``NetpoolProvider.run``); ``writes``: it changes the
        store, so the reservations this process read are read again after it (``_snapshot``)."""
        return self.provider.run(ctx.diagnostics, doing, work, writes)

    def upgrade(self, ctx, version, old):
        """Schema version 0 is the only one: nothing to upgrade (the framework's default warns on every plan)."""
        return old
