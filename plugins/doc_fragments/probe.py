# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """The probe options of M(netpool.ipam.reservation) and the lookup netpool.ipam.address (``netpool.ipam.probe``)."""

    DOCUMENTATION = r"""
options:
  probe:
    description:
      - Before a new dynamic address is given, the controller probes it, and hands out only one that does not
        answer. V(none) does not probe.
      - V(icmp) sends one ICMP echo request (IPv4 or IPv6) with the system's C(ping) (Debian and Ubuntu package
        C(iputils-ping)). V(arp) sends one ARP request (IPv4 only) with C(arping) (C(iputils-arping)) on the
        controller's interface on the address's subnet (found with C(ip) from C(iproute2)); the controller's own
        addresses count as answering.
      - An address that answers is recorded as held by owner C(netpool.ipam.probe) under the key of the address
        itself, with metadata C(found_by=probe), C(probe) (the method), C(probed_at) (when) and C(probed_for)
        (C(owner/key) of the reservation it was a candidate for). It is never probed or handed out again;
        M(netpool.ipam.info) lists it, and releasing it (O(netpool.ipam.reservation#module:owner=netpool.ipam.probe))
        frees it. The reservation then takes the next candidate.
      - All candidates of a task (every owner of O(netpool.ipam.reservation#module:owners)) are probed at once, so
        probing costs about one O(probe_timeout) per round of candidates, not one per address.
      - Not probed - a static address, an address of O(netpool.ipam.reservation#module:align_with), an address an
        owner gets back from its reuse delay, a rerun (the owner holds its address already) and check mode (which
        predicts the address without probing).
      - Where the controller cannot probe (no permission to send the probe, no route to the subnet, no interface on
        the subnet for V(arp), the command missing), the task fails with C(error invalid_argument) saying why, and
        hands out no address.
      - On the NetBox store, a candidate is an IP address NetBox allocated; one that answers is deleted as never
        handed out before its holder is made, so a task that fails leaves NetBox as it was.
    type: str
    choices: [none, icmp, arp]
    default: none
    version_added: 1.1.0
  probe_timeout:
    description:
      - How long to wait for an answer to each probe, in milliseconds (1 to 60000).
    type: int
    default: 300
    version_added: 1.1.0
  probe_tries:
    description:
      - How many answering candidates one new reservation may meet. Once it has met this many, the task fails with
        C(error address_in_use) saying how many answered, and writes nothing (the addresses that answered are
        recorded only by a task that succeeds).
    type: int
    default: 16
    version_added: 1.1.0
"""
