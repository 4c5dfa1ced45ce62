@0xa3d2c1b0e9f8a7b7;
# Refused by capnpc-records: a record declared inside another.
using Records = import "/records.capnp";
$Records.namespace("refused");

struct Outer {
  inner @0 :Inner;
  struct Inner {
    value @0 :UInt32;
  }
}
