# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The netpool Terraform provider: its settings and the thread that talks to the store.

Every call into the collection goes through ``NetpoolProvider.run``: one thread of the provider process
talks to the store (a SQLite connection belongs to the thread that opened it; Terraform asks for up to ten
resources at once), through ``api.with_service`` (the collection's public entry point, ``_base.api``), which
imports the service at its first call: a start that only answers the schema or validates never imports the
service and the stores. Whatever fails there becomes a Terraform error diagnostic whose summary ends with the
error code (``(error pool_exhausted)``), secrets hidden (``_base.add_failure``): an exception that left the
provider would reach the user as an unreadable gRPC error.
"""

import concurrent.futures
import os

from tf import iface
from tf.schema import Attribute, Schema
from tf.types import Bool, Number, String

from netpool_terraform import resources
from netpool_terraform._base import ISSUES, add_failure, api, unknown
from netpool_terraform._planning import Ledger, Planner, cert_cache_dir
from netpool_terraform._snapshot import Snapshot
from netpool_terraform.mirror import SOURCE

_TYPES = {'str': String, 'bool': Bool, 'int': Number}


def store_settings():
    """The provider's settings: the collection's store options (``api.store_options()``), same names."""
    return api.store_options()


def resolve(config):
    """The store options from the provider's configuration, read as the collection reads them: a value not
    given comes from its environment variable (``NETPOOL_IPAM_STORE``, ``NETPOOL_IPAM_STORE_TOKEN``), else
    the collection's default."""
    params = {}
    for name, spec in store_settings().items():
        value = config.get(name)
        if unknown(value):
            raise api.InvalidArgument('The provider setting %s is not known until apply: give the netpool provider '
                                      'values known at plan time (literals, variables, locals).' % name)
        if value is None and spec.get('fallback'):
            for var in spec['fallback'][1]:
                if os.environ.get(var):
                    value = os.environ[var]
                    break
        if value is None:
            value = spec.get('default')
        if spec['type'] == 'int' and isinstance(value, float) and value.is_integer():
            value = int(value)
        params[name] = value
    if not isinstance(params['timeout'], int) or isinstance(params['timeout'], bool) or params['timeout'] <= 0:
        raise api.InvalidArgument('timeout must be a positive whole number of seconds, got %r.' % (params['timeout'],))
    api.store_kind(params['store'] or 'ipam.sqlite')     # an unknown scheme or a libpq string: invalid_argument now
    return params


class NetpoolProvider(iface.Provider):
    """The provider ``netpool``: settings ``store``, ``store_token``, ``validate_certs``, ``timeout``,
    ``namespace`` (the collection's store options)."""

    def __init__(self):
        self.params = None
        #: the addresses planned for new reservations (``_planning``), once configured
        self.planner = None
        #: the reservations this process read (``_snapshot``)
        self.snapshot = Snapshot()
        # one thread talks to the store: every call waits for its turn (see the module's docstring)
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix='netpool-store')

    def get_model_prefix(self):
        return 'netpool_'

    def full_name(self):
        return SOURCE

    def get_provider_schema(self, diags):
        attributes = []
        for name, spec in store_settings().items():
            attributes.append(Attribute(name, _TYPES[spec['type']](), optional=True, sensitive=bool(spec.get('no_log')),
                                        description=SETTINGS_DOC[name]))
        return Schema(version=0, attributes=attributes)

    def validate_config(self, diags, config):
        try:
            resolve(dict((k, v) for k, v in config.items() if not unknown(v)))
        except Exception as e:  # pylint: disable=broad-except
            add_failure(diags, 'read the provider settings', e, config, 'The netpool provider settings are invalid')

    def configure_provider(self, diags, config):
        try:
            params = resolve(config)
            cwd = os.getcwd()
            self.planner = Planner(Ledger.of(cert_cache_dir(), lambda: api.store_location(params, cwd)))
            self.params = params
        except Exception as e:  # pylint: disable=broad-except
            add_failure(diags, 'read the provider settings', e, config, 'The netpool provider settings are invalid')

    def get_data_sources(self):
        return [resources.PoolData, resources.ReservationData]

    def get_resources(self):
        return [resources.Pool, resources.Reservation]

    @property
    def namespace(self):
        return self.params['namespace']

    def run(self, diags, doing, work, writes=False):
        """``work(service)`` in the store thread, over the configured store; its result, or None with an error
        diagnostic (an ``IpamError`` with its code, anything else as ``internal_error``). ``writes``: ``work``
        changes the store (what this process read of it is forgotten once it is done: ``_snapshot``)."""
        if self.params is None:
            diags.add_error('The netpool provider is not configured (error internal_error)',
                            'Terraform asked for %s before configuring the provider. Please report it at %s.'
                            % (doing, ISSUES))
            return None
        try:
            return self._worker.submit(self._run, diags, doing, work).result()
        finally:
            # once the write is done: a read the store thread answered just before it is not kept past it
            if writes:
                self.snapshot.forget()

    def _run(self, diags, doing, work):
        try:
            return api.with_service(self.params, os.getcwd(), work)
        except Exception as e:  # pylint: disable=broad-except
            add_failure(diags, doing, e, self.params)
        return None


SETTINGS_DOC = {
    'store': 'The store: a path (a `.json` file is the JSON store, any other the SQLite store; relative to the '
             'directory terraform runs in), `postgresql://...` or `netbox+https://...`. Default: '
             '`NETPOOL_IPAM_STORE`, else `ipam.sqlite`, as for the netpool.ipam collection.',
    'store_token': 'The NetBox API token, or the PostgreSQL password. Default: `NETPOOL_IPAM_STORE_TOKEN`.',
    'validate_certs': 'Verify TLS certificates of the store (default true).',
    'timeout': 'Seconds to wait for the store (its lock, its server) before failing with store_busy or '
               'store_unavailable (default 30).',
    'namespace': 'The namespace of resources and data sources that do not name one (default `default`).',
}
