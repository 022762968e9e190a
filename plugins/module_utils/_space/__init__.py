# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The address space: the pool tree (``_tree``: parents, children, what an ancestor withholds), host parts
(``_hostpart``: an address's offset in its subnet), and free space, how a store finds and keeps the free
addresses of its pools.

This is a private package: it may change at any time. It sits below the stores (``_stores``) and imports none
of them. ``_interface``: the ``FreeSpace`` interface, one component behind the store interface
(``store.free_space()``) that allocates an address, takes a requested one, gives one back (now, or once it has
rested out its reuse delay), ends the rests that are over and rebuilds a pool's free space; ``_derive``: free
space as derived state (``derive``, pure; ``expected``, over the store interface); ``_spans``: ``Spans``, the
implementation for the stores that keep free spans. NetBox's own implementation sits beside its API client
(``_stores._netbox._freespace``). Nothing is re-exported here: import from the module that holds the name.
"""
