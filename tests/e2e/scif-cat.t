#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In one guest: scif-info lists the local node, scif-cat carries a file from
# a connecting process to a listening one unchanged, and scif-info --json
# prints one JSON document (checked here, on the host: the guest has no
# JSON parser) that shows the node and a listener's endpoint and port.
# needs: own-boot (checks the guest's JSON on the host)
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$top/scripts/rig/cluster" -n 1 --copy "$top/tests/e2e/guest/scif-cat.sh" -- sh ./scif-cat.sh |
	tee "$out"
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
tr -d '\r' <"$out" | sed -n '/^---- scif-info --json$/,/^---- end$/p' | sed '1d;$d' |
python3 -c '
import json, sys
doc = json.load(sys.stdin)
inst = {i["name"]: i for i in doc["instances"]}["scif"]
assert doc["error"] is None, doc["error"]
assert doc["self"] in doc["nodes_online"], "self is not online"
assert [n["node"] for n in inst["nodes"]] == doc["nodes_online"]
assert any(p["port"] == 4001 and p["state"].lower() == "listening" for p in inst["ports"]), inst["ports"]
assert any(e["port"] == 4001 for e in inst["endpoints"]), inst["endpoints"]
assert "scif" in doc["parameters"], doc["parameters"].keys()
assert "heartbeat age" in doc["not_exposed"]
print("ok - scif-info --json parses and shows node %d, port 4001 listening"
      % doc["self"])
' || { echo "FAIL: scif-info --json"; exit 1; }
