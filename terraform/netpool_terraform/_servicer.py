# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The framework's gRPC servicer, with a plan of a new resource that the resource may fill in.

The ``tf`` framework (1.2.0) plans a create itself: it never calls the resource's ``plan`` when there is no
prior state, and leaves every computed attribute not given unknown. A reservation plans its new address
(``resources.Reservation.plan_create``), so ``Servicer`` lets the framework plan, then hands that plan to the
resource's ``plan_create(ctx, config, planned)`` when it has one.

This leans on framework internals, named in docs/developing.md and guarded by tests/terraform/test_package.py:
``tf.runner.run_provider`` looks ``tf.provider.ProviderServicer`` up when it starts (``install`` puts
``Servicer`` there), and ``ProviderServicer``'s ``_get_res_cls``, ``_get_res_attrs``, ``_get_res_blocks`` and the
module's ``_decode_state`` and ``_encode_state``.
"""

from tf import provider as tf_provider
from tf.gen import tfplugin_pb2 as pb
from tf.iface import PlanContext
from tf.utils import Diagnostics, read_dynamic_value


class Servicer(tf_provider.ProviderServicer):
    """``ProviderServicer`` whose plan of a create ends with the resource's ``plan_create``."""

    def PlanResourceChange(self, request, context):
        response = super(Servicer, self).PlanResourceChange(request, context)
        type_name = request.type_name
        klass = self._get_res_cls(type_name)
        if not hasattr(klass, 'plan_create') or read_dynamic_value(request.prior_state) is not None \
                or not response.HasField('planned_state') or read_dynamic_value(response.planned_state) is None:
            return response
        diags = Diagnostics()
        attrs, blocks = self._get_res_attrs(type_name), self._get_res_blocks(type_name)
        encoded, planned = tf_provider._decode_state(diags, attrs, blocks, response.planned_state)  # pylint: disable=protected-access
        if diags.has_errors():
            return response
        inst = self.app.new_resource(klass)
        config = read_dynamic_value(request.config) or {}
        planned = inst.plan_create(PlanContext(diags, type_name, changed_fields=set()), config, planned)
        return pb.PlanResourceChange.Response(
            planned_state=tf_provider._encode_state(attrs, blocks, planned, encoded),  # pylint: disable=protected-access
            requires_replace=list(response.requires_replace),
            diagnostics=list(response.diagnostics) + diags.to_pb())


def install():
    """Make ``tf.runner.run_provider`` serve with ``Servicer`` (it imports ``tf.provider.ProviderServicer`` when
    it starts)."""
    tf_provider.ProviderServicer = Servicer
