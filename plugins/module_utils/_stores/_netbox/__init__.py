# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The NetBox store, as a package (private: it may change at any time).

``_store``: ``NetboxStore``, the store interface over NetBox (the mapping of docs/stores.md is in its docstring);
``_client``: NetBox's API (requests, errors, the writes of one transaction); ``_mapping``: NetBox's objects to the
model and back, no request sent; ``_history``: the store's history, read from NetBox's change log; ``_graphql``:
the store's reads ahead, one GraphQL request each (both parts of ``NetboxStore``); ``_freespace``: NetBox's own
free space, which uses the store and the client by their public methods only. Nothing is re-exported here: the
registry imports ``_store``.
"""
