@0xb4e3d2c1f0a9b8c7;
# Refused by capnpc-records: $jsonValue on a field that does not hold text.
using Records = import "/records.capnp";
$Records.namespace("refused");

struct Holder {
  count @0 :UInt32 $Records.jsonValue;
}
