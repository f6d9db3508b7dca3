"""Makes moto's UpdateExpression handling cost a copy instead of a parse and a deep copy.

moto 5.2.1 parses an UpdateItem's (and each transaction Update's) UpdateExpression twice per request -- once in the
response layer to check the names it uses, once in the backend -- and the validator then deep-copies the parsed tree
(copy.deepcopy, in pure Python) because validating replaces its nodes. Profiled during a local night's delivery (py-spy
on the moto process), the deep copies were about 26 % of moto's time and the parses 6 %; the project's expressions are a
handful of named constants, so the same strings are parsed again and again.

Here:
  * UpdateExpressionParser.make keeps each expression's parsed tree pickled (at most CACHE_SIZE expressions) and gives
    every caller its own fresh tree from that (pickle.loads): the same tree the parse builds, never one shared between
    requests. An expression that fails to parse is not kept: every request with it fails in moto's own parse, with
    moto's own error.
  * the validator's copy of the tree (validators.deepcopy) is a pickle round trip for parse trees: the same independent
    copy, made in C. Anything else, and any tree pickle refuses, is still copied by copy.deepcopy.
Nothing else changes: moto's own validation, execution, conditions and errors.

install() checks that moto still parses and copies where this patch replaces it and stops the launcher (SystemExit)
with a clear message if not. RECONCILER_EXPR_PATCH=off disables the patch (the semantics test's reference engine).
"""
import copy
import inspect
import os
import pickle
import sys

CACHE_SIZE = 256


def install():
    if os.environ.get("RECONCILER_EXPR_PATCH", "on").strip().lower() == "off":
        print("expression_patch: disabled (RECONCILER_EXPR_PATCH=off): every UpdateExpression is parsed and deep-copied",
              file=sys.stderr, flush=True)
        return
    from moto.dynamodb.parsing import expressions, validators
    from moto.dynamodb.parsing.ast_nodes import Node

    parser = expressions.UpdateExpressionParser
    if getattr(parser.make, "_reconciler_patched", False):
        return
    make_source = inspect.getsource(parser.make)
    if "ExpressionTokenizer.make_list(expression_str)" not in make_source or ".parse()" not in make_source:
        raise SystemExit("moto changed: UpdateExpressionParser.make no longer tokenizes and parses its string; "
                         "review expression_patch.py")
    if getattr(validators, "deepcopy", None) is not copy.deepcopy \
            or "self.node_to_validate = deepcopy(expression)" not in inspect.getsource(validators.Validator.__init__):
        raise SystemExit("moto changed: the DynamoDB expression validator no longer deep-copies its tree with "
                         "copy.deepcopy; review expression_patch.py")

    original_make = parser.make.__func__
    parsed = {}

    def make(cls, expression_str):
        blob = parsed.get(expression_str) if isinstance(expression_str, str) else None
        if blob is None:
            tree = original_make(cls, expression_str)  # raises moto's own error for a bad expression
            try:
                blob = pickle.dumps(tree, pickle.HIGHEST_PROTOCOL)
            except Exception:
                return tree
            if isinstance(expression_str, str) and len(parsed) < CACHE_SIZE:
                parsed[expression_str] = blob
            return tree
        return pickle.loads(blob)

    make._reconciler_patched = True
    parser.make = classmethod(make)

    def deepcopy(value, memo=None):
        if memo is None and isinstance(value, Node):
            try:
                return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
            except Exception:
                pass
        return copy.deepcopy(value, memo)

    validators.deepcopy = deepcopy
    print("expression_patch: UpdateExpressions parsed once per string, trees copied by pickle", file=sys.stderr, flush=True)
