# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The metadata that DHCP and DNS read: ``mac`` and ``hostname`` of a reservation, ``domain``
of a pool. Checked and normalised when they are stored, and again when they are published.

This is a private module: it may change at any time.

- ``mac``: a 48-bit MAC in any form netaddr reads (``52-54-00-AA-BB-CC``, ``5254.00aa.bbcc``...), kept
  as ``52:54:00:aa:bb:cc``.
- ``hostname``: a host name (letters, digits and hyphens, RFC 1123) or a dotted name, kept in lower case
  without a trailing dot. A name without a dot is a label in the pool's ``domain``; a dotted name is a
  fully qualified name.
- ``domain``: the pool's forward zone, a DNS name, kept in lower case without a trailing dot.

Name syntax (labels, lengths) is dnspython's, MAC syntax netaddr's; the host-name character rule is
checked on the labels dnspython gives.
"""

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument, missing_library

try:
    import netaddr
except ImportError:  # pragma: no cover - depends on the controller
    netaddr = None

#: dnspython, imported the first time a name is checked (``dnspython()``): a reservation without a hostname
#: needs none, and importing it costs about 0.07 s of CPU (the reserve role's controller imports this)
dns = None


def dnspython():
    """The ``dns`` package (with ``dns.name``, ``dns.zone``...), imported now if it was not; None if missing."""
    global dns  # pylint: disable=global-statement
    if dns is None:
        try:
            import dns.exception  # pylint: disable=redefined-outer-name
            import dns.name
            import dns.rdatatype
            import dns.zone  # noqa: F401
        except ImportError:  # pragma: no cover - depends on the controller
            return None
    return dns


def _need(library, module):
    if module is None:
        raise missing_library(library, 'to check the mac, hostname and domain metadata that DHCP and DNS read')


def mac(value, what='mac'):
    """``value`` as ``52:54:00:aa:bb:cc``, or ``invalid_argument``."""
    _need('netaddr', netaddr)
    try:
        if not isinstance(value, str):
            raise TypeError(value)
        eui = netaddr.EUI(value.strip(), dialect=netaddr.mac_unix_expanded)
    except (netaddr.AddrFormatError, TypeError, ValueError):
        eui = None
    if eui is None or eui.version != 48:
        raise InvalidArgument('%s %r is not a MAC address: give six bytes such as 52:54:00:aa:bb:cc.' % (what, value))
    return str(eui)


def name(value, what):
    """A DNS name of host-name labels, in lower case without a trailing dot; ``dns.name.Name`` for it is
    ``absolute(value)``. ``invalid_argument`` names what is wrong."""
    _need('dnspython', dnspython())
    if not isinstance(value, str) or not value.strip('. '):
        raise InvalidArgument('%s must be a non-empty host or domain name, got %r.' % (what, value))
    try:
        parsed = dns.name.from_text(value.strip())
    except dns.exception.DNSException as exc:
        raise InvalidArgument('%s %r is not a DNS name: %s' % (what, value, exc))
    for label in parsed.labels[:-1]:
        text = label.decode('ascii', 'backslashreplace')
        if not (text.isascii() and text.replace('-', '').isalnum()) or text.startswith('-') or text.endswith('-'):
            raise InvalidArgument(
                "%s %r has the label %r: a host or domain name holds letters, digits and hyphens only, and a label "
                "neither starts nor ends with a hyphen (RFC 1123)." % (what, value, text))
    return parsed.to_text(omit_final_dot=True).lower()


def absolute(checked):
    """The absolute ``dns.name.Name`` of a name ``name()`` returned."""
    return dns.name.from_text(checked)


def is_hostname(value):
    """Whether ``value`` (an owner) is a host name that can stand as the default ``hostname``."""
    try:
        name(value, 'hostname')
    except InvalidArgument:
        return False
    return True


def reservation(metadata):
    """Reservation metadata with ``mac`` and ``hostname`` checked and normalised (others untouched)."""
    if not metadata:
        return metadata
    result = dict(metadata)
    if 'mac' in result:
        result['mac'] = mac(result['mac'], 'metadata mac')
    if 'hostname' in result:
        result['hostname'] = name(result['hostname'], 'metadata hostname')
    return result


def pool(metadata):
    """Pool metadata with ``domain`` checked and normalised (others untouched)."""
    if not metadata or 'domain' not in metadata:
        return metadata
    result = dict(metadata)
    result['domain'] = name(result['domain'], 'metadata domain')
    return result
