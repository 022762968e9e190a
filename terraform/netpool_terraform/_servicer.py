# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The framework's gRPC servicer, with a plan of a new resource that the resource may fill in.

The ``tf`` framework plans a create itself: it never calls the resource's ``plan`` when there is no prior state,
and leaves every computed attribute not given unknown. A reservation plans its new address
(``resources.Reservation.plan_create``), so ``Servicer`` plans the create of a resource that has
``plan_create(ctx, config, planned)`` as the framework would (a null computed attribute gets the attribute's
``default``, unknown unless set; a null one that is not computed stays null), hands that plan to
``plan_create`` with the configuration, and encodes what it returns; every other call is the framework's own.

It is written on the framework's public interface: the servicer class ``tf.provider.ProviderServicer`` and its
gRPC methods, the provider it serves (``app``: ``get_model_prefix``, ``get_resources``, ``new_resource``), the
resources' schemas, the types' ``encode`` and ``decode``, ``tf.utils`` and the protocol's messages. That Terraform
talks to it, not to the framework's own servicer, is the one thing the framework offers no public way to say
(``_framework.run``). tests/terraform/test_framework.py checks that a create it plans is the framework's plan
but for what ``plan_create`` changes.
"""

import traceback

from tf import provider as tf_provider
from tf.gen import tfplugin_pb2 as pb
from tf.iface import PlanContext
from tf.types import Unknown
from tf.utils import Diagnostics, read_dynamic_value, to_dynamic_value


def _null(value):
    """True when the ``DynamicValue`` ``value`` is null (no prior state: a create), read without decoding a
    whole state."""
    if len(value.msgpack) > 1 or len(value.json) > 4:
        return False
    return read_dynamic_value(value) is None


class Servicer(tf_provider.ProviderServicer):
    """``ProviderServicer`` whose plan of a create ends with the resource's ``plan_create``."""

    def __init__(self, app):
        super(Servicer, self).__init__(app)
        #: type name -> (resource class, {attribute name: Attribute}) of a resource that plans its creates, or None
        self._planners = {}

    def _planner(self, type_name):
        """``(class, attributes by name)`` of the resource ``type_name`` when it plans its own creates (it has
        ``plan_create`` and a schema of attributes only), else None."""
        if type_name not in self._planners:
            prefix, found = self.app.get_model_prefix(), None
            for klass in self.app.get_resources():
                if prefix + klass.get_name() == type_name and hasattr(klass, 'plan_create'):
                    schema = klass.get_schema()
                    if not schema.block_types:
                        found = klass, dict((a.name, a) for a in schema.attributes)
            self._planners[type_name] = found
        return self._planners[type_name]

    def PlanResourceChange(self, request, context):
        try:
            return self._plan(request, context)
        except Exception:
            traceback.print_exc()       # as the framework's own methods do: gRPC would show the client no more
            raise

    def _plan(self, request, context):
        planner = self._planner(request.type_name)
        if planner is None or not _null(request.prior_state):
            return super(Servicer, self).PlanResourceChange(request, context)
        klass, attrs = planner
        proposed = read_dynamic_value(request.proposed_new_state)
        if not isinstance(proposed, dict) or not set(proposed) <= set(attrs):
            return super(Servicer, self).PlanResourceChange(request, context)   # the framework says what is wrong
        diags = Diagnostics()
        planned = {}
        for name, value in proposed.items():
            attr = attrs[name]
            if value is None:
                planned[name] = attr.default if attr.computed else None
            elif value is Unknown:
                planned[name] = value
            else:
                try:
                    planned[name] = attr.type.decode(value)
                except Exception as e:  # pylint: disable=broad-except
                    diags.add_error("Failed to decode field '%s'" % name,
                                    detail="Error decoding field '%s': %s" % (name, e), path=[name])
        if diags.has_errors():
            return pb.PlanResourceChange.Response(diagnostics=diags.to_pb())
        config = read_dynamic_value(request.config) or {}
        planned = self.app.new_resource(klass).plan_create(
            PlanContext(diags, request.type_name, changed_fields=set()), config, planned)
        encoded = dict((name, value if value is Unknown else attrs[name].type.encode(value))
                       for name, value in planned.items())
        return pb.PlanResourceChange.Response(planned_state=to_dynamic_value(encoded), diagnostics=diags.to_pb())
