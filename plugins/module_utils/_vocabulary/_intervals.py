# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Address and range arithmetic for netpool.ipam.

This module is private to the netpool.ipam collection and may change at any
time without notice; do not use it from outside the collection.

Vocabulary
----------
- An address is an ``int`` together with its IP ``version`` (4 or 6).
- A *span* is an inclusive ``(first, last)`` pair of ints of one family.
  Spans may be given as tuples or lists (e.g. straight from JSON); every span
  this module returns is a tuple.
- *Merged spans* are a list sorted by ``first`` in which no two spans overlap
  or touch (``prev_last + 1 < next_first``).  ``merge()`` produces them.

Functions documented as taking merged spans rely on that (they bisect) and do
not check it.  Nothing here ever enumerates addresses: every operation costs
O(number of spans), or O(n log n) where it has to sort, so IPv6 ``::/0``
sized spans are as cheap as a /30.
"""

import re

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import missing_library

try:
    import netaddr
    HAS_NETADDR = True
    NETADDR_IMPORT_ERROR = None
except ImportError as _exc:  # pragma: no cover - depends on the controller
    netaddr = None
    HAS_NETADDR = False
    NETADDR_IMPORT_ERROR = _exc


_WIDTH = {4: 32, 6: 128}
_MAX = {4: (1 << 32) - 1, 6: (1 << 128) - 1}
_FAMILY = {4: 'IPv4', 6: 'IPv6'}
_KEY_RE = re.compile(r'^([46]):([0-9a-f]{32})$')
_PREFIX_RE = re.compile(r'^[0-9]{1,3}$')


# ---------------------------------------------------------------------------
# span arithmetic (pure ints)
# ---------------------------------------------------------------------------

def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _span(span):
    """Validate one span and return it as a tuple."""
    try:
        first, last = span
    except (TypeError, ValueError):
        raise ValueError('%r is not a (first, last) span' % (span,))
    if not (_is_int(first) and _is_int(last)):
        raise ValueError('%r is not a (first, last) span of integers' % (span,))
    if first > last:
        raise ValueError('span (%d, %d) is reversed: first is greater than last' % (first, last))
    return (first, last)


def _upper(spans, x):
    """Number of spans whose first address is <= x (spans sorted by first).

    Written by hand rather than with ``bisect`` so that spans may be lists
    or tuples (``bisect`` has no ``key=`` before Python 3.10).
    """
    lo, hi = 0, len(spans)
    while lo < hi:
        mid = (lo + hi) // 2
        if spans[mid][0] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def merge(spans):
    """Return ``spans`` sorted with overlapping and adjacent spans merged.

    Accepts any iterable of (first, last) pairs in any order; raises
    ValueError for a malformed or reversed span.
    """
    items = sorted(_span(s) for s in spans)
    out = []
    for first, last in items:
        if out and first <= out[-1][1] + 1:
            if last > out[-1][1]:
                out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
    return out


def subtract(spans, removed):
    """Return merge(spans) minus merge(removed), splitting spans as needed."""
    a = merge(spans)
    r = merge(removed)
    out = []
    j = 0
    nr = len(r)
    for first, last in a:
        while j < nr and r[j][1] < first:
            j += 1
        cur = first
        k = j
        while k < nr and r[k][0] <= last:
            if r[k][0] > cur:
                out.append((cur, r[k][0] - 1))
            if r[k][1] + 1 > cur:
                cur = r[k][1] + 1
            if r[k][1] >= last:
                break
            k += 1
        if cur <= last:
            out.append((cur, last))
    return out


def intersect(a, b):
    """Return the merged intersection of two collections of spans."""
    a = merge(a)
    b = merge(b)
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        first = max(a[i][0], b[j][0])
        last = min(a[i][1], b[j][1])
        if first <= last:
            out.append((first, last))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def contains(spans, x):
    """True if address ``x`` lies in the merged ``spans``."""
    i = _upper(spans, x)
    return i > 0 and spans[i - 1][1] >= x


def count(spans):
    """Total number of distinct addresses covered by ``spans`` (merged first)."""
    return sum(last - first + 1 for first, last in merge(spans))


def nth(spans, n):
    """The ``n``-th (0-based) address of the merged ``spans``.

    Raises IndexError when ``n`` is negative or not below count(spans).
    """
    if not _is_int(n):
        raise TypeError('index must be an integer, not %s' % type(n).__name__)
    if n < 0:
        raise IndexError('address index %d out of range' % n)
    rest = n
    for first, last in spans:
        size = last - first + 1
        if rest < size:
            return first + rest
        rest -= size
    raise IndexError('address index %d out of range' % n)


def first_aligned_block(obstacles, lo, hi, size):
    """Lowest ``s`` with ``s % size == 0``, ``lo <= s``, ``s + size - 1 <= hi``
    and [s, s + size - 1] meeting no obstacle span; None if there is none.

    ``size`` must be a power of two.  ``obstacles`` may be unmerged.  Costs
    O(len(obstacles) log len(obstacles)) whatever the size of [lo, hi].
    """
    if not _is_int(size) or size <= 0 or size & (size - 1):
        raise ValueError('block size %r is not a power of two' % (size,))
    obs = merge(obstacles)
    s = -(-lo // size) * size
    n = len(obs)
    i = _upper(obs, s)
    if i > 0 and obs[i - 1][1] >= s:
        i -= 1
    while s + size - 1 <= hi:
        while i < n and obs[i][1] < s:
            i += 1
        if i == n or obs[i][0] > s + size - 1:
            return s
        s = -(-(obs[i][1] + 1) // size) * size
        i += 1
    return None


# ---------------------------------------------------------------------------
# parsing and formatting
# ---------------------------------------------------------------------------

def _need_netaddr():
    if not HAS_NETADDR:
        raise missing_library('netaddr', 'for every store (%s)' % NETADDR_IMPORT_ERROR)


def _check_version(version):
    if version not in _WIDTH:
        raise ValueError('IP version must be 4 or 6, not %r' % (version,))


def _check_value(version, n):
    top = _MAX.get(version) if version.__class__ is int else None    # (a bool is not a version: not in _WIDTH)
    if top is None:
        _check_version(version)
        top = _MAX[version]
    if not ((n.__class__ is int or _is_int(n)) and 0 <= n <= top):
        raise ValueError('%r is not an %s address value' % (n, _FAMILY[version]))


def _text(text, what):
    if not isinstance(text, str):
        raise ValueError('%s must be a string, not %s (%r)' % (what, type(text).__name__, text))
    return text.strip()


def to_str(version, n):
    """Compressed canonical text of address ``n`` (RFC 5952 for IPv6).

    IPv6 is always written in hexadecimal (netaddr would print some
    addresses below 2**32 in dotted form, e.g. ``::0.1.0.0`` for ``::1:0``).
    """
    _check_value(version, n)
    if version == 4:
        return '%d.%d.%d.%d' % ((n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255)
    groups = [(n >> (112 - 16 * i)) & 0xffff for i in range(8)]
    best_start, best_len = -1, 0
    i = 0
    while i < 8:
        if groups[i] == 0:
            j = i
            while j < 8 and groups[j] == 0:
                j += 1
            if j - i > best_len:
                best_start, best_len = i, j - i
            i = j
        else:
            i += 1
    if best_len < 2:
        return ':'.join('%x' % g for g in groups)
    head = ':'.join('%x' % g for g in groups[:best_start])
    tail = ':'.join('%x' % g for g in groups[best_start + best_len:])
    return head + '::' + tail


def format_span(version, first, last):
    """``'first-last'`` in compressed canonical form (``'10.0.0.7-10.0.0.7'`` for one)."""
    if first > last:
        raise ValueError('span (%d, %d) is reversed: first is greater than last' % (first, last))
    return '%s-%s' % (to_str(version, first), to_str(version, last))


def key(version, n):
    """Fixed-width sortable text key of an address: ``'4:%032x'`` / ``'6:%032x'``.

    Lexicographic order of keys is numeric order, IPv4 before IPv6.
    """
    _check_value(version, n)
    return '%d:%032x' % (version, n)


def from_key(k):
    """Inverse of key(): ``(version, n)``."""
    m = _KEY_RE.match(k) if isinstance(k, str) else None
    if not m:
        raise ValueError('%r is not an address key' % (k,))
    version, n = int(m.group(1)), int(m.group(2), 16)
    _check_value(version, n)
    return version, n


def parse_address(text, version=None):
    """Parse one plain IP address into a ``netaddr.IPAddress``.

    Surrounding whitespace is ignored.  Rejects (ValueError, user-facing
    message) anything but a plain IPv4 or IPv6 address: prefixes, ranges,
    zone ids, integers, legacy IPv4 forms (``10.1``, ``010.0.0.1``) and
    IPv4-mapped IPv6 addresses (``::ffff:1.2.3.4``).  With ``version`` the
    address must be of that family.
    """
    _need_netaddr()
    if isinstance(text, netaddr.IPAddress):
        addr = text
        text = str(text)
    else:
        text = _text(text, 'an IP address')
        if not text:
            raise ValueError('an empty string is not a valid IP address')
        if '/' in text:
            raise ValueError("'%s' is not a valid IP address: give an address without a prefix length" % text)
        try:
            addr = netaddr.IPAddress(text, flags=netaddr.INET_PTON)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise ValueError("'%s' is not a valid IP address" % text)
    if addr.version == 6 and addr.is_ipv4_mapped():
        raise ValueError("'%s' is an IPv4-mapped IPv6 address; use the IPv4 address %s instead"
                         % (text, to_str(4, int(addr) & _MAX[4])))
    if version is not None and addr.version != version:
        raise ValueError("'%s' is not an %s address" % (text, _FAMILY.get(version, 'IPv%s' % version)))
    return addr


def parse_network(text, strict=True):
    """Parse ``ADDRESS/PREFIXLEN`` into a ``netaddr.IPNetwork``.

    The prefix length is required (``/0`` is allowed).  With ``strict``,
    host bits set (``10.0.0.1/24``) is a ValueError naming the network meant;
    without it the given address is kept (``result.ip``).
    """
    _need_netaddr()
    if isinstance(text, netaddr.IPNetwork):
        text = str(text)
    text = _text(text, 'a network')
    if '/' not in text:
        raise ValueError("'%s' is not a network: give it in CIDR form ADDRESS/PREFIXLEN, "
                         "e.g. '10.0.0.0/24'" % text)
    addr_text, prefix_text = text.split('/', 1)
    prefix_text = prefix_text.strip()
    try:
        addr = parse_address(addr_text)
    except ValueError as exc:
        raise ValueError("'%s' is not a valid network: %s" % (text, exc))
    width = _WIDTH[addr.version]
    if not _PREFIX_RE.match(prefix_text) or int(prefix_text) > width:
        raise ValueError("'%s' is not a valid network: the prefix length must be a number "
                         "from 0 to %d" % (text, width))
    prefix = int(prefix_text)
    net = netaddr.IPNetwork('%s/%d' % (to_str(addr.version, int(addr)), prefix))
    if strict and int(addr) != net.first:
        raise ValueError("'%s' is not a network address: host bits are set; did you mean '%s/%d'?"
                         % (text, to_str(addr.version, net.first), prefix))
    return net


def usable(network):
    """``(first, last)`` of the usable hosts of a network, or None if it has none.

    IPv4: all but the network and broadcast addresses up to /30; /31 and /32
    are all usable.  IPv6: all but the subnet-router anycast address (the
    first one), so /127 is its second address only and /128 has none.
    ``network`` is a ``netaddr.IPNetwork`` (its host bits are ignored) or
    CIDR text (strictly parsed).
    """
    if not (HAS_NETADDR and isinstance(network, netaddr.IPNetwork)):
        network = parse_network(network)
    first, last = network.first, network.last
    if network.version == 4:
        if network.prefixlen <= 30:
            return (first + 1, last - 1)
        return (first, last)
    if first == last:
        return None
    return (first + 1, last)


def parse_range(text, version=None):
    """Parse a range spec into ``(version, first, last)``.

    Forms: ``A-B`` (inclusive; not reversed, one family), ``NET/LEN`` (the
    whole CIDR including network and broadcast; host bits must be clear) or
    a single address ``A``.  With ``version`` the range must be of that
    family.
    """
    original = _text(text, 'a range')
    if not original:
        raise ValueError('an empty string is not a valid range')
    if '-' in original:
        parts = original.split('-')
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise ValueError("'%s' is not a valid range: use FIRST-LAST, e.g. '10.0.0.10-10.0.0.50'"
                             % original)
        try:
            a = parse_address(parts[0])
            b = parse_address(parts[1])
        except ValueError as exc:
            raise ValueError("'%s' is not a valid range: %s" % (original, exc))
        if a.version != b.version:
            raise ValueError("'%s' is not a valid range: it mixes an %s and an %s address"
                             % (original, _FAMILY[a.version], _FAMILY[b.version]))
        v, first, last = a.version, int(a), int(b)
        if first > last:
            raise ValueError("'%s' is not a valid range: it is reversed, the first address is "
                             "greater than the last; did you mean '%s'?"
                             % (original, format_span(v, last, first)))
    elif '/' in original:
        net = parse_network(original, strict=True)
        v, first, last = net.version, net.first, net.last
    else:
        a = parse_address(original)
        v, first, last = a.version, int(a), int(a)
    if version is not None and v != version:
        raise ValueError("'%s' is not an %s range" % (original, _FAMILY.get(version, 'IPv%s' % version)))
    return (v, first, last)
