package com.payments.reconciler.cli;

import java.net.URI;
import picocli.CommandLine.Option;
import software.amazon.awssdk.services.sfn.SfnClient;

/** How the operator commands reach Step Functions: AWS's default credential chain, or a local moto. */
final class AwsOptions {

    @Option(names = "--state-machine-arn", required = true, paramLabel = "ARN",
            description = "The reconciler's state machine (the stack output StateMachineArn).")
    String stateMachineArn;

    @Option(names = "--region", paramLabel = "REGION", description = "AWS region (default: the ARN's region).")
    String region;

    @Option(names = "--endpoint-url", paramLabel = "URL", description = "Another endpoint for Step Functions, e.g. a local moto (requests signed with dummy credentials).")
    URI endpointUrl;

    SfnClient sfn() {
        if (stateMachineArn == null || !stateMachineArn.matches("arn:aws[a-z-]*:states:[a-z0-9-]+:\\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}")) {
            throw new IllegalArgumentException("--state-machine-arn must be arn:aws:states:REGION:ACCOUNT:stateMachine:NAME, was " + stateMachineArn);
        }
        String effectiveRegion = region != null ? region : stateMachineArn.split(":")[3];
        return OperatorClients.build(SfnClient.builder(), effectiveRegion, endpointUrl);
    }

    /**
     * Step Functions answers {@code ExecutionDoesNotExist} for a name the state machine never ran: an input to correct
     * (exit 2), not an AWS failure.
     */
    IllegalArgumentException noSuchExecution(com.payments.reconciler.window.ExecutionName name) {
        return new IllegalArgumentException("--execution: " + name + " does not exist for state machine "
                + stateMachineArn.substring(stateMachineArn.lastIndexOf(':') + 1) + " in " + effectiveRegion()
                + " — `status --window " + name.window() + "` lists that window's executions");
    }

    private String effectiveRegion() {
        return region != null ? region : stateMachineArn.split(":")[3];
    }

    /** The console page of an execution. */
    String consoleUrl(String executionArn) {
        String r = region != null ? region : stateMachineArn.split(":")[3];
        return "https://" + r + ".console.aws.amazon.com/states/home?region=" + r + "#/v2/executions/details/" + executionArn;
    }
}
