# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""roles/pools on a store that cannot be reached (a wrong PostgreSQL port): the first pool's item finds it
unavailable, and the pools after it fail at once with the same message, without connecting. The "server" is a
listener that counts the connections made to it and closes each at once (a PostgreSQL that goes away before
it answers): every connection it counted is one the first item says it tried."""

import re
import socket
import threading

from ansible_collections.netpool.ipam.tests.unit.plugins.plugin_utils.test_roles_playbooks import playbook

PLAY = """
- name: Declare the plan
  hosts: localhost
  gather_facts: false
  roles:
    - role: netpool.ipam.pools
      vars:
        ipam_store: "postgresql://postgres@127.0.0.1:{{ pg_port }}/ipam?sslmode=disable&gssencmode=disable"
        ipam_store_timeout: 1
        ipam_pools:
          - {name: p0, cidr: 10.0.0.0/24}
          - {name: p1, cidr: 10.0.1.0/24}
          - {name: p2, cidr: 10.0.2.0/24}
          - {name: p3, cidr: 10.0.3.0/24}
"""


class Listener(object):
    """A TCP port on 127.0.0.1 that accepts and closes every connection, counting them."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _addr = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self):
        self.sock.close()
        self.thread.join(10)


def test_the_pools_after_the_first_fail_at_once_with_its_message(tmp_path):
    listener = Listener()
    try:
        rc, output = playbook(tmp_path, PLAY, '-e', 'pg_port=%d' % listener.port)
    finally:
        listener.close()
    assert rc != 0, output
    failed = [line for line in output.splitlines() if line.startswith('failed: [localhost]')]
    assert len(failed) == 4, output
    assert 'not tried again' not in failed[0] and 'Cannot connect to the PostgreSQL store' in failed[0], failed[0]
    first = failed[0].split('"msg": "', 1)[1]
    tried = re.search(r'Tried (\d+) times? within', first)
    assert tried and listener.accepted == int(tried.group(1)), (listener.accepted, first)    # none after it
    for line in failed[1:]:
        assert 'not tried again: an earlier item of this loop found the store unavailable' in line, line
        assert first.split(' (not tried')[0][:60] in line, line
