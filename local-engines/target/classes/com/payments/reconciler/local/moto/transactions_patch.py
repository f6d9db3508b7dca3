"""Makes moto's TransactWriteItems cost independent of table size.

moto 5.2.1's DynamoDBBackend.transact_write_items deep-copies every table the transaction
touches before it starts, so that a cancelled transaction can be rolled back by putting the
copies back: O(size of the tables) per transaction (2.5 s with 100,000 items).

Here the rollback copies only the items the transaction names instead. Before moto's own code
runs, each named item is snapshotted (a deep copy of the stored Item, or ABSENT); moto's
whole-table deepcopy is turned into an identity for the duration of the call (so its own
"restore the copies" step becomes a no-op); and if the call raises for any reason
(TransactionCanceledException, ValidationException, ...) every named item is put back exactly
as it was. Everything else -- parsing, condition evaluation, CancellationReasons, ALL_OLD --
is moto's own code, unchanged.

Why restoring the named items is enough:
  * moto applies each action as it goes and keeps evaluating the items after a failed one,
    relying on the rollback to undo them; a transaction can only change the items it names,
    and every one of them is restored (not only those before the failure).
  * Table items live in Table.items ({hash: Item} or {hash: {range: Item}}); secondary indexes
    are not stored, Table.query derives them from Table.items at query time, so a restored
    item is also restored in every GSI/LSI, sparse ones included.
  * A stream shard (unused here) is truncated back to its length before the transaction.
When an item's key cannot be read from the request (a malformed request moto will reject in
its own way), the transaction falls back to moto's original whole-table copy.

install() checks that the moto internals it relies on are where it expects and stops the
launcher (SystemExit) with a clear message if not: a moto upgrade must not silently turn this
patch into a no-op or, worse, into a rollback that misses items.

RECONCILER_TX_PATCH=off in the environment disables the patch (used by the benchmark to
measure before/after in one run).
"""
import copy
import inspect
import os
import re
import sys

ABSENT = object()


class _CopyShim:
    """Stands in for the `copy` module inside moto.dynamodb.models.

    While `skip_table_copies` is set, deepcopy of a Table returns the table itself (moto's
    rollback copy and its restore become no-ops); every other deepcopy (moto copies single
    items, e.g. for stream records) is the real one.
    """

    def __init__(self, real, table_cls):
        self._real = real
        self._table_cls = table_cls
        self.skip_table_copies = False

    def deepcopy(self, x, memo=None):
        if self.skip_table_copies and isinstance(x, self._table_cls):
            return x
        return self._real.deepcopy(x, memo)

    def __getattr__(self, name):
        return getattr(self._real, name)


def _fail(what):
    raise SystemExit(
        "transactions_patch: moto changed (" + what + "); the item-level rollback in "
        "transactions_patch.py must be reviewed for this moto version before it is used. "
        "Set RECONCILER_TX_PATCH=off to run with moto's own (slow, whole-table) rollback meanwhile.")


def _squashed_source(fn, what):
    try:
        return re.sub(r"\s+", "", inspect.getsource(fn))
    except (OSError, TypeError):
        _fail("cannot read the source of " + what)


def _check_internals(models, backend_cls, table_cls):
    if getattr(models, "copy", None) is not copy:
        _fail("moto.dynamodb.models no longer uses the copy module as `copy`")
    tx = _squashed_source(getattr(backend_cls, "transact_write_items", None), "DynamoDBBackend.transact_write_items")
    if tx.count("copy.deepcopy(") != 1 or "copy.deepcopy(self.tables[table_name])" not in tx:
        _fail("transact_write_items no longer backs up whole tables with copy.deepcopy(self.tables[table_name])")
    if tx.count("self.tables[table_name]=original_table_state[table_name]") != 2:
        _fail("transact_write_items no longer rolls back by putting the table copies back")
    put = _squashed_source(getattr(table_cls, "put_item", None), "Table.put_item")
    if "self.items[hash_value][range_value]=item" not in put or "self.items[hash_value]=item" not in put:
        _fail("Table no longer stores items as Table.items[hash] / Table.items[hash][range]")
    query = _squashed_source(getattr(table_cls, "query", None), "Table.query")
    if "self.all_items()" not in query:
        _fail("Table.query no longer derives index entries from the table's items at query time")
    if not isinstance(getattr(table_cls, "has_range_key", None), property):
        _fail("Table.has_range_key is gone")


def _item_key(table, op_type, op, dynamo_type):
    """(hash, range) of the item an action names, or None when the request does not say."""
    attrs = op.get("Item") if op_type == "Put" else op.get("Key")
    if not isinstance(attrs, dict) or table.hash_key_attr not in attrs:
        return None
    hash_value = dynamo_type(attrs[table.hash_key_attr])
    if not table.has_range_key:
        return hash_value, None
    if table.range_key_attr not in attrs:
        return None
    return hash_value, dynamo_type(attrs[table.range_key_attr])


def _snapshot(backend, transact_items, dynamo_type, not_found):
    """[(table, hash, range, copy-or-ABSENT)] for every item named, with stream lengths; None to fall back."""
    entries = []
    streams = {}
    for action in transact_items:
        if not isinstance(action, dict) or len(action) != 1:
            return None
        op_type, op = next(iter(action.items()))
        if not isinstance(op, dict):
            return None
        try:
            table = backend.get_table(op.get("TableName"))
        except not_found:
            continue  # moto reports the missing table; nothing of it can change
        try:
            key = _item_key(table, op_type, op, dynamo_type)
        except Exception:  # a malformed key value: let moto reject it, with its own rollback
            return None
        if key is None:
            return None
        hash_value, range_value = key
        if range_value is None:
            current = table.items.get(hash_value)
        else:
            bucket = table.items.get(hash_value)
            current = bucket.get(range_value) if bucket is not None else None
        entries.append((table, hash_value, range_value, ABSENT if current is None else copy.deepcopy(current)))
        if table.stream_shard is not None and id(table) not in streams:
            streams[id(table)] = (table.stream_shard, len(table.stream_shard.items))
    return entries, list(streams.values())


def _restore(snapshot):
    entries, streams = snapshot
    for table, hash_value, range_value, saved in entries:
        if range_value is None:
            if saved is ABSENT:
                table.items.pop(hash_value, None)
            else:
                table.items[hash_value] = saved
        else:
            if saved is ABSENT:
                bucket = table.items.get(hash_value)
                if bucket is not None:
                    bucket.pop(range_value, None)
                    if not bucket:
                        del table.items[hash_value]
            else:
                table.items[hash_value][range_value] = saved
    for shard, length in streams:
        del shard.items[length:]


def install():
    if os.environ.get("RECONCILER_TX_PATCH", "on").strip().lower() == "off":
        print("transactions_patch: disabled (RECONCILER_TX_PATCH=off): moto copies whole tables per transaction",
              file=sys.stderr, flush=True)
        return
    from moto.dynamodb import models
    from moto.dynamodb.exceptions import ResourceNotFoundException
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    if getattr(DynamoDBBackend.transact_write_items, "_reconciler_patched", False):
        return
    _check_internals(models, DynamoDBBackend, Table)

    shim = _CopyShim(copy, Table)
    models.copy = shim
    original = DynamoDBBackend.transact_write_items

    def transact_write_items(self, transact_items):
        snapshot = _snapshot(self, transact_items, DynamoType, ResourceNotFoundException)
        if snapshot is None:
            return original(self, transact_items)
        shim.skip_table_copies = True
        try:
            return original(self, transact_items)
        except BaseException:
            _restore(snapshot)
            raise
        finally:
            shim.skip_table_copies = False

    transact_write_items._reconciler_patched = True
    DynamoDBBackend.transact_write_items = transact_write_items
    print("transactions_patch: TransactWriteItems rolls back the named items only", file=sys.stderr, flush=True)
