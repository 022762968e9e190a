# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What ``netpool.ipam.adopt`` reads (``_vocabulary._sources``): entries, CSV, and lease files written by the real
servers: Kea's memfile as ``kea-lfc`` (Kea's lease file cleanup, which rewrites a memfile with Kea's own writer)
writes it, and dnsmasq's lease file as a dnsmasq on loopback rewrites it when it starts (dropping what expired)."""

import os
import signal
import subprocess
import time

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation import _adopt
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _sources
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.tests.support import dhcp_dns
from ansible_collections.netpool.ipam.tests.support.clock import Clock

NOW = 1795000000

#: DHCPv4 and DHCPv6 memfile rows as Kea's documentation (its memfile section, the lease file format) gives
#: them, with the columns of the Kea installed here: what kea-lfc is given to rewrite
KEA4 = [
    'address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context',
    '192.0.2.10,52:54:00:00:00:0a,01:52:54:00:00:00:0a,3600,%d,1,0,0,printer.example.org.,0,' % (NOW + 600),
    '192.0.2.11,52:54:00:00:00:0b,,3600,%d,1,0,0,old,0,' % (NOW - 1),
    '192.0.2.12,52:54:00:00:00:0c,,3600,%d,1,0,0,,0,' % (NOW + 600),
    '192.0.2.13,52:54:00:00:00:0d,,3600,%d,1,0,0,declined,1,' % (NOW + 600),
    '192.0.2.14,52:54:00:00:00:0e,,3600,%d,1,0,0,reclaimed,2,' % (NOW + 600),
    '192.0.2.11,52:54:00:00:00:0b,,3600,%d,1,0,0,old-renewed,0,' % (NOW + 900),
]
KEA6 = [
    'address,duid,valid_lifetime,expire,subnet_id,pref_lifetime,lease_type,iaid,prefix_len,fqdn_fwd,fqdn_rev,'
    'hostname,hwaddr,state,user_context,hwtype,hwaddr_source',
    '2001:db8:1::10,00:01:00:01:2a:2b:2c:2d:52:54:00:00:00:0a,3600,%d,1,1800,0,1,128,0,0,host6.example.org.,'
    '52:54:00:00:00:0a,0,,1,1' % (NOW + 600),
    '2001:db8:1::11,00:03:00:01:52:54:00:00:00:0b,3600,%d,1,1800,0,1,128,0,0,,,0,,,' % (NOW + 600),
    '2001:db8:2::,00:03:00:01:52:54:00:00:00:0c,3600,%d,1,1800,2,1,64,0,0,,,0,,,' % (NOW + 600),
    '2001:db8:1::12,00:03:00:01:52:54:00:00:00:0d,3600,%d,1,1800,0,1,128,0,0,gone6,,0,,,' % (NOW - 5),
]


def kea_written(directory, family, rows):
    """The memfile kea-lfc writes from ``rows`` (``family`` 4 or 6): its path."""
    lfc = dhcp_dns.program('kea-lfc')
    names = dict((name, str(directory / ('%s%d' % (name, family)))) for name in ('in', 'prev', 'out', 'fin', 'pid'))
    with open(names['in'], 'w') as f:
        f.write('\n'.join(rows) + '\n')
    open(names['prev'], 'w').close()
    done = subprocess.run([lfc, '-%d' % family, '-p', names['pid'], '-x', names['prev'], '-i', names['in'],
                           '-o', names['out'], '-f', names['fin'], '-c', 'unused'], env=dict(
                               os.environ, KEA_LOCKFILE_DIR='none', KEA_PIDFILE_DIR=str(directory)),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60, check=False)
    assert done.returncode == 0, done.stdout
    return names['prev']        # kea-lfc ends by putting its output in place of the previous file


def dnsmasq_written(directory, lines):
    """The lease file a dnsmasq on loopback writes once it has read ``lines`` (it drops the expired leases)."""
    path = directory / 'dnsmasq.leases'
    path.write_text(u'\n'.join(lines) + '\n')
    given = path.read_text()
    port = dhcp_dns.free_port()
    process = subprocess.Popen([dhcp_dns.program('dnsmasq'), '--no-daemon', '--conf-file=/dev/null', '--port=0',
                                '--dhcp-leasefile=%s' % path, '--dhcp-range=127.0.0.50,127.0.0.150,12h',
                                '--dhcp-range=::10,::ff,constructor:lo', '--interface=lo', '--bind-interfaces',
                                '--dhcp-alternate-port=%d,%d' % (port, port + 1),
                                '--pid-file=%s' % (directory / 'dnsmasq.pid')],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while path.read_text() == given and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)     # waiting for dnsmasq to rewrite the file, a condition
        assert path.read_text() != given, process.stderr.read1().decode() if process.poll() is not None else ''
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        process.stderr.close()
    return str(path)


def seen(entries):
    return [(iv_text(e), e.owner, e.key, e.pool, e.metadata, e.where.rsplit(' ', 1)[-1]) for e in entries]


def iv_text(e):
    return _adopt.iv.to_str(e.version, e.address)


def invalid(call, *args):
    with pytest.raises(IpamError) as info:
        call(*args)
    assert info.value.code == 'invalid_argument', info.value.msg
    return info.value.msg


def test_kea_leases_in_use_as_kea_lfc_writes_them(tmp_path):
    v4 = kea_written(tmp_path, 4, KEA4)
    with open(v4) as f:
        assert f.readline().startswith('address,hwaddr,client_id,valid_lifetime,expire,')
    assert seen(_sources.from_kea(v4, NOW)) == [
        ('192.0.2.10', 'printer.example.org', 'default', None, {'mac': '52:54:00:00:00:0a'}, '2'),
        ('192.0.2.11', 'old-renewed', 'default', None, {'mac': '52:54:00:00:00:0b'}, '3'),
        ('192.0.2.12', '52:54:00:00:00:0c', 'default', None, {'mac': '52:54:00:00:00:0c'}, '4')]
    v6 = kea_written(tmp_path, 6, KEA6)
    assert seen(_sources.from_kea(v6, NOW, 'eth0', 'lab')) == [
        ('2001:db8:1::10', 'host6.example.org', 'eth0', 'lab', {'mac': '52:54:00:00:00:0a'}, '2'),
        ('2001:db8:1::11', '00:03:00:01:52:54:00:00:00:0b', 'eth0', 'lab', {}, '3')]
    # the file's last row of an address holds (Kea appends until kea-lfc cleans it up)
    appended = tmp_path / 'appended.csv'
    appended.write_text(u'\n'.join(KEA4 + ['192.0.2.10,52:54:00:00:00:0a,,0,%d,1,0,0,printer,0,' % NOW]) + '\n')
    assert [iv_text(e) for e in _sources.from_kea(str(appended), NOW)] == ['192.0.2.11', '192.0.2.12']


def test_dnsmasq_leases_in_use_as_dnsmasq_writes_them(tmp_path):
    now = int(time.time())      # dnsmasq drops by its own clock what expired: the leases are hours from it
    path = dnsmasq_written(tmp_path, [
        '%d 52:54:00:00:00:0a 127.0.0.60 printer 01:52:54:00:00:00:0a' % (now + 36000),
        '%d 52:54:00:00:00:0b 127.0.0.61 old *' % (now - 36000),
        '0 52:54:00:00:00:0c 127.0.0.62 * *',
        'duid 00:01:00:01:2a:2b:2c:2d:52:54:00:00:00:01',
        '%d 1234 2001:db8::10 host6 00:01:00:01:2a:2b:2c:2d:52:54:00:00:00:0a' % (now + 36000),
        '%d 1235 2001:db8::11 * 00:01:00:01:2a:2b:2c:2d:52:54:00:00:00:0b' % (now + 36000)])
    found = sorted(seen(_sources.from_dnsmasq(path, now)), key=lambda e: e[0])
    assert [e[:5] for e in found] == [
        ('127.0.0.60', 'printer', 'default', None, {'mac': '52:54:00:00:00:0a'}),
        ('127.0.0.62', '52:54:00:00:00:0c', 'default', None, {'mac': '52:54:00:00:00:0c'}),
        ('2001:db8::10', 'host6', 'default', None, {}),
        ('2001:db8::11', '00:01:00:01:2a:2b:2c:2d:52:54:00:00:00:0b', 'default', None, {})]
    # the expiry is decided against the clock given (the service's): later, the 10-hour leases have expired
    assert [iv_text(e) for e in _sources.from_dnsmasq(path, now + 36001)] == ['127.0.0.62']


def test_csv_columns_and_metadata(tmp_path):
    path = tmp_path / 'hosts.csv'
    path.write_text(u'\ufeffAddress,Owner,key,pool,mac,rack,note\n'
                    u'10.0.0.5,printer,,,52-54-00-00-00-0A,r1,"second floor, east"\n'
                    u'\n'
                    u'2001:db8::5 ,nas,eth1,lab,,,\n')
    assert seen(_sources.from_csv(str(path))) == [
        ('10.0.0.5', 'printer', 'default', None,
         {'mac': '52:54:00:00:00:0a', 'rack': 'r1', 'note': 'second floor, east'}, '2'),
        ('2001:db8::5', 'nas', 'eth1', 'lab', {}, '4')]


@pytest.mark.parametrize('text, says', [
    (u'owner,mac\nprinter,x\n', 'line 1: the header row names no address column'),
    (u'address,owner\n10.0.0.5,printer\n,nas\n', 'line 3: no address.'),
    (u'address,owner\n10.0.0.5,printer\n10.0.0.999,nas\n', "line 3: address '10.0.0.999'"),
    (u'address,owner\n10.0.0.5,\n', 'line 2: owner must be a non-empty string'),
    (u'address,owner\n10.0.0.5,printer,extra\n', 'line 2: 3 cells, and the header row names 2 columns.'),
    (u'address,owner,mac\n10.0.0.5,printer,nope\n', "line 2: metadata mac 'nope' is not a MAC address"),
])
def test_a_malformed_csv_names_the_file_and_the_line(tmp_path, text, says):
    path = tmp_path / 'hosts.csv'
    path.write_text(text)
    msg = invalid(_sources.from_csv, str(path))
    assert msg.startswith(str(path)) and says in msg, msg


def test_a_lease_file_of_the_other_format_or_malformed_names_the_file_and_the_line(tmp_path):
    kea = tmp_path / 'kea-leases4.csv'
    kea.write_text(u'\n'.join(KEA4) + '\n')
    dnsmasq = tmp_path / 'dnsmasq.leases'
    dnsmasq.write_text(u'%d 52:54:00:00:00:0a 10.0.0.5 printer *\n' % (NOW + 60))
    assert '%s line 1: not a dnsmasq lease line' % kea in invalid(_sources.from_dnsmasq, str(kea), NOW)
    assert '%s line 1: not a Kea lease file' % dnsmasq in invalid(_sources.from_kea, str(dnsmasq), NOW)
    kea.write_text(u'\n'.join(KEA4 + ['192.0.2.300,52:54:00:00:00:0f,,3600,%d,1,0,0,x,0,' % (NOW - 60)]) + '\n')
    assert "%s line 8: address '192.0.2.300'" % kea in invalid(_sources.from_kea, str(kea), NOW)
    dnsmasq.write_text(u'%d 52:54:00:00:00:0a 10.0.0.5 printer *\n%d 52:54:00:00:00:0b  x *\n' % (NOW, NOW))
    assert '%s line 2: not a dnsmasq lease line' % dnsmasq in invalid(_sources.from_dnsmasq, str(dnsmasq), NOW)
    assert 'Cannot read %s' % (tmp_path / 'none') in invalid(_sources.from_csv, str(tmp_path / 'none'))


@pytest.mark.parametrize('entries, says', [
    ('10.0.0.5', 'entries must be a list'),
    ([{'address': '10.0.0.5', 'owner': 'a'}, '10.0.0.6'], 'entries[1] must be a dict'),
    ([{'address': '10.0.0.5', 'owner': 'a', 'host': 'x'}], "entries[0] has 'host'"),
    ([{'owner': 'a'}], 'entries[0]: no address.'),
    ([{'address': 'nope', 'owner': 'a'}], "entries[0]: address 'nope'"),
    ([{'address': '10.0.0.5', 'owner': 'a', 'metadata': {'x': {'y': 1}}}], 'entries[0]: metadata'),
])
def test_bad_entries(entries, says):
    assert says in invalid(_sources.from_entries, entries)


def test_a_malformed_source_writes_nothing(tmp_path):
    """The source is read whole before the transaction: a bad last row leaves the store as it was."""
    store = open_store(str(tmp_path / 'ipam.sqlite'))
    svc = Service(store, clock=Clock(NOW))
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/24'}])
    path = tmp_path / 'hosts.csv'
    path.write_text(u'address,owner\n10.0.0.5,printer\n10.0.0.6\n')
    before = export_document(store)
    assert '%s line 3: owner must be' % path in invalid(_adopt.read_source, svc, None, str(path))
    msg = invalid(_adopt.read_source, svc, [{'address': '10.0.0.5', 'owner': 'a'}], str(path))
    assert 'exactly one source' in msg
    assert 'leases_format' in invalid(_adopt.read_source, svc, None, None, str(path))
    assert export_document(store) == before
    store.close()
