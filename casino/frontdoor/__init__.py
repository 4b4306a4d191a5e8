"""The front door: every guard between a stranger and the site, side by
side, each saying its limit in the words of ``limits`` (a ``Rate`` or a
``Cap`` per key). docs/front-door.md says what each holds and why.

In the order a request meets them (``make run``'s ASGI application,
casino/asgi.py, then Django's middleware in the settings):

- ``body_limit``: request bodies bounded as they stream;
- ``credential_desk``: log-in and sign-up posts enter a few at a time;
- ``page_seats``: requests enter Django a few at a time, players first;
- ``sockets_per_address``: websockets one address holds open;
- ``origin``: which pages may open a socket;
- ``throttle``: credential posts per address per minute, and the early 429
  while the hash pool is full;
- ``hash_pool``: password hashes, their cost and how many run at once;
- ``lockout``: failed log-ins lock a username, and an address.

The cluster's nginx holds most of these in front of the workers too
(ops/cluster.sh).
"""
