@0x9f1c2d3e4b5a6978;
# Control-plane messages between actors and nodes (runtime/wire).
