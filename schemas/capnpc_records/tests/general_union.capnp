@0xa3d2c1b0e9f8a7b6;
# Refused by capnpc-records: a union that is not an optional value.
using Records = import "/records.capnp";
$Records.namespace("refused");

struct Holder {
  choice :union {
    number @0 :UInt32;
    text @1 :Text;
  }
}
