# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Property tests of _intervals against a naive set-of-ints model, and
example tests of its parsers and formatters."""

import ipaddress

import netaddr
import pytest
from hypothesis import given, strategies as st

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv


# Small windows of the address space the model enumerates (64 addresses
# each): inside 10.0.0.0/26, inside 2001:db8::/120, and the very top of the
# 128-bit space (to catch off-by-ones at 2**128 - 1).
WINDOW = 64
BASES = [
    int(ipaddress.IPv4Address('10.0.0.0')),
    int(ipaddress.IPv6Address('2001:db8::')),
    (1 << 128) - WINDOW,
]
TOP = (1 << 128) - 1


# ---------------------------------------------------------------------------
# naive model
# ---------------------------------------------------------------------------

def to_set(spans):
    out = set()
    for first, last in spans:
        out.update(range(first, last + 1))
    return out


def to_spans(addresses):
    """The merged spans of a set of ints, built one address at a time."""
    out = []
    for x in sorted(addresses):
        if out and out[-1][1] + 1 == x:
            out[-1] = (out[-1][0], x)
        else:
            out.append((x, x))
    return out


def assert_merged(spans):
    assert isinstance(spans, list)
    for s in spans:
        assert isinstance(s, tuple) and len(s) == 2
        assert s[0] <= s[1]
    for a, b in zip(spans, spans[1:]):
        assert a[1] + 1 < b[0], 'spans %r and %r overlap or touch' % (a, b)


# ---------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------

bases = st.sampled_from(BASES)


def span_in(base):
    return st.tuples(st.integers(0, WINDOW - 1), st.integers(0, WINDOW - 1)).map(
        lambda t: (base + min(t), base + max(t)))


def spans_in(base, max_size=8):
    return st.lists(span_in(base), max_size=max_size)


def addr_near(base):
    """An address of the window, or just outside it (never past 2**128-1)."""
    hi = WINDOW + 1 if base + WINDOW + 1 <= TOP else WINDOW - 1
    return st.integers(-2, hi).map(lambda o: base + o)


@st.composite
def world(draw, n_lists=1):
    base = draw(bases)
    lists = [draw(spans_in(base)) for _i in range(n_lists)]
    return base, lists


@st.composite
def merged_and_addr(draw):
    base = draw(bases)
    spans = iv.merge(draw(spans_in(base)))
    return base, spans, draw(addr_near(base))


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------

@given(world())
def test_merge(w):
    _base, (spans,) = w
    got = iv.merge(spans)
    assert_merged(got)
    assert got == to_spans(to_set(spans))


@given(world())
def test_merge_accepts_lists_in_any_order(w):
    _base, (spans,) = w
    as_lists = [list(s) for s in reversed(spans)]
    assert iv.merge(as_lists) == to_spans(to_set(spans))


@given(world(n_lists=2))
def test_subtract(w):
    _base, (a, b) = w
    got = iv.subtract(a, b)
    assert_merged(got)
    assert got == to_spans(to_set(a) - to_set(b))


@given(world(n_lists=2))
def test_intersect(w):
    _base, (a, b) = w
    got = iv.intersect(a, b)
    assert_merged(got)
    assert got == to_spans(to_set(a) & to_set(b))
    swapped_a, swapped_b = b, a
    assert got == iv.intersect(swapped_a, swapped_b)


@given(world(n_lists=2))
def test_algebra(w):
    """A = (A - B) + (A & B), disjointly."""
    _base, (a, b) = w
    diff = iv.subtract(a, b)
    both = iv.intersect(a, b)
    assert iv.intersect(diff, both) == []
    assert iv.merge(diff + both) == iv.merge(a)
    assert iv.count(diff) + iv.count(both) == iv.count(a)


@given(merged_and_addr())
def test_contains(t):
    _base, spans, x = t
    assert iv.contains(spans, x) == (x in to_set(spans))
    assert iv.contains([list(s) for s in spans], x) == (x in to_set(spans))


@given(world())
def test_count(w):
    _base, (spans,) = w
    assert iv.count(spans) == len(to_set(spans))


@given(world())
def test_nth(w):
    _base, (spans,) = w
    merged = iv.merge(spans)
    ordered = sorted(to_set(spans))
    for n, x in enumerate(ordered):
        assert iv.nth(merged, n) == x
    with pytest.raises(IndexError):
        iv.nth(merged, len(ordered))
    with pytest.raises(IndexError):
        iv.nth(merged, -1)


@st.composite
def block_problem(draw):
    base = draw(bases)
    obstacles = draw(spans_in(base))
    lo = base + draw(st.integers(0, WINDOW - 1))
    hi = base + draw(st.integers(0, WINDOW - 1))
    size = 1 << draw(st.integers(0, 6))
    return obstacles, lo, hi, size


@given(block_problem())
def test_first_aligned_block(p):
    obstacles, lo, hi, size = p
    blocked = to_set(obstacles)
    expected = None
    s = lo
    while s <= hi:
        if s % size == 0 and s + size - 1 <= hi and not any(
                x in blocked for x in range(s, s + size)):
            expected = s
            break
        s += 1
    assert iv.first_aligned_block(obstacles, lo, hi, size) == expected


@given(st.integers(0, iv._MAX[6]), st.integers(0, iv._MAX[6]), bases)
def test_key_orders_like_numbers(a, b, v4_base):
    a4, b4 = a & iv._MAX[4], b & iv._MAX[4]
    assert (iv.key(4, a4) < iv.key(4, b4)) == (a4 < b4)
    assert (iv.key(6, a) < iv.key(6, b)) == (a < b)
    assert iv.key(4, a4) < iv.key(6, b)
    assert iv.from_key(iv.key(6, a)) == (6, a)
    assert iv.from_key(iv.key(4, a4)) == (4, a4)
    assert len(iv.key(4, a4)) == len(iv.key(6, a)) == 34


@given(st.integers(0, iv._MAX[6]))
def test_ipv6_text_is_rfc5952_and_round_trips(n):
    text = iv.to_str(6, n)
    assert text == ipaddress.IPv6Address(n).compressed or (n >> 32) == 0xffff
    if (n >> 32) != 0xffff:  # IPv4-mapped addresses are refused on input
        assert int(iv.parse_address(text)) == n


@given(st.integers(0, iv._MAX[4]))
def test_ipv4_text_round_trips(n):
    text = iv.to_str(4, n)
    assert text == str(ipaddress.IPv4Address(n))
    assert int(iv.parse_address(text)) == n


@given(world())
def test_format_and_parse_range_round_trip(w):
    base, (spans,) = w
    version = 4 if base < (1 << 32) else 6
    texts = [iv.format_span(version, first, last) for first, last in iv.merge(spans)]
    for text in texts:
        first, last = iv.parse_range(text)[1:]
        assert iv.format_span(version, first, last) == text
    assert [iv.parse_range(t)[1:] for t in texts] == iv.merge(spans)


# ---------------------------------------------------------------------------
# huge spans: nothing may enumerate addresses
# ---------------------------------------------------------------------------

def test_huge_spans_do_not_enumerate():
    everything = [(0, TOP)]
    assert iv.count(everything) == 1 << 128

    # ::/0 minus one /64 in the middle and the last address.
    _v, f, end = iv.parse_range('2001:db8::/64')
    rest = iv.subtract(everything, [(f, end), (TOP, TOP)])
    assert rest == [(0, f - 1), (end + 1, TOP - 1)]
    assert iv.count(rest) == (1 << 128) - (1 << 64) - 1
    assert iv.nth(rest, f) == end + 1
    assert iv.contains(rest, TOP) is False

    # A /8 child out of ::/0 with the first address of ::/8 taken.
    size = 1 << 120
    assert iv.first_aligned_block([(0, 0)], 0, TOP, size) == size
    # ...and with one address held in each of the first 200 /8s.
    obstacles = [(k * size + 5, k * size + 5) for k in range(200)]
    assert iv.first_aligned_block(obstacles, 0, TOP, size) == 200 * size
    # A /16 out of ::/0 when one address of each of the first 5000 /16s is held.
    size16 = 1 << 112
    obstacles = [(k * size16 + k, k * size16 + k) for k in range(5000)]
    assert iv.first_aligned_block(obstacles, 0, TOP, size16) == 5000 * size16
    # Every /8 blocked -> None, quickly.
    obstacles = [(k * size, k * size) for k in range(256)]
    assert iv.first_aligned_block(obstacles, 0, TOP, size) is None

    # First free /64 of 2001:db8::/32 after the first 65536 /64s are used:
    # one obstacle span covering them, one per-address obstacle elsewhere.
    _v, first, last = iv.parse_range('2001:db8::/32')
    size64 = 1 << 64
    obstacles = [(first, first + 65536 * size64 - 1), (first + 65536 * size64 + 7,) * 2]
    assert iv.first_aligned_block(obstacles, first, last, size64) == first + 65537 * size64
    assert iv.format_span(6, first + 65537 * size64, first + 65538 * size64 - 1) == \
        '2001:db8:1:1::-2001:db8:1:1:ffff:ffff:ffff:ffff'

    # The usable hosts of ::/0 and 2001:db8::/32 as spans.
    assert iv.usable(iv.parse_network('::/0')) == (1, TOP)
    assert iv.count([iv.usable(iv.parse_network('2001:db8::/32'))]) == (1 << 96) - 1


# ---------------------------------------------------------------------------
# span functions: examples and argument errors
# ---------------------------------------------------------------------------

def test_spec_split_example():
    _v, a, b = iv.parse_range('10.0.0.10-10.0.0.100')
    _v, c, d = iv.parse_range('10.0.0.20-10.0.0.50')
    assert [iv.format_span(4, first, last) for first, last in iv.subtract([(a, b)], [(c, d)])] == [
        '10.0.0.10-10.0.0.19', '10.0.0.51-10.0.0.100']


def test_merge_rejects_bad_spans():
    with pytest.raises(ValueError, match='reversed'):
        iv.merge([(5, 4)])
    with pytest.raises(ValueError, match='span'):
        iv.merge([(1, 2, 3)])
    with pytest.raises(ValueError, match='integers'):
        iv.merge([('1', '2')])


def test_first_aligned_block_rejects_bad_size():
    for size in (0, -4, 3, 6, 2.0):
        with pytest.raises(ValueError, match='power of two'):
            iv.first_aligned_block([], 0, 100, size)


def test_first_aligned_block_edges():
    assert iv.first_aligned_block([], 5, 4, 1) is None
    assert iv.first_aligned_block([], 1, 7, 4) == 4
    assert iv.first_aligned_block([], 1, 6, 4) is None
    assert iv.first_aligned_block([(4, 4)], 0, 15, 4) == 0
    assert iv.first_aligned_block([(3, 4)], 0, 15, 4) == 8
    assert iv.first_aligned_block([[3, 4]], 0, 15, 4) == 8
    assert iv.first_aligned_block([], 0, TOP, 1 << 128) == 0


def test_empty_spans():
    assert iv.merge([]) == []
    assert iv.subtract([], [(1, 2)]) == []
    assert iv.intersect([], [(1, 2)]) == []
    assert iv.contains([], 1) is False
    assert iv.count([]) == 0
    with pytest.raises(IndexError):
        iv.nth([], 0)


# ---------------------------------------------------------------------------
# parsers and formatters
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('text, version, value', [
    ('10.0.0.1', 4, 0x0a000001),
    ('  10.0.0.1\n', 4, 0x0a000001),
    ('0.0.0.0', 4, 0),
    ('255.255.255.255', 4, iv._MAX[4]),
    ('2001:DB8::1', 6, 0x20010db8000000000000000000000001),
    ('::', 6, 0),
    ('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 6, TOP),
    ('64:ff9b::192.0.2.1', 6, 0x0064ff9b0000000000000000c0000201),
])
def test_parse_address_ok(text, version, value):
    addr = iv.parse_address(text)
    assert isinstance(addr, netaddr.IPAddress)
    assert (addr.version, int(addr)) == (version, value)


@pytest.mark.parametrize('text, message', [
    ('10.0.0.300', "'10.0.0.300' is not a valid IP address"),
    ('10.1', "'10.1' is not a valid IP address"),
    ('010.0.0.1', "'010.0.0.1' is not a valid IP address"),
    ('0x0a000001', "'0x0a000001' is not a valid IP address"),
    ('1', "'1' is not a valid IP address"),
    ('1.2.3.4.5', "'1.2.3.4.5' is not a valid IP address"),
    ('2001:db8::1::2', "'2001:db8::1::2' is not a valid IP address"),
    ('fe80::1%eth0', "'fe80::1%eth0' is not a valid IP address"),
    ('10.0.0.0/24', "'10.0.0.0/24' is not a valid IP address: give an address without a prefix"),
    ('10.0.0.1-10.0.0.2', "'10.0.0.1-10.0.0.2' is not a valid IP address"),
    ('host.example.com', "'host.example.com' is not a valid IP address"),
    ('', 'an empty string is not a valid IP address'),
    ('   ', 'an empty string is not a valid IP address'),
    ('::ffff:1.2.3.4', "'::ffff:1.2.3.4' is an IPv4-mapped IPv6 address; use the IPv4 address 1.2.3.4"),
    ('::ffff:102:304', "'::ffff:102:304' is an IPv4-mapped IPv6 address; use the IPv4 address 1.2.3.4"),
    (167772161, 'an IP address must be a string, not int'),
    (None, 'an IP address must be a string, not NoneType'),
])
def test_parse_address_errors(text, message):
    with pytest.raises(ValueError) as info:
        iv.parse_address(text)
    assert str(info.value).startswith(message)
    assert 'AddrFormatError' not in str(info.value)


def test_parse_address_version():
    assert iv.parse_address('10.0.0.1', version=4).version == 4
    with pytest.raises(ValueError, match="'10.0.0.1' is not an IPv6 address"):
        iv.parse_address('10.0.0.1', version=6)
    with pytest.raises(ValueError, match="'::1' is not an IPv4 address"):
        iv.parse_address('::1', version=4)


@pytest.mark.parametrize('text, cidr, usable', [
    ('10.0.0.0/24', '10.0.0.0/24', ('10.0.0.1', '10.0.0.254')),
    (' 10.0.0.0/30 ', '10.0.0.0/30', ('10.0.0.1', '10.0.0.2')),
    ('10.0.0.0/31', '10.0.0.0/31', ('10.0.0.0', '10.0.0.1')),
    ('10.0.0.7/32', '10.0.0.7/32', ('10.0.0.7', '10.0.0.7')),
    ('0.0.0.0/0', '0.0.0.0/0', ('0.0.0.1', '255.255.255.254')),
    ('2001:db8::/64', '2001:db8::/64', ('2001:db8::1', '2001:db8::ffff:ffff:ffff:ffff')),
    ('2001:DB8:0:0::/126', '2001:db8::/126', ('2001:db8::1', '2001:db8::3')),
    ('2001:db8::/127', '2001:db8::/127', ('2001:db8::1', '2001:db8::1')),
    ('2001:db8::1/128', '2001:db8::1/128', None),
    ('::/0', '::/0', ('::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')),
])
def test_parse_network_and_usable(text, cidr, usable):
    net = iv.parse_network(text)
    assert isinstance(net, netaddr.IPNetwork)
    assert str(net) == cidr
    got = iv.usable(net)
    if usable is None:
        assert got is None
    else:
        assert (iv.to_str(net.version, got[0]), iv.to_str(net.version, got[1])) == usable
    assert iv.usable(text.strip()) == got


@pytest.mark.parametrize('text, message', [
    ('10.0.0.1/24', "'10.0.0.1/24' is not a network address: host bits are set; did you mean '10.0.0.0/24'?"),
    ('2001:db8::1/64', "'2001:db8::1/64' is not a network address: host bits are set; did you mean '2001:db8::/64'?"),
    ('10.0.0.0', "'10.0.0.0' is not a network: give it in CIDR form ADDRESS/PREFIXLEN"),
    ('2001:db8::', "'2001:db8::' is not a network: give it in CIDR form"),
    ('10.0.0.0/33', "'10.0.0.0/33' is not a valid network: the prefix length must be a number from 0 to 32"),
    ('2001:db8::/129', "'2001:db8::/129' is not a valid network: the prefix length must be a number from 0 to 128"),
    ('10.0.0.0/', "'10.0.0.0/' is not a valid network: the prefix length must be a number"),
    ('10.0.0.0/-1', "'10.0.0.0/-1' is not a valid network: the prefix length must be a number"),
    ('10.0.0.0/255.255.255.0', "'10.0.0.0/255.255.255.0' is not a valid network: the prefix length"),
    ('10.0.0.0/24/1', "'10.0.0.0/24/1' is not a valid network: the prefix length"),
    ('10.0.0.300/24', "'10.0.0.300/24' is not a valid network: '10.0.0.300' is not a valid IP address"),
    ('/24', "'/24' is not a valid network: an empty string is not a valid IP address"),
    ('::ffff:10.0.0.0/120', "'::ffff:10.0.0.0/120' is not a valid network: '::ffff:10.0.0.0' is an IPv4-mapped"),
    ('', "'' is not a network"),
    (24, 'a network must be a string, not int'),
])
def test_parse_network_errors(text, message):
    with pytest.raises(ValueError) as info:
        iv.parse_network(text)
    assert str(info.value).startswith(message)


def test_parse_network_not_strict_keeps_the_address():
    net = iv.parse_network('10.0.0.5/24', strict=False)
    assert str(net.ip) == '10.0.0.5'
    assert str(net.cidr) == '10.0.0.0/24'
    assert iv.usable(net) == iv.usable(iv.parse_network('10.0.0.0/24'))


@pytest.mark.parametrize('text, expected', [
    ('10.0.0.10-10.0.0.50', (4, '10.0.0.10-10.0.0.50')),
    (' 10.0.0.10 - 10.0.0.50 ', (4, '10.0.0.10-10.0.0.50')),
    ('10.0.0.7-10.0.0.7', (4, '10.0.0.7-10.0.0.7')),
    ('10.0.0.7', (4, '10.0.0.7-10.0.0.7')),
    ('10.0.0.64/26', (4, '10.0.0.64-10.0.0.127')),
    ('10.0.0.0/31', (4, '10.0.0.0-10.0.0.1')),
    ('10.0.0.9/32', (4, '10.0.0.9-10.0.0.9')),
    ('0.0.0.0/0', (4, '0.0.0.0-255.255.255.255')),
    ('2001:DB8:0:0:0:0:0:10-2001:0db8::00ff', (6, '2001:db8::10-2001:db8::ff')),
    ('2001:db8::/127', (6, '2001:db8::-2001:db8::1')),
    ('2001:db8::1/128', (6, '2001:db8::1-2001:db8::1')),
    ('::/0', (6, '::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')),
    ('2001:db8:0:0:1:0:0:1', (6, '2001:db8::1:0:0:1-2001:db8::1:0:0:1')),
    ('2001:0:0:1:0:0:0:1', (6, '2001:0:0:1::1-2001:0:0:1::1')),
    ('2001:db8:1:1:1:1:1:0', (6, '2001:db8:1:1:1:1:1:0-2001:db8:1:1:1:1:1:0')),
    ('::1:0', (6, '::1:0-::1:0')),
])
def test_parse_range_ok(text, expected):
    version, first, last = iv.parse_range(text)
    assert (version, iv.format_span(version, first, last)) == expected
    assert iv.parse_range(text, version=version) == (version, first, last)


@pytest.mark.parametrize('text, message', [
    ('10.0.0.50-10.0.0.10', "'10.0.0.50-10.0.0.10' is not a valid range: it is reversed, the first address "
                            "is greater than the last; did you mean '10.0.0.10-10.0.0.50'?"),
    ('2001:db8::ff-2001:db8::10', "'2001:db8::ff-2001:db8::10' is not a valid range: it is reversed"),
    ('10.0.0.1-2001:db8::1', "'10.0.0.1-2001:db8::1' is not a valid range: it mixes an IPv4 and an IPv6 address"),
    ('2001:db8::1-10.0.0.1', "'2001:db8::1-10.0.0.1' is not a valid range: it mixes an IPv6 and an IPv4 address"),
    ('10.0.0.1-10.0.0.2-10.0.0.3', "'10.0.0.1-10.0.0.2-10.0.0.3' is not a valid range: use FIRST-LAST"),
    ('10.0.0.1-', "'10.0.0.1-' is not a valid range: use FIRST-LAST"),
    ('-10.0.0.1', "'-10.0.0.1' is not a valid range: use FIRST-LAST"),
    ('10.0.0.1-10.0.0.300', "'10.0.0.1-10.0.0.300' is not a valid range: '10.0.0.300' is not a valid IP address"),
    ('10.0.0.1-::ffff:10.0.0.9', "'10.0.0.1-::ffff:10.0.0.9' is not a valid range: '::ffff:10.0.0.9' is an IPv4-mapped"),
    ('10.0.0.65/26', "'10.0.0.65/26' is not a network address: host bits are set; did you mean '10.0.0.64/26'?"),
    ('10.0.0.0/40', "'10.0.0.0/40' is not a valid network"),
    ('10.0.0.300', "'10.0.0.300' is not a valid IP address"),
    ('::ffff:1.2.3.4', "'::ffff:1.2.3.4' is an IPv4-mapped IPv6 address"),
    ('', 'an empty string is not a valid range'),
    (['10.0.0.1'], 'a range must be a string, not list'),
])
def test_parse_range_errors(text, message):
    with pytest.raises(ValueError) as info:
        iv.parse_range(text)
    assert str(info.value).startswith(message)


def test_parse_range_version():
    with pytest.raises(ValueError, match="'10.0.0.0/24' is not an IPv6 range"):
        iv.parse_range('10.0.0.0/24', version=6)
    with pytest.raises(ValueError, match="'2001:db8::1' is not an IPv4 range"):
        iv.parse_range('2001:db8::1', version=4)


def test_to_str_and_format_span_errors():
    with pytest.raises(ValueError, match='IP version must be 4 or 6'):
        iv.to_str(5, 1)
    with pytest.raises(ValueError, match='is not an IPv4 address value'):
        iv.to_str(4, 1 << 32)
    with pytest.raises(ValueError, match='is not an IPv6 address value'):
        iv.to_str(6, -1)
    with pytest.raises(ValueError, match='reversed'):
        iv.format_span(4, 2, 1)
    assert iv.format_span(4, 0x0a000007, 0x0a000007) == '10.0.0.7-10.0.0.7'


def test_key_examples_and_errors():
    assert iv.key(4, 0x0a000001) == '4:' + '0' * 24 + '0a000001'
    assert iv.key(6, TOP) == '6:' + 'f' * 32
    assert sorted([iv.key(6, 0), iv.key(4, iv._MAX[4]), iv.key(4, 0)]) == [
        iv.key(4, 0), iv.key(4, iv._MAX[4]), iv.key(6, 0)]
    for bad in ('4:0a000001', '5:' + '0' * 32, '6:' + 'F' * 32, '4:' + 'f' * 32, 42, None, ''):
        with pytest.raises(ValueError):
            iv.from_key(bad)
    with pytest.raises(ValueError):
        iv.key(4, 1 << 32)
    with pytest.raises(ValueError):
        iv.key(6, True)
