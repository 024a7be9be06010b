"""A Python (grpcio, gRPC C-core) server of the loadtest.Probe service: the
server of a mixed-language fleet, which serves as many calls at once as it
has worker threads.

Run with Debian's own interpreter, /usr/bin/python3: another python3 earlier
on PATH may lack the grpc module. Usage:

    python-probe-server.py ID [--workers W] [--max-concurrent-rpcs N]
                              [--service-ms MS] [--sigma S] [--seed N]

It serves /loadtest.Probe/Call (raw bytes, no generated stubs, as
scripts/lib/probe-service.ts defines it: the request is ignored, as the Node
test backends ignore it; the answer is ID as UTF-8) on 127.0.0.1, port chosen
by the kernel, and prints one JSON line, {"port": P, "grpc": version}, once it
serves. Other methods answer UNIMPLEMENTED.

- --workers W (default 1): grpc.server(ThreadPoolExecutor(max_workers=W)).
  With W = 1 the handler runs one call at a time; grpcio queues the others,
  without a bound, until the worker is free (a Python or Ruby pod with one
  worker). A queued call runs even if its client has given up, as in a plain
  handler that does not check context.is_active().
- --max-concurrent-rpcs N (default none): grpcio's maximum_concurrent_rpcs. A
  call that arrives while N are active (running or queued for a worker) is
  answered at once with RESOURCE_EXHAUSTED "Concurrent RPC limit exceeded!"
  and never reaches the handler (grpc/_server.py).
- --service-ms MS (default 10): each call sleeps MS ms in the handler (the
  sleep holds the worker, not the GIL). With --sigma S > 0 the time is drawn
  instead: log-normal with median MS and shape S (the simulator's service
  time, e.g. S 0.3), from a generator seeded with --seed (default 1).

stdin, one command a line: "stats" prints {"handled": calls the handler ran,
"maxActive": the most handlers running at once}. EOF on stdin (the parent
closed it or died) or SIGTERM stops the server at once and exits 0.
"""
import argparse
import json
import random
import signal
import sys
import threading
import time
from concurrent import futures

import grpc


class Probe:
    def __init__(self, backend_id, service_ms, sigma, seed):
        self.answer = backend_id.encode("utf-8")
        self.service_ms = service_ms
        self.sigma = sigma
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.handled = 0
        self.active = 0
        self.max_active = 0

    def service_s(self):
        if self.sigma <= 0:
            return self.service_ms / 1000.0
        with self.lock:
            return self.service_ms * self.random.lognormvariate(0.0, self.sigma) / 1000.0

    def call(self, request, context):
        with self.lock:
            self.handled += 1
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            time.sleep(self.service_s())
            return self.answer
        finally:
            with self.lock:
                self.active -= 1

    def stats(self):
        with self.lock:
            return {"handled": self.handled, "maxActive": self.max_active}


def parse_args(argv):
    parser = argparse.ArgumentParser(description="loadtest.Probe server on grpcio")
    parser.add_argument("id")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-concurrent-rpcs", type=int, default=None)
    parser.add_argument("--service-ms", type=float, default=10.0)
    parser.add_argument("--sigma", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.max_concurrent_rpcs is not None and args.max_concurrent_rpcs < 1:
        parser.error("--max-concurrent-rpcs must be at least 1")
    if not 0 <= args.service_ms <= 60_000 or not 0 <= args.sigma <= 3:
        parser.error("--service-ms must be in [0, 60000] and --sigma in [0, 3]")
    return args


def stop_on_sigterm(signum, frame):
    raise SystemExit(0)


def main():
    args = parse_args(sys.argv[1:])
    probe = Probe(args.id, args.service_ms, args.sigma, args.seed)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=args.workers),
        handlers=[grpc.method_handlers_generic_handler(
            "loadtest.Probe", {"Call": grpc.unary_unary_rpc_method_handler(probe.call)})],
        maximum_concurrent_rpcs=args.max_concurrent_rpcs,
        options=[("grpc.so_reuseport", 0)],
    )
    port = server.add_insecure_port("127.0.0.1:0")
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    try:
        server.start()
        print(json.dumps({"port": port, "grpc": grpc.__version__}), flush=True)
        for line in sys.stdin:
            words = line.split()
            if words == ["stats"]:
                print(json.dumps(probe.stats()), flush=True)
            elif words:
                print(json.dumps({"error": "unknown command " + line.strip()}), flush=True)
    finally:
        server.stop(grace=None).wait(5)


if __name__ == "__main__":
    main()
