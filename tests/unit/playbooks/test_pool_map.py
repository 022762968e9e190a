# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""playbooks/pool_map.yml as an operator uses it, on a store holding a dual-stack pool and a parent with a
carved child: rows on multiples of 32, the holder of every IPv4 and IPv6 cell, IPv4 and IPv6 counted apart,
the child's addresses counted as used in the parent, a legend saying so, a table of holders. The page is read
as a browser builds it: headless Chromium's DOM (``--dump-dom``), when Chromium is installed
(``tests/utils/chromium.sh``; NETPOOL_IPAM_TEST_CHROMIUM=required makes it mandatory), and always through
Python's HTML parser, which reads the same markup."""

import os
import shutil
import subprocess
from html.parser import HTMLParser

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.tests.unit.playbooks.test_playbooks import playbook


class Page(HTMLParser):
    """The elements of the page: (tag, attributes, text) in document order, text joined per element."""

    def __init__(self, html):
        super().__init__()
        self.elements, self._open = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        for element in self._open:          # a child's text apart from its neighbours'
            element[2] += ' '
        element = [tag, dict(attrs), '']
        self.elements.append(element)
        if tag not in ('meta', 'br', 'img'):
            self._open.append(element)

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for element in self._open:
            element[2] += data

    def select(self, tag, cls=None):
        return [e for e in self.elements if e[0] == tag and (cls is None or cls in e[1].get('class', '').split())]


def seed(spec):
    service = Service(open_store(spec))
    service.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1', 'ranges': ['10.0.0.10-10.0.0.99']},
                                 {'cidr': '2001:db8::/120', 'gateway': '2001:db8::1', 'ranges': ['2001:db8::10-2001:db8::3f']}])
    service.reserve('web', 'web1', family='dual', metadata={'role': 'front'})
    service.reserve('web', 'web2', family='ipv4')
    service.pool('lab', subnets=[{'cidr': '10.1.0.0/23'}])
    service.pool('lab-a', parent='lab', prefix_length=24)
    service.reserve('lab', 'lab1')
    service.store.close()


def render(tmp_path):
    seed(str(tmp_path / 'ipam.sqlite'))
    dest = tmp_path / 'map.html'
    rc, _tasks, output = playbook('pool_map.yml', tmp_path, '-e', 'map_dest=%s' % dest)
    assert rc == 0, output
    return dest


def check(page):
    sections = dict((e[1]['data-pool'], e) for e in page.select('section'))
    assert sorted(sections) == ['lab', 'lab-a', 'web']
    families = dict(((e[2].split()[0]), e[2].split()) for e in page.select('tr', 'family'))
    # every row header on a multiple of 32: 10.0.0.0 and 10.0.0.96 around the range 10.0.0.10-99, 2001:db8:: for v6
    headers = [e[2] for e in page.select('th') if e[2][:1].isdigit()]
    assert '10.0.0.0' in headers and '10.0.0.96' in headers and '10.0.0.10' not in headers, headers
    assert '2001:db8::' in headers and '2001:db8::20' in headers, headers
    titles = [e[1].get('title', '') for e in page.select('td', 'held')]
    assert any(t.startswith('10.0.0.10: web1 (default, pool web)') for t in titles), titles
    assert any(t.startswith('10.0.0.11: web2 (default, pool web)') for t in titles), titles
    assert any(t.startswith('2001:db8::10: web1 (default, pool web)') for t in titles), titles
    assert all(e[2] == 'X' for e in page.select('td', 'held'))            # a cue that is not colour
    # blank cells outside the ranges: web's 10 before .10 and 28 after .99 (to .127), 16 before 2001:db8::10,
    # lab's 10.1.0.0 and 10.1.1.255 (its range is .0.1-.1.254), lab-a's 10.1.0.0 and 10.1.0.255
    assert len(page.select('td', 'out')) == 10 + 28 + 16 + 2 + 2
    holders = [e[2].split() for e in page.select('tr', 'holder')]
    assert ['10.0.0.10', 'web1', 'default', 'no', 'role=front'] in holders, holders
    assert ['2001:db8::10', 'web1', 'default', 'no', 'role=front'] in holders, holders
    legend = page.select('p', 'legend')[0][2]
    assert 'child pools as used' in legend and 'held' in legend and 'free' in legend, legend
    return families


def figures(page, pool):
    """{family: [size, used, free, utilization]} of ``pool``, from the cells of its figures' rows."""
    found, family, inside = {}, None, False
    for tag, attrs, text in page.elements:
        if tag == 'section':
            inside = attrs.get('data-pool') == pool
        elif inside and tag == 'tr' and 'family' in attrs.get('class', ''):
            family = attrs['data-family']
        elif inside and family and tag == 'td' and 'n' in attrs.get('class', '').split():
            found.setdefault(family, []).append(text.strip())
    return found


def chromium():
    """Chromium's path where a test reads the page with it too: where it is installed, and always with
    NETPOOL_IPAM_TEST_CHROMIUM=required (then a missing one fails the test); else None."""
    found = shutil.which('chromium') or shutil.which('chromium-browser')
    if os.environ.get('NETPOOL_IPAM_TEST_CHROMIUM') == 'required':
        assert found, 'NETPOOL_IPAM_TEST_CHROMIUM=required and no chromium on PATH: run tests/utils/chromium.sh'
    return found


def test_the_pool_map_through_pythons_html_parser_and_headless_chromium(tmp_path):
    """One page, drawn once (an ``ansible-playbook`` start costs more than both readings), read by Python's
    parser and, where Chromium is installed (or required), by headless Chromium, which also takes a screenshot."""
    dest = render(tmp_path)
    page = Page(dest.read_text())
    check(page)
    assert figures(page, 'web') == {'IPv4': ['90', '2', '88', '2.2%'], 'IPv6': ['48', '1', '47', '2.1%']}
    # lab (10.1.0.0/23, range 10.1.0.1-10.1.1.254) with lab-a carved (10.1.0.0/24): the 255 addresses of lab-a
    # inside lab's range count as used in lab, beside lab1's
    assert figures(page, 'lab') == {'IPv4': ['510', str(1 + 255), '254', '50.2%']}
    assert figures(page, 'lab-a') == {'IPv4': ['254', '0', '254', '0.0%']}
    browser = chromium()
    if not browser:
        return      # Python's parser read it; tests/utils/chromium.sh installs Debian's Chromium for the rest
    argv = [browser, '--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=%s' % (tmp_path / 'profile')]
    dom = subprocess.run(argv + ['--dump-dom', dest.as_uri()], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, timeout=120, check=True).stdout
    page = Page(dom)
    check(page)
    assert figures(page, 'web')['IPv6'] == ['48', '1', '47', '2.1%']
    shot = tmp_path / 'map.png'
    subprocess.run(argv + ['--screenshot=%s' % shot, '--window-size=1280,1600', dest.as_uri()],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=True)
    assert shot.stat().st_size > 10000
    if os.environ.get('NETPOOL_IPAM_POOL_MAP_SCREENSHOT'):      # docs/pool_map.png is made this way
        shutil.copy(str(shot), os.environ['NETPOOL_IPAM_POOL_MAP_SCREENSHOT'])


#: what a hostile store holds: each would mark the page's body if the browser ran it
OWNER = '<img src=x onerror="document.body.setAttribute(\'data-owner-ran\', 1)">'
METADATA = '</td><script>document.body.setAttribute("data-metadata-ran", 1)</script>'
DESCRIPTION = '<script>document.body.setAttribute("data-description-ran", 1)</script>'


def test_the_pool_map_shows_what_the_store_holds_as_text(tmp_path):
    """Owners, metadata and descriptions are shown as text: no element comes from them, in Python's parser or in
    headless Chromium (where a script that ran would have marked the body), and the text reads as stored."""
    service = Service(open_store(str(tmp_path / 'ipam.sqlite')))
    service.pool('web', subnets=[{'cidr': '10.0.0.0/28'}], description=DESCRIPTION)
    service.reserve('web', OWNER, metadata={'note': METADATA})
    service.store.close()
    dest = tmp_path / 'map.html'
    rc, _tasks, output = playbook('pool_map.yml', tmp_path, '-e', 'map_dest=%s' % dest)
    assert rc == 0, output
    pages = [Page(dest.read_text())]
    browser = chromium()
    if browser:
        argv = [browser, '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
                '--disable-component-update', '--disable-sync', '--no-first-run',
                '--user-data-dir=%s' % (tmp_path / 'profile'), '--dump-dom', dest.as_uri()]
        pages.append(Page(subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                         timeout=120, check=True).stdout))
    for page in pages:
        assert not page.select('script') and not page.select('img'), page.elements
        body = page.select('body')[0]
        assert not [a for a in body[1] if a.endswith('-ran')], body[1]
        holder = page.select('tr', 'holder')[0][2]
        assert OWNER in holder and 'note=' + METADATA in holder, holder
        assert DESCRIPTION in page.select('p', 'meta')[0][2]
        assert any(e[1].get('title', '').startswith('10.0.0.1: ' + OWNER) for e in page.select('td', 'held'))
    assert len(pages) == (2 if browser else 1)


def test_the_pools_asked_for_are_all_that_is_read_and_a_16_is_drawn_in_blocks(tmp_path):
    """``map_pools=big,small`` beside a pool not asked for: no task reads a reservation of that one. The page
    opens with an index of the two; the /16 is drawn as 256 blocks of 256 addresses with their holders'
    count, its 300 holders folded below; the /24's 30 holders are listed open."""
    service = Service(open_store(str(tmp_path / 'ipam.sqlite')))
    service.pool('big', subnets=[{'cidr': '10.1.0.0/16'}])
    service.pool('small', subnets=[{'cidr': '10.2.0.0/24'}])
    service.pool('other', subnets=[{'cidr': '10.3.0.0/24'}])
    service.reserve_owners('big', ['b%03d' % i for i in range(299)])
    service.reserve('big', 'far', address='10.1.200.7')
    service.reserve_owners('small', ['s%02d' % i for i in range(30)])
    service.reserve_owners('other', ['o%d' % i for i in range(5)])
    service.store.close()
    dest = tmp_path / 'map.html'
    rc, tasks, output = playbook('pool_map.yml', tmp_path, '-e', 'map_pools=big,small', '-e', 'map_dest=%s' % dest)
    assert rc == 0, output
    read = [r['pool'] for results in tasks.values() for result in results
            for r in result.get('reservations', [])]
    assert sorted(set(read)) == ['big', 'small'] and len(read) == 330, sorted(set(read))
    page = Page(dest.read_text())
    tables = page.select('table')
    assert tables[0][1].get('id') == 'index', tables[0]
    assert [e[2].split()[0] for e in page.select('tr', 'index')] == ['big', 'small']
    blocks = dict((e[1]['title'].split(':')[0], e[1]['title']) for e in page.select('td', 'b'))
    assert len(blocks) == 256
    assert blocks['10.1.0.0/24'] == '10.1.0.0/24: 255 of 255 held'       # the range starts at 10.1.0.1
    assert blocks['10.1.1.0/24'] == '10.1.1.0/24: 44 of 256 held'
    assert blocks['10.1.200.0/24'] == '10.1.200.0/24: 1 of 256 held'
    assert blocks['10.1.255.0/24'] == '10.1.255.0/24: 0 of 255 held'
    folded = dict((e[2].split(':')[0].split()[-1], 'open' in e[1]) for e in page.select('details'))
    assert folded == {'big': False, 'small': True}, folded
