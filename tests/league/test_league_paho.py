"""The ingest's shared paho ``Properties`` tables (league/ingest.py,
share_property_tables): every message's properties read as paho's own tables
read them, and none carried from one message to the next."""

from __future__ import annotations

import pytest


def test_shared_tables_are_pahos_and_read_properties_as_paho_does():
    pytest.importorskip("paho.mqtt.client", reason="paho-mqtt is not installed")
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from shutbox_hw.league.ingest import share_property_tables

    share_property_tables()
    share_property_tables()                      # once only: paho's own kept aside
    own = object.__new__(Properties)
    Properties._paho_init(own, PacketTypes.PUBLISH)
    shared = Properties(PacketTypes.PUBLISH)
    assert (shared.types, shared.names, shared.properties) == \
        (own.types, own.names, own.properties)
    assert len(own.names) == 27 and own.names["Receive Maximum"] == 33

    sent = Properties(PacketTypes.PUBLISH)
    sent.UserProperty = [("box", "a1")]
    sent.MessageExpiryInterval = 30
    sent.ContentType = "application/json"
    wire = sent.pack()
    for _ in range(2):                           # the second made from the same tables
        read = Properties(PacketTypes.PUBLISH)
        read.unpack(wire)
        assert read.json() == {"MessageExpiryInterval": 30, "ContentType": "application/json",
                               "UserProperty": [("box", "a1")]}
    assert Properties(PacketTypes.PUBLISH).isEmpty()      # nothing carried over
    with pytest.raises(Exception, match="does not apply"):
        Properties(PacketTypes.PUBLISH).ReceiveMaximum = 400    # a CONNECT's, still checked
    connect = Properties(PacketTypes.CONNECT)
    connect.ReceiveMaximum = 400
    assert connect.json() == {"ReceiveMaximum": 400}
