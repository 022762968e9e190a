# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the provider needs of the ``tf`` framework that the framework's public interface does not offer.

Every use of a private name of ``tf`` is in this module, and only two are left (docs/developing.md, "tf
framework interfaces the Terraform provider relies on"):

- **Which servicer answers Terraform.** ``tf.runner.run_provider`` takes no servicer: it builds
  ``tf.provider.ProviderServicer`` for the provider, looked up in ``tf.provider`` when it starts. ``run`` puts
  the provider's servicer (``_servicer.Servicer``, a subclass written on the servicer's public methods) there
  first.
- **Where the certificate is kept.** The framework keeps the TLS certificate it shows Terraform at the path
  ``tf.runner._get_cert_cache_path()`` gives (under ``~/.cache``) and fails to start where it cannot write
  there; ``run`` makes it give the provider's cache directory instead.

``VERIFIED`` is the release of ``tf`` these were read in. tests/terraform/test_framework.py checks that it is
the installed release and the one ``terraform/pyproject.toml`` pins, and that each internal behaves as used
here, so a new release of ``tf`` fails that test until these lines are read again in it.
"""

#: the release of ``tf`` whose internals this module was written against (and the pin in terraform/pyproject.toml)
VERIFIED = '1.2.0'


def run(provider, argv, servicer, certificate):
    """Serve ``provider`` to Terraform as ``tf.runner.run_provider(provider, argv)`` does, answering with the
    class ``servicer`` (a subclass of ``tf.provider.ProviderServicer``) and keeping the certificate at
    ``certificate`` (a ``pathlib.Path``); returns when Terraform stops the provider."""
    from tf import provider as tf_provider, runner    # pylint: disable=import-outside-toplevel

    install_servicer(tf_provider, servicer)
    keep_certificate_at(runner, certificate)
    runner.run_provider(provider, argv)


def install_servicer(tf_provider, servicer):
    """Make ``run_provider`` (which imports ``ProviderServicer`` from ``tf.provider`` when it starts) build
    ``servicer``."""
    tf_provider.ProviderServicer = servicer


def keep_certificate_at(runner, certificate):
    """Make the framework read and write its certificate at ``certificate`` (its ``_self_signed_cert`` asks
    ``_get_cert_cache_path()``, which makes ``~/.cache/tf-python-provider``)."""
    runner._get_cert_cache_path = lambda: certificate     # pylint: disable=protected-access
