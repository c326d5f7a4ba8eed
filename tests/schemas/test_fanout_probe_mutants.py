"""Where the fan-out's reachability probe of a Ray cluster connects (issue 27's mutation run).

``schemas.runtime.fanout._probe`` turns a cluster that does not answer into one line instead of Ray's
minutes of retries. The tests that reach it give it an address nothing listens on, so they see the error
but not where it looked. Here ``socket.create_connection`` is a recorder.
"""
from __future__ import annotations

import socket

from schemas.runtime import fanout


def test_the_probe_connects_to_the_host_and_port_as_written(monkeypatch):
    seen = []

    class Connection:
        def close(self):
            seen.append("closed")

    def connect(address, timeout):
        seen.append((address, timeout))
        return Connection()

    monkeypatch.setattr(socket, "create_connection", connect)
    fanout._probe("ray://Xhead-X:10001")   # the scheme goes, the host stays as written (no character stripped)
    fanout._probe("[::1]:6379")            # an IPv6 literal loses its brackets
    fanout._probe(":6379")                 # no host: this machine
    fanout._probe("auto")                  # no port: Ray reads it itself, nothing to probe
    fanout._probe("ray://head:client")     # nor a port that is not a number
    assert seen == [(("Xhead-X", 10001), 10.0), "closed", (("::1", 6379), 10.0), "closed",
                    (("127.0.0.1", 6379), 10.0), "closed"]
