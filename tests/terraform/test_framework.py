# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ``tf`` framework as the provider uses it (docs/developing.md, "tf framework interfaces the Terraform
provider relies on"): the internals ``_framework`` touches, as the release it was written against has them, and
the create plan of ``_servicer`` written on the public interface, which must stay the framework's own plan.

A new release of ``tf`` fails ``test_the_internals_were_read_in_the_pinned_release`` until ``_framework`` has been
read against it (and ``VERIFIED`` moved); the other tests say what changed if one of them did."""

import importlib.metadata
import inspect
import os
import re
import subprocess
import sys

from tf import provider as tf_provider, runner
from tf.gen import tfplugin_pb2 as pb
from tf.types import Unknown
from tf.utils import read_dynamic_value, to_dynamic_value

from harness import ROOT  # pylint: disable=import-error

from netpool_terraform import _framework, _servicer  # pylint: disable=import-error
from netpool_terraform.resources import Reservation  # pylint: disable=import-error


def test_the_internals_were_read_in_the_pinned_release():
    """The release installed is the one terraform/pyproject.toml pins (the requirements install it: ``-e
    ./terraform``), and the one ``_framework`` was written against."""
    with open(os.path.join(ROOT, 'terraform', 'pyproject.toml')) as f:
        pins = re.findall(r'"tf==([^"]+)"', f.read())
    assert pins == [_framework.VERIFIED]
    assert importlib.metadata.version('tf') == _framework.VERIFIED


def test_the_internals_have_the_shape_used():
    """``run_provider(provider, argv)`` looks ``ProviderServicer`` up in ``tf.provider`` when it starts and builds
    it with the provider alone; the certificate's path is ``runner._get_cert_cache_path()``, asked by the
    function that reads or makes the certificate."""
    assert list(inspect.signature(runner.run_provider).parameters) == ['provider', 'argv']
    serve = inspect.getsource(runner.run_provider)
    assert 'from tf.provider import ProviderServicer' in serve and 'ProviderServicer(provider)' in serve
    assert not inspect.signature(runner._get_cert_cache_path).parameters      # pylint: disable=protected-access
    make = inspect.getsource(runner._self_signed_cert)     # pylint: disable=protected-access
    assert 'cache_path = _get_cert_cache_path()' in make
    assert list(inspect.signature(tf_provider.ProviderServicer.__init__).parameters) == ['self', 'app']


_SERVE = r'''
import sys
from pathlib import Path
from netpool_terraform import _framework, _servicer
from netpool_terraform.__main__ import unavailable

class Recording(_servicer.Servicer):
    def __init__(self, app):
        super().__init__(app)
        sys.stderr.write('servicer %s for %s\n' % (type(self).__name__, type(app).__name__))
        sys.stderr.flush()

_framework.run(unavailable('a provider that serves nothing'), ['provider'], Recording, Path(sys.argv[1]))
'''


def test_run_serves_with_the_servicer_and_keeps_the_certificate_where_told(tmp_path):
    """``_framework.run`` on the real framework: it answers with the servicer given (built before the handshake)
    and writes the certificate where it is told, not under HOME (here a directory that does not exist)."""
    cert = tmp_path / 'cert' / 'ssl_cert.json'
    cert.parent.mkdir(mode=0o700)
    env = dict(os.environ, HOME=str(tmp_path / 'no-home'), PYTHONPATH=os.pathsep.join(
        [os.path.join(ROOT, 'terraform')] + [p for p in [os.environ.get('PYTHONPATH')] if p]))
    with subprocess.Popen([sys.executable, '-c', _SERVE, str(cert)], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        try:
            handshake = proc.stdout.readline()
        finally:
            proc.kill()
        errors = proc.stderr.read()
    assert handshake.startswith('1|6|unix|'), errors
    assert 'servicer Recording for Unavailable' in errors
    assert cert.exists() and not (tmp_path / 'no-home').exists()


class _Identity(Reservation):
    """netpool_reservation's schema, whose ``plan_create`` changes nothing: its plan must be the framework's."""

    def plan_create(self, ctx, config, planned):
        return planned


class _App(object):
    def __init__(self, klass):
        self.klass = klass

    def get_model_prefix(self):
        return 'netpool_'

    def get_resources(self):
        return [self.klass]

    def new_resource(self, klass):
        return klass(self)


def test_a_create_is_planned_as_the_framework_plans_it():
    """For a create, ``Servicer`` plans as the framework would (then lets ``plan_create`` change it): the same
    planned state, byte for byte, and the same diagnostics, for netpool_reservation's schema with values given,
    left null and unknown."""
    given = dict((name, None) for name in Reservation.ATTRIBUTES)
    computed = [n for n, (_t, flags, _d) in Reservation.ATTRIBUTES.items() if flags.get('computed')]
    proposals = [
        dict(given, pool='web', owner='vm1', **dict((n, Unknown) for n in computed)),
        dict(given, pool='web', owner='vm2', key='nic1', address='10.0.0.9', metadata={'mac': '52:54:00:aa:bb:cc'},
             probe_timeout=300, force=True, id=Unknown, cidr=Unknown, dns=Unknown),
        dict(given, pool='web', owner='vm3', namespace='lab'),
    ]
    ours, theirs = _servicer.Servicer(_App(_Identity)), tf_provider.ProviderServicer(_App(_Identity))
    for proposed in proposals:
        request = pb.PlanResourceChange.Request(type_name='netpool_reservation', prior_state=to_dynamic_value(None),
                                                proposed_new_state=to_dynamic_value(proposed),
                                                config=to_dynamic_value(proposed))
        mine, framework = ours.PlanResourceChange(request, None), theirs.PlanResourceChange(request, None)
        assert read_dynamic_value(mine.planned_state) == read_dynamic_value(framework.planned_state)
        assert mine.planned_state.msgpack == framework.planned_state.msgpack
        assert list(mine.diagnostics) == list(framework.diagnostics) == []
        assert list(mine.requires_replace) == list(framework.requires_replace) == []
