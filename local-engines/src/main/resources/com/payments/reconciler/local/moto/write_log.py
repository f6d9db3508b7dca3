"""An ordered log of every DynamoDB write that moto accepted, for the invariant audit.

The server handles one request at a time, so the order in which this middleware sees successful
write responses is the order in which they were applied: ground truth for "did a write carrying
epoch e commit after the takeover to e+1?" (invariant I1) and "was the settlement there when the
release was decided?" (I3). The log keeps the request bodies of successful writes only.

GET  /reconciler-api/write-log          -> {"writes": [{"seq": n, "op": "...", "request": {...}, "response": {...}}]}
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
        self.seq = 0

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path == "/reconciler-api/write-log":
            with self.lock:
                body = json.dumps({"writes": self.entries}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path in ("/reconciler-api/write-log/clear", "/moto-api/reset"):
            with self.lock:
                self.entries = []
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

        chunks = list(self.app(environ, capture))
        if status_holder.get("status", "").startswith("200"):
            try:
                request = json.loads(raw or b"{}")
                response = json.loads(b"".join(chunks) or b"{}")
            except ValueError:
                request, response = {"unparsed": True}, {}
            with self.lock:
                self.seq += 1
                self.entries.append({"seq": self.seq, "op": op, "request": request, "response": response})
        return chunks
