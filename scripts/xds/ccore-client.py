"""A gRPC C-core xDS client (Debian's python3-grpcio) for the interop tests.

Run with Debian's own interpreter, /usr/bin/python3: another python3 earlier
on PATH may lack the grpc module. The xDS bootstrap comes from the
environment (GRPC_XDS_BOOTSTRAP_CONFIG, the JSON itself). Usage:

    ccore-client.py TARGET DEADLINE_S

It opens one channel to TARGET (connecting at once), then reads commands from stdin, one a line:
"run N" makes N sequential unary calls of loadtest.Probe/Call (raw bytes; the
answer is the serving backend's id) and prints one JSON line,
{"servedBy": {id: calls}, "failures": {status name: calls}}. EOF ends it.
The same protocol as scripts/xds/plain-client.ts.
"""
import collections
import json
import sys

import grpc


def run(call, count, deadline_s):
    served = collections.Counter()
    failures = collections.Counter()
    for _ in range(count):
        try:
            served[call(b"", timeout=deadline_s).decode("utf-8")] += 1
        except grpc.RpcError as error:
            failures[error.code().name] += 1
    return {"servedBy": served, "failures": failures}


def main():
    target, deadline_s = sys.argv[1], float(sys.argv[2])
    channel = grpc.insecure_channel(target)
    call = channel.unary_unary("/loadtest.Probe/Call")
    # Resolve now, not at the first call: the test waits for this client's ACK or NACK before it sends any.
    channel.subscribe(lambda state: None, try_to_connect=True)
    print(json.dumps({"ready": grpc.__version__}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if len(words) == 2 and words[0] == "run":
            print(json.dumps(run(call, int(words[1]), deadline_s)), flush=True)
        elif words:
            print(json.dumps({"error": "unknown command " + line.strip()}), flush=True)
    channel.close()


if __name__ == "__main__":
    main()
