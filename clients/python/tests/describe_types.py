"""Prints the TypedDicts of assay_client.types as JSON, for test/clients/python-types.test.ts to compare
with the OpenAPI document: every response of RESPONSES and each TypedDict reachable from it, field by
field (required or not, and the type as a small tree). Not a test module (unittest skips the name).

    {"responses": [{"method", "path", "status", "type"}], "types": {name: {field: {"required", "type"}}},
     "defined": [every TypedDict name of the module]}

A type is {"kind": "typed", "name"} | {"kind": "list"|"dict", "of"} | {"kind": "tuple", "of": [...]}
| {"kind": "union", "of": [...]} | {"kind": "literal", "values"} | {"kind": "prim", "name"} | {"kind": "any"}.
"""

import json
import sys
import types as pytypes
import typing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assay_client import types as t  # noqa: E402

PRIMS = {str: "str", int: "int", float: "float", bool: "bool", type(None): "None"}
seen: dict[str, dict] = {}


def is_typed_dict(tp: object) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def describe(tp: object) -> dict:
    if tp is typing.Any:
        return {"kind": "any"}
    if tp in PRIMS:
        return {"kind": "prim", "name": PRIMS[tp]}  # type: ignore[index]
    if is_typed_dict(tp):
        name = tp.__name__  # type: ignore[attr-defined]
        if name not in seen:
            seen[name] = {}
            hints = typing.get_type_hints(tp)
            seen[name] = {k: {"required": k in tp.__required_keys__, "type": describe(v)} for k, v in hints.items()}  # type: ignore[attr-defined]
        return {"kind": "typed", "name": name}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return {"kind": "literal", "values": list(args)}
    if origin in (typing.Union, pytypes.UnionType):
        return {"kind": "union", "of": [describe(a) for a in args]}
    if origin is list:
        return {"kind": "list", "of": describe(args[0])}
    if origin is dict:
        return {"kind": "dict", "of": describe(args[1])}
    if origin is tuple:
        return {"kind": "tuple", "of": [describe(a) for a in args]}
    raise TypeError(f"describe_types.py: no rule for {tp!r}")


responses = [{"method": m, "path": p, "status": s, "type": describe(tp)} for (m, p, s), tp in t.RESPONSES.items()]
defined = sorted(n for n, v in vars(t).items() if is_typed_dict(v) and v.__module__ == t.__name__)
print(json.dumps({"responses": responses, "types": seen, "defined": defined}, indent=1))
