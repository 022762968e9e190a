# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``terraform-provider-netpool``: the provider Terraform starts, and ``terraform-provider-netpool mirror``.

Terraform starts a provider with ``TF_PLUGIN_MAGIC_COOKIE`` set (the go-plugin handshake); without it the
program is being run by a person, and says what it is instead of waiting for a client that never comes.
"""

import os
import sys

# CACHE_ENV is named here too: the environment variable the launcher and the tests set
from netpool_terraform._planning import CACHE_ENV, cache_refusal, cert_cache_dir  # noqa: F401 pylint: disable=unused-import

MAGIC_COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2'

USAGE = """\
terraform-provider-netpool: the netpool Terraform provider (experimental). Terraform starts it; it is not
meant to be run by hand.

  terraform-provider-netpool mirror DIR [--collections-path PATH] [--cli-config FILE]
      write a filesystem mirror for Terraform into DIR and print the configuration to use it
      (docs/terraform.md of the netpool.ipam collection).
"""


def serve():
    from pathlib import Path                                # pylint: disable=import-outside-toplevel
    from netpool_terraform import _framework, _servicer     # pylint: disable=import-outside-toplevel

    # The framework keeps its certificate under ~/.cache and fails to start when it cannot write there.
    _framework.run(make_provider(), sys.argv, _servicer.Servicer, Path(cert_cache_dir()) / 'ssl_cert.json')
    return 0


def make_provider():
    """The provider Terraform talks to: the real one, or one that says why it cannot start."""
    refusal = cache_refusal()
    if refusal is not None:
        return unavailable(refusal, 'invalid_argument')
    try:
        from netpool_terraform.provider import NetpoolProvider     # pylint: disable=import-outside-toplevel
        return NetpoolProvider()
    except Exception as e:  # pylint: disable=broad-except
        return unavailable('%s: %s' % (type(e).__name__, e))


def unavailable(detail, code='store_unavailable'):
    """A provider that says why the real one cannot start (no collection, a library missing, a cache directory
    it will not use): Terraform shows its error; a provider that exits before the handshake shows only "plugin
    exited"."""
    from tf import iface                        # pylint: disable=import-outside-toplevel
    from tf.schema import Schema                # pylint: disable=import-outside-toplevel
    from netpool_terraform.mirror import SOURCE  # pylint: disable=import-outside-toplevel

    summary = 'The netpool provider cannot start (error %s)' % code

    class Unavailable(iface.Provider):
        def get_model_prefix(self):
            return 'netpool_'

        def full_name(self):
            return SOURCE

        def get_provider_schema(self, diags):
            diags.add_error(summary, detail)
            return Schema(version=0)

        def validate_config(self, diags, config):
            diags.add_error(summary, detail)

        def configure_provider(self, diags, config):
            diags.add_error(summary, detail)

        def get_data_sources(self):
            return []

        def get_resources(self):
            return []

    return Unavailable()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['mirror']:
        from netpool_terraform import mirror     # pylint: disable=import-outside-toplevel
        return mirror.main(argv[1:])
    if os.environ.get('TF_PLUGIN_MAGIC_COOKIE') != MAGIC_COOKIE:
        sys.stderr.write(USAGE)
        return 1
    return serve()


if __name__ == '__main__':
    sys.exit(main())
