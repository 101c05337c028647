"""Compare two JSON schemas: does the consumer accept everything the producer produces?

Responses: the server produces, the client consumes. Requests: the client produces, the server
consumes. The same rules find drift both ways:

- a field one side has and the other lacks (the consumer drops it / the producer never sends it);
- a field the consumer requires that the producer may omit;
- null from a producer whose consumer refuses null (requests skip this: the client never sends
  null, it leaves unset fields out);
- a leaf type the consumer does not accept (an integer is a number; a ``date`` is not a
  ``date-time``); arrays compare their items, objects recurse. A free-form object or ``Any`` on
  either side accepts anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Schema = dict[str, Any]


@dataclass(frozen=True)
class Side:
    """One schema and the document its ``$ref``s point into."""

    schema: Schema
    root: Schema

    def deref(self, schema: Schema) -> Schema:
        seen = 0
        while "$ref" in schema:
            ref = schema["$ref"]
            assert ref.startswith("#/"), ref
            node: Any = self.root
            for part in ref[2:].split("/"):
                node = node[part]
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**node, **extra}
            seen += 1
            assert seen < 50, f"ref loop at {ref}"
        return schema

    def variants(self, schema: Schema) -> list[Schema]:
        """The alternatives of a schema (anyOf/oneOf flattened, one-element allOf unwrapped)."""
        schema = self.deref(schema)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                out: list[Schema] = []
                for option in schema[key]:
                    out.extend(self.variants(option))
                return out
        if "allOf" in schema and len(schema["allOf"]) == 1:
            return self.variants(schema["allOf"][0])
        if isinstance(schema.get("type"), list):
            return [{**schema, "type": t} for t in schema["type"]]
        return [schema]


def _kind(schema: Schema) -> str:
    if "properties" in schema:
        return "model"
    kind = schema.get("type")
    if kind is None and ("enum" in schema or "const" in schema):
        values = schema.get("enum", [schema.get("const")])
        return "string" if all(isinstance(v, str) for v in values) else "any"
    if kind is None:
        return "any"
    if kind == "object":
        return "free_object"
    return str(kind)


def _accepts(consumer: Schema, produced: Schema) -> bool:
    """Does one consumer leaf variant accept one producer leaf variant?"""
    ck, pk = _kind(consumer), _kind(produced)
    if "any" in (ck, pk):
        return True
    if "free_object" in (ck, pk) and {ck, pk} <= {"free_object", "model"}:
        return True
    if ck == pk:
        if ck == "string":
            cf, pf = consumer.get("format"), produced.get("format")
            if cf and pf and cf != pf:
                return False
            if cf in ("date", "date-time") and pf is None and "enum" not in produced:
                return True  # the server serialises timestamps as plain strings
            if "enum" in consumer or "const" in consumer:
                allowed = set(consumer.get("enum", [consumer.get("const")]))
                sent = set(produced.get("enum", [produced.get("const")])) - {None}
                return bool(sent) and sent <= allowed
        return True
    return ck == "number" and pk == "integer"


def compare(
    producer: Side,
    consumer: Side,
    *,
    producer_schema: Schema | None = None,
    consumer_schema: Schema | None = None,
    path: str = "",
    producer_sends_null: bool = True,
    allowed_gaps: frozenset[str] = frozenset(),
) -> list[str]:
    """Problems where ``consumer`` would refuse or lose what ``producer`` produces."""
    p_schema = producer.schema if producer_schema is None else producer_schema
    c_schema = consumer.schema if consumer_schema is None else consumer_schema
    p_vars = producer.variants(p_schema)
    c_vars = consumer.variants(c_schema)
    problems: list[str] = []
    label = path or "<body>"

    c_nullable = any(v.get("type") == "null" for v in c_vars)
    p_null = [v for v in p_vars if v.get("type") == "null"]
    if p_null and producer_sends_null and not c_nullable and _kind(c_vars[0]) != "any":
        problems.append(f"{label}: producer may send null, consumer refuses it")
    p_vars = [v for v in p_vars if v.get("type") != "null"]
    c_vars = [v for v in c_vars if v.get("type") != "null"]
    if not p_vars or not c_vars:
        return problems

    for produced in p_vars:
        pk = _kind(produced)
        if pk == "model":
            models = [c for c in c_vars if _kind(c) == "model"]
            if not models:
                if not any(_accepts(c, produced) for c in c_vars):
                    problems.append(
                        f"{label}: producer sends an object, consumer expects "
                        f"{[_kind(c) for c in c_vars]}"
                    )
                continue
            # Several object shapes (a union response): compare with the closest one.
            target = max(
                models, key=lambda c: len(set(c["properties"]) & set(produced["properties"]))
            )
            problems += _compare_objects(
                producer, consumer, produced, target, label, producer_sends_null, allowed_gaps
            )
        elif pk == "array":
            arrays = [c for c in c_vars if _kind(c) == "array"]
            if not arrays:
                if not any(_accepts(c, produced) for c in c_vars):
                    problems.append(
                        f"{label}: producer sends an array, consumer does not accept one"
                    )
                continue
            problems += compare(
                producer,
                consumer,
                producer_schema=produced.get("items", {}),
                consumer_schema=arrays[0].get("items", {}),
                path=f"{path}[]",
                producer_sends_null=producer_sends_null,
                allowed_gaps=allowed_gaps,
            )
        elif not any(_accepts(c, produced) for c in c_vars):
            problems.append(
                f"{label}: producer sends {_describe(produced)}, "
                f"consumer accepts {[_describe(c) for c in c_vars]}"
            )
        elif "enum" in produced and len(c_vars) == 1 and "enum" in c_vars[0]:
            unused = set(c_vars[0]["enum"]) - set(produced["enum"])
            if unused:
                problems.append(f"{label}: consumer also accepts {sorted(unused)}, never produced")
    return problems


def _describe(schema: Schema) -> str:
    kind = _kind(schema)
    if "format" in schema:
        kind += f" ({schema['format']})"
    if "enum" in schema:
        kind += f" {schema['enum']}"
    return kind


def _compare_objects(
    producer: Side,
    consumer: Side,
    produced: Schema,
    target: Schema,
    label: str,
    producer_sends_null: bool,
    allowed_gaps: frozenset[str],
) -> list[str]:
    problems: list[str] = []
    p_props: dict[str, Schema] = produced["properties"]
    c_props: dict[str, Schema] = target["properties"]
    p_required = set(produced.get("required", []))
    c_required = set(target.get("required", []))
    prefix = "" if label == "<body>" else label + "."
    for name in sorted(set(p_props) - set(c_props)):
        if f"{prefix}{name}" not in allowed_gaps:
            problems.append(f"{prefix}{name}: producer has this field, consumer does not")
    for name in sorted(set(c_props) - set(p_props)):
        if f"{prefix}{name}" not in allowed_gaps:
            problems.append(f"{prefix}{name}: consumer has this field, producer does not")
    for name in sorted((c_required & set(p_props)) - p_required):
        problems.append(f"{prefix}{name}: consumer requires it, producer may leave it out")
    for name in sorted(set(p_props) & set(c_props)):
        problems += compare(
            producer,
            consumer,
            producer_schema=p_props[name],
            consumer_schema=c_props[name],
            path=f"{prefix}{name}",
            producer_sends_null=producer_sends_null,
            allowed_gaps=allowed_gaps,
        )
    return problems
