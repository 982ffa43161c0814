#!/usr/bin/env python3
"""A client for `triage serve`, standard library only (Python >= 3.8).

Use it as a module in a repair agent:

    from triage_client import Client
    c = Client("http://127.0.0.1:8080", token=None)
    s = c.create_session(policy="rex", budget=36, seed=1, root={
        "program": src, "tests": [{"name": "test_a", "passed": False}],
        "feedback": pytest_output, "diagnosis": diag,
        "edits": [{"text": t} for t in edits]})
    while True:
        asked = c.ask(s["id"], n=1)
        if not asked["edges"]:
            break                      # asked["state"] says why
        for e in asked["edges"]:
            child = expand(e)          # your LLM + tests: a program dict
            r = c.tell(s["id"], e["edge"], child)
    print(c.session(s["id"])["best"])
    c.delete_session(s["id"])

or from the shell (docs/serve.md lists every field):

    triage_client.py --url http://127.0.0.1:8080 health
    triage_client.py --url ... priorities < edges.json   # {"edges": [...]}
    triage_client.py --url ... replay --trees trees.json --cases cases.json

`replay` drives sessions over recorded corpus trees (the JSON of
corpus.Tree): it tells the server the recorded child of every edge it is
asked to expand and prints where each search ended, in the recorded ids.
"""

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid


class TriageError(Exception):
    """A non-2xx answer: status is the HTTP code, message the server's error."""

    def __init__(self, status, message):
        super().__init__("HTTP %d: %s" % (status, message))
        self.status = status
        self.message = message


class Client:
    """Calls one triage server. Every method returns the decoded JSON answer."""

    def __init__(self, base_url, token=None, timeout=60.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _request(self, method, path, body=None, raw=False):
        data = None
        headers = {}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                text = json.loads(text)["error"]
            except (ValueError, KeyError, TypeError):
                pass
            raise TriageError(e.code, text) from None
        return payload if raw else json.loads(payload)

    def health(self):
        return self._request("GET", "/healthz")

    def priorities(self, edges):
        """Scores edges (dicts of priority.Edge): a list of {"dist", "s"}, in order."""
        return self._request("POST", "/v1/priorities", {"edges": edges})["priorities"]

    def create_session(self, **fields):
        """Starts a session; fields are those of CreateSessionRequest (policy, root, ...)."""
        return self._request("POST", "/v1/sessions", fields)

    def ask(self, sid, n=1, request_id=None):
        """Asks for up to n edges. Pass the same request_id to resend an ask whose answer was
        lost (a server with --store then answers the same edges); a fresh one is made otherwise."""
        rid = request_id or uuid.uuid4().hex
        return self._request("POST", "/v1/sessions/%s/ask" % _q(sid), {"n": n, "request_id": rid})

    def tell(self, sid, edge, child):
        return self._request("POST", "/v1/sessions/%s/tell" % _q(sid), {"edge": edge, "child": child})

    def session(self, sid):
        return self._request("GET", "/v1/sessions/%s" % _q(sid))

    def delete_session(self, sid):
        return self._request("DELETE", "/v1/sessions/%s" % _q(sid))

    def tree(self, sid, fmt="json"):
        """The session's tree: a dict (json) or the bytes of a Parquet shard (parquet)."""
        return self._request("GET", "/v1/sessions/%s/tree?format=%s" % (_q(sid), _q(fmt)), raw=(fmt == "parquet"))


def _q(s):
    return urllib.parse.quote(str(s), safe="")


def program_of(tree, node, keep):
    """The wire Program of a recorded node, with the edits for which keep(edge id) holds."""
    ex = node["exec"]
    return {
        "program": node.get("program", ""),
        "status": ex.get("status") or "ok",
        "tests": [
            {"name": t["name"], "passed": t["passed"], "duration_ms": t.get("duration_ms", 0), "message": t.get("message", "")}
            for t in ex.get("tests") or []
        ],
        "pass_rate": ex.get("pass_rate", 0),
        "failed_frac": ex.get("failed_frac", 0),
        "feedback": ex.get("feedback", ""),
        "duration_ms": ex.get("duration_ms", 0),
        "diagnosis": node.get("diagnosis", ""),
        "edits": [
            {"text": tree["edges"][e]["edit"]["text"], "payload": tree["edges"][e]["edit"].get("payload", "")}
            for e in node.get("edges") or []
            if keep(e)
        ],
        "revise_tokens": node.get("revise_tokens", 0),
        "propose_tokens": node.get("propose_tokens", 0),
        "revise_failed": node.get("revise_failed", False),
        "propose_failed": node.get("propose_failed", False),
    }


def _solved(node):
    ex = node["exec"]
    return ex.get("status") == "ok" and len(ex.get("tests") or []) > 0 and ex.get("pass_rate") == 1


def replay(client, tree, policy, seed=0, params=None, batch=1):
    """Drives one session over a recorded tree and returns where it ended.

    The root goes to the server with its recorded edits; each asked edge is
    answered with the edge's recorded child. Edits without a recorded child
    are not sent. Ids in the result are the recorded tree's:
    {"solved", "fix", "expansions", "tokens", "order"}.
    """
    nodes, edges = tree["nodes"], tree["edges"]

    def recorded(e):
        return edges[e]["child"] != -1

    to_rec = {}  # server edge id -> recorded edge id
    node_rec = {0: 0}  # server node id -> recorded node id

    def map_edges(server_ids, node):
        rec = [e for e in node.get("edges") or [] if recorded(e)]
        if len(rec) != len(server_ids):
            raise RuntimeError("server numbered %d edits of node %d, sent %d" % (len(server_ids), node["node_id"], len(rec)))
        to_rec.update(zip(server_ids, rec))

    root = nodes[0]
    req = {"policy": policy, "seed": seed, "max_depth": tree["depth"], "k": tree["k"],
           "task_id": tree["task_id"], "root": program_of(tree, root, recorded)}
    if params:
        req["params"] = params
    s = client.create_session(**req)
    sid = s["id"]
    try:
        map_edges(s["root_edges"], root)
        order = []
        solved = _solved(root)
        while not solved:
            asked = client.ask(sid, n=batch)
            if not asked["edges"]:
                break
            for e in asked["edges"]:
                rec = to_rec[e["edge"]]
                child = nodes[edges[rec]["child"]]
                r = client.tell(sid, e["edge"], program_of(tree, child, recorded))
                map_edges(r["edges"], child)
                node_rec[r["node"]] = child["node_id"]
                order.append(rec)
                if r["solved"]:
                    solved = True
                    break
        st = client.session(sid)
        best = st["best"]
        out = {"solved": best["solved"], "fix": -1, "expansions": st["expansions"], "tokens": st["tokens"], "order": order}
        if best["solved"]:
            out.update(fix=node_rec[best["node"]], expansions=best["expansion"], tokens=best["tokens"])
        return out
    finally:
        client.delete_session(sid)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8080", help="server base URL")
    ap.add_argument("--token-file", help="file holding the bearer token")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("health", help="GET /healthz")
    sub.add_parser("priorities", help='POST /v1/priorities with {"edges": [...]} read from stdin')
    rp = sub.add_parser("replay", help="drive sessions over recorded trees; print outcomes as JSON")
    rp.add_argument("--trees", required=True, help="JSON list of corpus trees")
    rp.add_argument("--cases", required=True, help='JSON list of {"policy", "params", "seed", "batch"}')
    args = ap.parse_args(argv)

    token = None
    if args.token_file:
        with open(args.token_file) as f:
            token = f.read().strip()
    c = Client(args.url, token=token)
    try:
        if args.cmd == "health":
            out = c.health()
        elif args.cmd == "priorities":
            out = c.priorities(json.load(sys.stdin)["edges"])
        else:
            with open(args.trees) as f:
                trees = json.load(f)
            with open(args.cases) as f:
                cases = json.load(f)
            out = []
            for tree in trees:
                for case in cases:
                    res = replay(c, tree, case["policy"], case.get("seed", 0), case.get("params"), case.get("batch") or 1)
                    out.append({"tree": tree["tree_id"], "case": case, "outcome": res})
    except TriageError as e:
        print("triage_client: %s" % e, file=sys.stderr)
        return 1
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
