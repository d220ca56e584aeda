#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check perf kmem stat --json documents against the shipped JSON Schema.

usage: kmem_json_schema.py SCHEMA [DOC ...]    (no DOC, or '-': stdin)

Beyond the schema, a document must be strict JSON as perf kmem writes it:
no duplicate keys, no NaN or Infinity, no number with a fraction or an
exponent (not even 1.0, which the schema's "integer" would let through).  One line per problem on stderr; exit 0 if every document is
valid, 1 if one is not, 2 if python3-jsonschema is missing.  Needs no
network: the schema refers only to itself.
"""

import json
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("kmem_json_schema: skip: python3-jsonschema is not installed",
          file=sys.stderr)
    sys.exit(2)


class Refused(ValueError):
    """What strict JSON parsing refused."""


def no_duplicates(pairs):
    """An object's members, refusing a key given twice."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise Refused(f"duplicate key {key!r}")
        obj[key] = value
    return obj


class Fractions(list):
    """Numbers with a fraction or an exponent: none is an integer."""

    def note(self, text):
        """Note @text, and give the schema a float to refuse."""
        self.append(text)
        return float(text)


def no_constant(text):
    """Refuse NaN, Infinity and -Infinity, which are not JSON."""
    raise Refused(f"{text} is not JSON")


def load(name, fractions):
    """The document in file @name ('-': stdin), strictly parsed."""
    if name == "-":
        text = sys.stdin.read()
    else:
        with open(name, encoding="utf-8") as f:
            text = f.read()
    return json.loads(text, object_pairs_hook=no_duplicates,
                      parse_float=fractions.note, parse_constant=no_constant)


def where(path):
    """A JSON pointer-like path of an error: /page/callers/rows/0/hits."""
    return "/" + "/".join(str(p) for p in path)


def main():
    """Check each document named on the command line."""
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    bad = 0
    for name in sys.argv[2:] or ["-"]:
        fractions = Fractions()
        try:
            doc = load(name, fractions)
        except (Refused, ValueError, OSError) as err:
            print(f"{name}: {err}", file=sys.stderr)
            bad += 1
            continue
        # 1.0 would pass as an integer in the schema: refuse it here.
        for text in fractions:
            print(f"{name}: number {text} is not an integer", file=sys.stderr)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for err in errors:
            print(f"{name}: {where(err.path)}: {err.message}", file=sys.stderr)
        bad += bool(errors or fractions)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
