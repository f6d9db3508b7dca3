"""Serves moto (the local DynamoDB and Step Functions APIs) on loopback, one request at a time.

Why each patch exists (see shared/notes/dynamodb-local.md and step-functions-local.md):
  * threaded=False: moto's backend has no locks; served concurrently, a cancelled
    TransactWriteItems restoring its rollback copy can overwrite an acknowledged write.
  * Step Functions executes definitions (stepfunctions.execute_state_machine) and its
    Lambda tasks call the Lambda Invoke API at RECONCILER_LAMBDA_ENDPOINT instead of moto's
    own Lambda service (which would need Docker).

Usage: python3 moto_launcher.py PORT   (prints "READY <port>" on stdout once listening)
"""
import os
import sys


def patch_step_functions_lambda_endpoint(endpoint):
    import boto3
    from botocore.config import Config
    from moto.core.config import default_user_config
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

    default_user_config["stepfunctions"]["execute_state_machine"] = True
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


def main():
    port = int(sys.argv[1])
    os.environ["MOTO_PORT"] = str(port)
    from werkzeug.serving import run_simple, WSGIRequestHandler
    import moto.server

    endpoint = os.environ.get("RECONCILER_LAMBDA_ENDPOINT")
    if endpoint:
        patch_step_functions_lambda_endpoint(endpoint)

    import transactions_patch
    transactions_patch.install()

    class QuietHandler(WSGIRequestHandler):
        def log_request(self, *args, **kwargs):
            pass

    from write_log import WriteLog
    app = WriteLog(moto.server.DomainDispatcherApplication(moto.server.create_backend_app))
    print(f"READY {port}", flush=True)
    run_simple("127.0.0.1", port, app, threaded=False, use_reloader=False,
               request_handler=QuietHandler)


if __name__ == "__main__":
    main()
