#!/usr/bin/python3
"""zeep echo client for the toolkit-zeep-spyne scenario.

usage: client.py URL CALLS SIZE
Loads the WSDL from URL?wsdl (before the timed calls), then calls echoString CALLS times and
prints {"call":i,"latency_ms":x} per call, timed with time.perf_counter around the call.
zeep's default Transport uses one requests.Session (urllib3 pool, keep-alive when the server allows).
"""
import json
import sys
import time

import zeep


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    url, calls, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if not 1 <= calls <= 1000:
        sys.exit("client.py: CALLS must be 1..1000")
    client = zeep.Client(url + "?wsdl", transport=zeep.Transport(timeout=30, operation_timeout=30))
    text = "x" * size
    for i in range(1, calls + 1):
        t0 = time.perf_counter()
        out = client.service.echoString(text)
        t1 = time.perf_counter()
        if out != text:
            sys.exit("client.py: call %d returned a wrong echo" % i)
        print(json.dumps({"call": i, "latency_ms": round((t1 - t0) * 1e3, 3)}), flush=True)


if __name__ == "__main__":
    main()
