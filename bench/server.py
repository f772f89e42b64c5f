#!/usr/bin/env python3
"""bench/server.py — `lblint server` on a 3,000-file workspace: edit-to-published-diagnostics
latency (p50, p95), the initial workspace lint against `lblint check` on the same tree, and
resident memory over many edits.

Usage:  python3 bench/server.py [--lblint BIN] [--tree DIR] [--edits N] [--work DIR]
        python3 bench/server.py --big MB [--lblint BIN] [--work DIR]
        python3 bench/server.py --findings N [--lblint BIN] [--work DIR]
  BIN   default target/release/lblint (build it first: cargo build --release)
  DIR   a tree of manifests, default target/server-bench/tree, built by
        ../shared/bench/make-bench.sh OUT 1 3000 (3,000 small real manifests)
  N     edits timed (default 1000)
The workspace is the tree plus testdata/context (a private CLB in orders.yaml, its caller in
billing.yaml, the profile named by lblint.yaml). Each edit flips billing.yaml's call between
the CLB's address and the Service's name, which changes orders.yaml's finding (error vs
warning): the time is from sending didChange to receiving orders.yaml's publishDiagnostics.
With --big, instead: a workspace of one MB-megabyte document of comment lines, opened in
the editor; the time until the server answers a hover while its worker lints it, and, after
an edit, a second hover (the main loop answers while the worker lints; this was a 20 s bound
in tests/integration/server/robust.rs before tests had no wall-clock bounds).
With --findings, instead: a workspace of N private-CLB Services in 100 files (a TKE001
warning each), the server's resident memory once every file is published, against the peak
resident memory of `lblint check` on the same workspace (issue 38: within 2x).
Only the standard library; Linux (/proc for memory).
"""
import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def frames(stream, out):
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                out.put(None)
                return
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        out.put(json.loads(stream.read(length)))


def lines(stream, out):
    for line in stream:
        out.put(line.decode(errors="replace").rstrip())


class Client:
    def __init__(self, binary, cwd):
        self.proc = subprocess.Popen([binary, "server"], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages, self.log = queue.Queue(), queue.Queue()
        threading.Thread(target=frames, args=(self.proc.stdout, self.messages), daemon=True).start()
        threading.Thread(target=lines, args=(self.proc.stderr, self.log), daemon=True).start()
        self.next_id = 0

    def send(self, message):
        body = json.dumps(dict(jsonrpc="2.0", **message)).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send(dict(id=self.next_id, method=method, params=params))
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)

    def notify(self, method, params):
        self.send(dict(method=method, params=params))

    def wait(self, test, timeout=120):
        deadline = time.time() + timeout
        while True:
            message = self.messages.get(timeout=max(0.1, deadline - time.time()))
            if message is None:
                raise SystemExit("the server exited")
            if "method" in message and "id" in message:  # the server's requests
                self.send(dict(id=message["id"], result=None))
            if test(message):
                return message

    def wait_log(self, prefix, timeout=300):
        deadline = time.time() + timeout
        while True:
            line = self.log.get(timeout=max(0.1, deadline - time.time()))
            if prefix in line:
                return line

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0


def uri(path):
    return "file://" + path


def check_ms(binary, ws, runs=3):
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([binary, "check", "--exit-zero", "-qq", ws], cwd=ws, check=True)
        took = (time.perf_counter() - start) * 1000
        best = took if best is None else min(best, took)
    return best


def big(args):
    ws = os.path.abspath(args.work)
    shutil.rmtree(ws, ignore_errors=True)
    os.makedirs(ws)
    line = "# padding padding padding padding padding padding padding padding\n"
    text = line * (args.big * 1024 * 1024 // len(line))
    path = os.path.join(ws, "big.yaml")
    with open(path, "w") as f:
        f.write(text)
    print(f"one document of {len(text) / 1024 / 1024:.0f} MiB; lblint: {args.lblint}")
    client = Client(args.lblint, ws)
    start = time.perf_counter()
    client.request("initialize", {"processId": os.getpid(), "rootUri": uri(ws), "capabilities": {}})
    client.notify("initialized", {})
    big_uri = uri(path)
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": big_uri, "languageId": "yaml", "version": 1, "text": text}})
    end = text.count("\n")
    hover = lambda line, character: client.request("textDocument/hover", {
        "textDocument": {"uri": big_uri}, "position": {"line": line, "character": character}})
    hover(end + 5, 99)
    first = (time.perf_counter() - start) * 1000
    at = {"line": 3, "character": 2}
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": big_uri, "version": 2},
        "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}]})
    hover(3, 2)
    total = (time.perf_counter() - start) * 1000
    print(f"open to first hover answer: {first:.0f} ms; to the hover after an edit: {total:.0f} ms")
    client.request("shutdown", None)
    client.notify("exit", None)
    print(f"exit status: {client.proc.wait(timeout=30)}")


def findings(args):
    import resource
    ws = os.path.abspath(args.work)
    shutil.rmtree(ws, ignore_errors=True)
    os.makedirs(ws)
    shutil.copy(os.path.join(ROOT, "testdata/context/profile.yaml"), ws)
    with open(os.path.join(ws, "lblint.yaml"), "w") as config:
        config.write("profile: profile.yaml\n")
    service = ("apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{n}\n  namespace: shop\n"
               "  annotations:\n    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-1\n"
               "spec:\n  type: LoadBalancer\n  selector: {{app: a{n}}}\n  ports: [{{port: 80}}]\n")
    per_file = max(1, args.findings // 100)
    paths = []
    for f in range(100):
        path = os.path.join(ws, f"services-{f:03}.yaml")
        with open(path, "w") as out:
            out.write("---\n".join(service.format(n=f * per_file + i) for i in range(per_file)))
        paths.append(path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([args.lblint, "check", "--exit-zero", "-qq", "."], cwd=ws, check=True)
    check_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    client = Client(args.lblint, ws)
    client.request("initialize", {"processId": os.getpid(), "rootUri": uri(ws), "capabilities": {}})
    client.notify("initialized", {})
    waiting = {uri(p) for p in paths}
    while waiting:
        message = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        waiting.discard(message["params"]["uri"])
    time.sleep(0.5)
    server_kib = client.rss_kib()
    n = per_file * 100
    print(f"{n} findings: server RSS {server_kib / 1024:.1f} MiB, lblint check peak RSS "
          f"{check_kib / 1024:.1f} MiB (was {before / 1024:.1f} MiB before it): ratio {server_kib / check_kib:.2f}x")
    client.request("shutdown", None)
    client.notify("exit", None)
    client.proc.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lblint", default=os.path.join(ROOT, "target/release/lblint"))
    ap.add_argument("--tree", default=os.path.join(ROOT, "target/server-bench/tree"))
    ap.add_argument("--work", default=os.path.join(ROOT, "target/server-bench/ws"))
    ap.add_argument("--edits", type=int, default=1000)
    ap.add_argument("--big", type=int, metavar="MB", help="time one MB-megabyte document instead")
    ap.add_argument("--findings", type=int, metavar="N", help="memory with N findings instead")
    args = ap.parse_args()
    args.lblint = os.path.abspath(args.lblint)  # the server runs in the workspace
    if args.big:
        return big(args)
    if args.findings:
        return findings(args)
    ws = os.path.abspath(args.work)
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(args.tree, os.path.join(ws, "tree"))
    for name in ["orders.yaml", "billing.yaml", "profile.yaml"]:
        shutil.copy(os.path.join(ROOT, "testdata/context", name), ws)
    with open(os.path.join(ws, "lblint.yaml"), "w") as config:
        config.write("profile: profile.yaml\n")
    files = sum(len(f) for _, _, f in os.walk(ws))
    print(f"workspace: {files} files; lblint: {args.lblint}")

    check = check_ms(args.lblint, ws)
    client = Client(args.lblint, ws)
    start = time.perf_counter()
    client.request("initialize", {"processId": os.getpid(), "rootUri": uri(ws), "capabilities": {}})
    client.notify("initialized", {})
    orders = uri(os.path.join(ws, "orders.yaml"))
    client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == orders)
    first = (time.perf_counter() - start) * 1000
    lint_line = client.wait_log("lint 1 took")
    print(f"initial lint: {first:.0f} ms to orders.yaml's diagnostics ({lint_line.split(': ', 1)[1]}); "
          f"lblint check on the same tree: {check:.0f} ms (best of 3); ratio {first / check:.2f}x")

    billing_path = os.path.join(ws, "billing.yaml")
    text = open(billing_path).read()
    billing = uri(billing_path)
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": billing, "languageId": "yaml", "version": 1, "text": text}})
    line_no = next(i for i, l in enumerate(text.split("\n")) if "10.20.30.40" in l)
    line = text.split("\n")[line_no]
    col = line.index("10.20.30.40")
    current, latencies, rss = "10.20.30.40", [], {}
    for version in range(2, args.edits + 2):
        new = "orders" if current == "10.20.30.40" else "10.20.30.40"
        change = {"range": {"start": {"line": line_no, "character": col},
                            "end": {"line": line_no, "character": col + len(current)}},
                  "text": new}
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": billing, "version": version}, "contentChanges": [change]})
        client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == orders)
        latencies.append((time.perf_counter() - sent) * 1000)
        current = new
        if version - 1 in (10, args.edits):
            rss[version - 1] = client.rss_kib()
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"edit to published: p50 {p(0.5):.0f} ms, p95 {p(0.95):.0f} ms, "
          f"mean {statistics.mean(latencies):.0f} ms over {len(latencies)} edits")
    if len(rss) == 2:
        a, b = rss[10], rss[args.edits]
        print(f"RSS after edit 10: {a / 1024:.1f} MiB; after edit {args.edits}: {b / 1024:.1f} MiB "
              f"({(b - a) * 100 / a:+.1f}%)")
    client.request("shutdown", None)
    client.notify("exit", None)
    print(f"exit status: {client.proc.wait(timeout=30)}")


if __name__ == "__main__":
    main()
