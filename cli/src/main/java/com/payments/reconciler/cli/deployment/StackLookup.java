package com.payments.reconciler.cli.deployment;

import java.util.Map;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.CloudFormationException;
import software.amazon.awssdk.services.cloudformation.model.Output;
import software.amazon.awssdk.services.cloudformation.model.Stack;

/**
 * Finds a deployment by its stack name with CloudFormation {@code DescribeStacks}. A stack that does not exist is bad usage
 * (exit 2, naming {@code --stack-name}); any other CloudFormation error (credentials, permissions) stays an AWS error.
 */
public final class StackLookup {

    private final CloudFormationClient cloudFormation;

    public StackLookup(CloudFormationClient cloudFormation) {
        this.cloudFormation = cloudFormation;
    }

    public Deployment find(String stackName, String region) {
        Stack stack;
        try {
            stack = cloudFormation.describeStacks(b -> b.stackName(stackName)).stacks().stream().findFirst()
                    .orElseThrow(() -> missing(stackName, region, null));
        } catch (CloudFormationException e) {
            // CloudFormation answers a stack it does not know with ValidationError "Stack with id X does not exist".
            if ("ValidationError".equals(e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode())
                    && String.valueOf(e.awsErrorDetails().errorMessage()).contains("does not exist")) {
                throw missing(stackName, region, e);
            }
            throw e;
        }
        Map<String, String> outputs = stack.outputs().stream().collect(Collectors.toMap(Output::outputKey, o -> o.outputValue() == null ? "" : o.outputValue(), (a, b) -> b));
        return new Deployment(stackName, outputs);
    }

    private static IllegalArgumentException missing(String stackName, String region, Exception cause) {
        return new IllegalArgumentException("--stack-name: stack " + stackName + " does not exist in " + region
                + " (the deployed stack's name, {namePrefix}HoldReleaseReconciler; or set RECONCILER_STACK)", cause);
    }
}
