"""An ordered log of every DynamoDB write that moto accepted, for the invariant audit.

The server handles one request at a time, so the order in which this middleware sees successful
write responses is the order in which they were applied: ground truth for "did a write carrying
epoch e commit after the takeover to e+1?" (invariant I1) and "was the settlement there when the
release was decided?" (I3). The log keeps the request bodies of successful writes, and of transactions
the engine cancelled (with their cancellation reasons): a refused lease check is the world's record of a
fenced refusal, whatever became of the task that sent it (it may have timed out before the answer came).

GET  /reconciler-api/write-log          -> {"writes": [{"seq": n, "op": "...", "request": {...}, "response": {...}}],
                                            "refused": [{"seq": n, "request": {...}, "reasons": [...]}]}
POST /reconciler-api/write-log/clear    -> clears it (moto's own reset clears it too)
"""
import json
import threading

WRITE_OPS = {"TransactWriteItems", "UpdateItem", "PutItem", "DeleteItem", "BatchWriteItem"}


class WriteLog:
    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.entries = []
        self.refused = []
        self.seq = 0

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path == "/reconciler-api/write-log":
            with self.lock:
                body = json.dumps({"writes": self.entries, "refused": self.refused}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path in ("/reconciler-api/write-log/clear", "/moto-api/reset"):
            with self.lock:
                self.entries = []
                self.refused = []
            if path == "/reconciler-api/write-log/clear":
                start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "2")])
                return [b"{}"]
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        op = target.split(".", 1)[1] if target.startswith("DynamoDB_") and "." in target else None
        if op not in WRITE_OPS:
            return self.app(environ, start_response)

        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        import io
        environ["wsgi.input"] = io.BytesIO(raw)
        status_holder = {}

        def capture(status, headers, exc_info=None):
            status_holder["status"] = status
            return start_response(status, headers, exc_info)

        try:
            parsed = json.loads(raw or b"{}")
        except ValueError:
            parsed = None
        # The server is single-threaded, so nothing else is applied between these reads and the write.
        named = _named_items(environ, op, parsed)
        before = [_image(backend, table, key) for backend, table, key in named]
        chunks = list(self.app(environ, capture))
        if status_holder.get("status", "").startswith("200"):
            try:
                request = json.loads(raw or b"{}")
                response = json.loads(b"".join(chunks) or b"{}")
            except ValueError:
                request, response = {"unparsed": True}, {}
            items = [{"table": table.name, "key": _key_json(table, key), "old": old, "new": _image(backend, table, key)}
                     for (backend, table, key), old in zip(named, before)]
            with self.lock:
                self.seq += 1
                self.entries.append({"seq": self.seq, "op": op, "request": request, "response": response, "items": items})
        elif op == "TransactWriteItems" and status_holder.get("status", "").startswith("400"):
            try:
                request = json.loads(raw or b"{}")
                response = json.loads(b"".join(chunks) or b"{}")
            except ValueError:
                request, response = None, {}
            reasons = response.get("CancellationReasons") if isinstance(response, dict) else None
            if isinstance(request, dict) and isinstance(reasons, list):
                with self.lock:
                    self.seq += 1
                    self.refused.append({"seq": self.seq, "request": request, "reasons": reasons})
        return chunks


def _backend(environ):
    """moto's DynamoDB backend for this request: the account of its access key, the region of its signature."""
    from moto.dynamodb.models import dynamodb_backends
    from moto.iam.models import get_account_id_from
    auth = environ.get("HTTP_AUTHORIZATION", "")
    marker = "Credential="
    if marker not in auth:
        return None
    scope = auth.split(marker, 1)[1].split(",", 1)[0].split("/")
    if len(scope) < 3:
        return None
    return dynamodb_backends[get_account_id_from(scope[0])][scope[2]]


def _named_items(environ, op, request):
    """[(backend, table, (hash, range))] for every item the write names; tables moto does not know are skipped."""
    if not isinstance(request, dict):
        return []
    try:
        backend = _backend(environ)
    except Exception:
        return []
    if backend is None:
        return []
    actions = []  # (table name, attrs naming the key)
    if op == "PutItem":
        actions.append((request.get("TableName"), request.get("Item")))
    elif op in ("UpdateItem", "DeleteItem"):
        actions.append((request.get("TableName"), request.get("Key")))
    elif op == "TransactWriteItems":
        for action in request.get("TransactItems") or []:
            for kind, body in (action or {}).items():
                if kind == "Put":
                    actions.append((body.get("TableName"), body.get("Item")))
                elif kind in ("Update", "Delete"):
                    actions.append((body.get("TableName"), body.get("Key")))
    elif op == "BatchWriteItem":
        for table_name, writes in (request.get("RequestItems") or {}).items():
            for write in writes or []:
                if "PutRequest" in write:
                    actions.append((table_name, write["PutRequest"].get("Item")))
                elif "DeleteRequest" in write:
                    actions.append((table_name, write["DeleteRequest"].get("Key")))
    from moto.dynamodb.models.dynamo_type import DynamoType
    named = []
    for table_name, attrs in actions:
        try:
            table = backend.get_table(table_name)
            hash_value = DynamoType(attrs[table.hash_key_attr])
            range_value = DynamoType(attrs[table.range_key_attr]) if table.has_range_key else None
        except Exception:
            continue  # moto rejects such a request itself; a rejected write is not logged
        named.append((backend, table, (hash_value, range_value)))
    return named


def _image(backend, table, key):
    hash_value, range_value = key
    item = table.get_item(hash_value, range_value)
    return None if item is None else item.to_json()["Attributes"]


def _key_json(table, key):
    hash_value, range_value = key
    out = {table.hash_key_attr: hash_value.to_json()}
    if range_value is not None:
        out[table.range_key_attr] = range_value.to_json()
    return out
