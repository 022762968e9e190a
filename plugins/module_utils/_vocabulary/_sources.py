# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What ``netpool.ipam.adopt`` reads: the addresses a network already uses, as ``Entry`` objects.

This is a private module: it may change at any time. Four sources, one reader each:

- ``from_entries``: a list of dicts (``address``, ``owner``, and ``key``, ``pool``, ``mac``, ``metadata``);
- ``from_csv``: a spreadsheet saved as CSV: a header row naming ``address`` and ``owner`` (``key``, ``pool``,
  ``mac`` optional); every other column is kept as metadata, an empty cell left out;
- ``from_kea``: Kea's memfile lease file (``kea-leases4.csv``, ``kea-leases6.csv``): the last row of an address
  wins (the file is appended to until ``kea-lfc`` cleans it up), and only leases in the default state that have
  not expired are read (declined, expired-reclaimed and released ones are not in use); prefix delegations are
  not addresses and are left out;
- ``from_dnsmasq``: dnsmasq's lease file (DHCPv4 lines, and after its ``duid`` line DHCPv6 ones); an expiry of 0
  never expires.

A lease's owner is its hostname, else its MAC (DHCPv6 without either: the client's DUID). Anything that does not
read (a row without an address, an address that does not parse, a lease file of the other format) is
``invalid_argument`` naming the file and the line: nothing of the source is taken then.
"""

import csv

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _metadata
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import InvalidArgument


#: the keys of an element of ``entries`` (and the columns of a CSV that are not metadata)
ENTRY_KEYS = ('address', 'owner', 'key', 'pool', 'mac', 'metadata')
#: Kea's memfile lease states (``lease_state``): only a lease in the default state is in use
KEA_DEFAULT_STATE = '0'
#: Kea's DHCPv6 lease type of a delegated prefix (not an address)
KEA_PREFIX = '2'


class Entry(object):
    """One address to adopt: ``(version, n)``, owner, key, pool (None: the innermost pool holding it), metadata,
    and ``where`` it was read (``entries[3]``, ``hosts.csv line 4``)."""

    __slots__ = ('version', 'address', 'owner', 'key', 'pool', 'metadata', 'where')

    def __init__(self, address, owner, key, pool, metadata, where):
        self.version, self.address = address
        self.owner, self.key, self.pool, self.metadata, self.where = owner, key, pool, metadata, where


def entry(where, address, owner, key=None, pool=None, mac=None, metadata=None):
    """An ``Entry`` checked: ``invalid_argument`` starting with ``where`` for anything wrong."""
    try:
        if address is None or (isinstance(address, str) and not address.strip()):
            raise InvalidArgument('no address.')
        if not isinstance(address, str):
            raise InvalidArgument('address must be a string, got %r.' % (address,))
        checked = _checks.address(address.strip(), 'address %r' % address)
        _checks.check_name(owner, 'owner')
        key = 'default' if key in (None, '') else _checks.check_name(key, 'key')
        pool = None if pool in (None, '') else _checks.check_name(pool, 'pool')
        metadata = dict(_checks.check_metadata(metadata) or {})
        if mac not in (None, ''):
            metadata['mac'] = mac
        metadata = _metadata.reservation(metadata)
    except InvalidArgument as e:
        raise InvalidArgument('%s: %s' % (where, e.msg))
    return Entry(checked, owner, key, pool, metadata, where)


def from_entries(entries, key=None, pool=None):
    """The ``entries`` option: a list of dicts. ``key`` and ``pool``: for an element that gives none."""
    if not isinstance(entries, (list, tuple)):
        raise InvalidArgument('entries must be a list of {address, owner, ...} dicts, got %r.' % (entries,))
    found = []
    for i, element in enumerate(entries):
        where = 'entries[%d]' % i
        if not isinstance(element, dict):
            raise InvalidArgument('%s must be a dict with address and owner, got %r.' % (where, element))
        unknown = sorted(set(element) - set(ENTRY_KEYS))
        if unknown:
            raise InvalidArgument('%s has %s: an element of entries takes %s only.'
                                  % (where, ', '.join(repr(k) for k in unknown), ', '.join(ENTRY_KEYS)))
        found.append(entry(where, element.get('address'), element.get('owner'), element.get('key') or key,
                           element.get('pool') or pool, element.get('mac'), element.get('metadata')))
    return found


def _read(path):
    """The lines of a text file, or ``invalid_argument`` saying why it cannot be read."""
    try:
        with open(path, encoding='utf-8-sig', newline='') as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidArgument('Cannot read %s: %s.' % (path, e))


def from_csv(path, key=None, pool=None):
    """A CSV file with a header row: ``address`` and ``owner`` required, ``key``, ``pool``, ``mac`` optional,
    every other column metadata (an empty cell is left out)."""
    reader = csv.reader(_read(path))
    header = next(reader, None)
    names = [name.strip() for name in header or ()]
    missing = [name for name in ('address', 'owner') if name not in [n.lower() for n in names]]
    if missing:
        raise InvalidArgument('%s line 1: the header row names no %s column: a CSV to adopt starts with a header '
                              'row naming address and owner (key, pool and mac optional; any other column is kept '
                              'as metadata).' % (path, ' and no '.join(missing)))
    columns = [name.lower() if name.lower() in ENTRY_KEYS[:5] else name for name in names]
    found = []
    for row in reader:
        where = '%s line %d' % (path, reader.line_num)
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(columns):
            raise InvalidArgument('%s: %d cells, and the header row names %d columns.'
                                  % (where, len(row), len(columns)))
        cells = dict((name, cell.strip()) for name, cell in zip(columns, row))
        metadata = dict((name, value) for name, value in cells.items() if name not in ENTRY_KEYS and value)
        found.append(entry(where, cells.get('address'), cells.get('owner') or None, cells.get('key') or key,
                           cells.get('pool') or pool, cells.get('mac'), metadata))
    return found


def _lease_owner(hostname, mac, other=None):
    """A lease's owner: its hostname (without a trailing dot), else its MAC, else ``other`` (a DUID)."""
    hostname = (hostname or '').strip().rstrip('.')
    return hostname or mac or other


def _mac_or_none(text):
    """``text`` as a MAC address, or None where it is none (a hardware address of another kind)."""
    try:
        return _metadata.mac(text)
    except InvalidArgument:
        return None


def from_kea(path, now, key=None, pool=None):
    """Kea's memfile lease file (DHCPv4 or DHCPv6): the leases in use at epoch second ``now``."""
    lines = _read(path)
    header = lines[0].split(',') if lines else []
    if 'address' not in header or 'expire' not in header or not ('hwaddr' in header or 'duid' in header):
        raise InvalidArgument('%s line 1: not a Kea lease file: its first line is not the header of a Kea memfile '
                              '(address,hwaddr,... or address,duid,...). Is it a dnsmasq lease file '
                              '(leases_format: dnsmasq)?' % path)
    last = {}       # address -> (where, the row's cells): the file is appended to, the last row holds
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        where = '%s line %d' % (path, number)
        cells = dict(zip(header, line.split(',')))
        if len(line.split(',')) < header.index('expire') + 1 or not cells.get('address'):
            raise InvalidArgument('%s: a row without an address and expiry: not a Kea lease row.' % where)
        if not cells['expire'].strip().isdigit():
            raise InvalidArgument('%s: expire %r is not a time in seconds.' % (where, cells['expire']))
        try:
            _checks.address(cells['address'].strip(), 'address %r' % cells['address'])
        except InvalidArgument as e:
            raise InvalidArgument('%s: %s' % (where, e.msg))
        last[cells['address'].strip()] = (where, cells)
    found = []
    for address, (where, cells) in last.items():
        if cells.get('state', KEA_DEFAULT_STATE).strip() not in ('', KEA_DEFAULT_STATE) \
                or int(cells['expire']) <= now or cells.get('valid_lifetime', '').strip() == '0' \
                or cells.get('lease_type', '').strip() == KEA_PREFIX:
            continue
        mac = _mac_or_none(cells.get('hwaddr', '').strip()) if cells.get('hwaddr', '').strip() else None
        hostname = cells.get('hostname', '').replace('&#x2c', ',')
        found.append(entry(where, address, _lease_owner(hostname, mac, cells.get('duid', '').strip()), key, pool,
                           mac))
    return found


def from_dnsmasq(path, now, key=None, pool=None):
    """dnsmasq's lease file: ``EXPIRY MAC ADDRESS HOSTNAME CLIENT-ID`` lines (DHCPv6, after the ``duid`` line:
    ``EXPIRY IAID ADDRESS HOSTNAME DUID``); the leases in use at epoch second ``now`` (an expiry of 0: never)."""
    found, v6 = [], False
    for number, line in enumerate(_read(path), start=1):
        where = '%s line %d' % (path, number)
        words = line.split()
        if not words:
            continue
        if words[0] == 'duid' and len(words) == 2:
            v6 = True
            continue
        if len(words) != 5 or not words[0].isdigit():
            raise InvalidArgument('%s: not a dnsmasq lease line (EXPIRY MAC ADDRESS HOSTNAME CLIENT-ID). Is it a '
                                  'Kea lease file (leases_format: kea)?' % where)
        expiry, hardware, address, hostname, client = words
        if expiry != '0' and int(expiry) <= now:
            continue
        mac = None if v6 else _mac_or_none(hardware)
        owner = _lease_owner('' if hostname == '*' else hostname, mac or (None if v6 else hardware),
                             None if client == '*' else client)
        found.append(entry(where, address, owner, key, pool, mac))
    return found


READERS = {'kea': from_kea, 'dnsmasq': from_dnsmasq}
