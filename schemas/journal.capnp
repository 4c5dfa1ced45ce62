@0xc3a7e1f05d2b9a41;
# Journal records (storage/journal): values stored in RocksDB.
