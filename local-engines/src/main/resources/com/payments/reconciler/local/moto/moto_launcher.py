"""Serves moto (the local DynamoDB and Step Functions APIs) on loopback, one request at a time.

Why each patch exists (see shared/notes/dynamodb-local.md and step-functions-local.md):
  * threaded=False: moto's backend has no locks; served concurrently, a cancelled
    TransactWriteItems restoring its rollback copy can overwrite an acknowledged write.
  * Step Functions executes definitions (stepfunctions.execute_state_machine) and its
    Lambda tasks call the Lambda Invoke API at RECONCILER_LAMBDA_ENDPOINT instead of moto's
    own Lambda service (which would need Docker).
  * transactions_patch: a transaction's rollback copies the items it names, not whole tables.
  * index_patch: a GSI query reads a maintained index instead of scanning the table.
  * sqs_patch: ReceiveMessage checks a message's retention without computing every queue attribute per message.
  * expression_patch: an UpdateExpression is parsed once per string and its tree copied by pickle, not deep-copied.
  * serialize_patch: Query, Scan, GetItem and BatchGetItem answers are written as JSON directly, not walked by shape.
  * dispatch_patch: moto's module names and each response class's methods are listed once, not on every request.

Usage: python3 moto_launcher.py PORT   (prints "READY <port>" on stdout once listening)
"""
import os
import sys


def patch_step_functions_lambda_endpoint(endpoint):
    import boto3
    from botocore.config import Config
    from moto.core.config import default_user_config
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

    if not hasattr(lambda_eval_utils, "boto_client_for"):
        raise SystemExit("moto changed: lambda_eval_utils.boto_client_for is gone; "
                         "the Lambda routing patch in moto_launcher.py must be updated")
    original = lambda_eval_utils.boto_client_for

    def boto_client_for(region, service, state_credentials=None):
        if service != "lambda":
            return original(region=region, service=service, state_credentials=state_credentials)
        return boto3.client(
            "lambda",
            region_name=region,
            endpoint_url=endpoint,
            aws_access_key_id="local",
            aws_secret_access_key="local",
            config=Config(parameter_validation=False,
                          retries={"max_attempts": 0, "total_max_attempts": 1},
                          connect_timeout=5, read_timeout=900),
        )

    lambda_eval_utils.boto_client_for = boto_client_for


def patch_execution_clone():
    """StartExecution deep-copies the state machine, executions included; once an execution has run, its
    interpreter holds thread locks and every later StartExecution of that state machine fails with
    "cannot pickle '_thread.RLock'" (moto 5.2.1). The copy only needs the definition and settings, so
    the clone gets an empty execution list (the original keeps them all)."""
    import copy
    import inspect
    from moto.stepfunctions import models as sfn_models
    from moto.stepfunctions.parser import models as parser_models

    source = inspect.getsource(parser_models.StepFunctionsParserBackend.start_execution)
    if "copy.deepcopy(state_machine)" not in source:
        raise SystemExit("moto changed: StartExecution no longer deep-copies the state machine; "
                         "review patch_execution_clone in moto_launcher.py")
    cls = sfn_models.StateMachineInstance
    if "self.executions" not in inspect.getsource(cls.__init__):
        raise SystemExit("moto changed: StateMachineInstance has no executions list; "
                         "review patch_execution_clone in moto_launcher.py")

    def __deepcopy__(self, memo):
        clone = cls.__new__(type(self))
        memo[id(self)] = clone
        for name, value in self.__dict__.items():
            setattr(clone, name, [] if name == "executions" else copy.deepcopy(value, memo))
        return clone

    cls.__deepcopy__ = __deepcopy__


def main():
    port = int(sys.argv[1])
    os.environ["MOTO_PORT"] = str(port)
    from werkzeug.serving import run_simple, WSGIRequestHandler
    import moto.server

    # Executions run the real ASL (without this moto only records them as RUNNING).
    from moto.core.config import default_user_config
    default_user_config["stepfunctions"]["execute_state_machine"] = True
    endpoint = os.environ.get("RECONCILER_LAMBDA_ENDPOINT")
    if endpoint:
        patch_step_functions_lambda_endpoint(endpoint)

    patch_execution_clone()

    import transactions_patch
    transactions_patch.install()
    # After transactions_patch, whose checks read moto's own transact_write_items.
    import index_patch
    index_patch.install()
    import sqs_patch
    sqs_patch.install()
    import expression_patch
    expression_patch.install()
    import serialize_patch
    serialize_patch.install()
    import dispatch_patch
    dispatch_patch.install()

    class QuietHandler(WSGIRequestHandler):
        # Buffered: werkzeug writes a response's status line and headers, then its body, then flushes; unbuffered
        # (socketserver's default) that is two socket sends per response, which a profile of a local night found
        # among moto's costliest lines. Buffered, the flush sends both at once; nothing is held past the flush.
        wbufsize = 64 * 1024

        def log_request(self, *args, **kwargs):
            pass

    from write_log import WriteLog
    app = WriteLog(moto.server.DomainDispatcherApplication(moto.server.create_backend_app))
    print(f"READY {port}", flush=True)
    run_simple("127.0.0.1", port, app, threaded=False, use_reloader=False,
               request_handler=QuietHandler)


if __name__ == "__main__":
    main()
