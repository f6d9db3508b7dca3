package com.payments.reconciler.cli;

import com.payments.reconciler.cli.deployment.Deployment;
import com.payments.reconciler.cli.deployment.StackLookup;
import com.payments.reconciler.cli.deployment.StackName;
import com.payments.reconciler.window.WindowStarter;
import com.payments.reconciler.workflow.EmfMetrics;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import picocli.CommandLine.Option;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * Which deployment the operator commands act on and how they reach it: the stack, found by name with CloudFormation
 * DescribeStacks (its outputs name the state machine, the tables and the deployed window settings), with AWS's default
 * credential chain or a local moto.
 */
final class AwsOptions {

    @Option(names = "--stack-name", paramLabel = "NAME",
            description = "The deployed reconciler stack (default: $" + StackName.ENV + ", else cdk.json's namePrefix + HoldReleaseReconciler).")
    String stackName;

    @Option(names = "--region", paramLabel = "REGION", description = "AWS region (default: AWS_REGION or the profile's region).")
    String region;

    @Option(names = "--endpoint-url", paramLabel = "URL", description = "Another endpoint for CloudFormation and Step Functions, e.g. a local moto (requests signed with dummy credentials).")
    URI endpointUrl;

    private Deployment deployment;

    /** The stack's outputs, described once per command. */
    Deployment deployment() {
        if (deployment == null) {
            String name = StackName.resolve(stackName, System.getenv(), Path.of(""));
            String r = effectiveRegion();
            deployment = new StackLookup(OperatorClients.build(CloudFormationClient.builder(), r, endpointUrl)).find(name, r);
        }
        return deployment;
    }

    String stateMachineArn() {
        return deployment().stateMachineArn();
    }

    /** Step Functions in the state machine's own region (the stack's outputs name it). */
    SfnClient sfn() {
        return OperatorClients.build(SfnClient.builder(), region != null ? region : stateMachineArn().split(":")[3], endpointUrl);
    }

    /** The deployed state machine's executions, through {@link #sfn()}. */
    WindowStarter windowStarter() {
        return windowStarter(sfn());
    }

    /**
     * The deployed state machine's executions, through {@code sfn}. Its metric lines are dropped: Embedded Metric Format
     * becomes metrics only in a CloudWatch log, and the cli writes to a terminal.
     */
    WindowStarter windowStarter(SfnClient sfn) {
        return new WindowStarter(sfn, stateMachineArn(), new EmfMetrics(Clock.systemUTC(), "cli", line -> { }));
    }

    /**
     * Step Functions answers {@code ExecutionDoesNotExist} for a name the state machine never ran: an input to correct
     * (exit 2), not an AWS failure.
     */
    IllegalArgumentException noSuchExecution(com.payments.reconciler.window.ExecutionName name) {
        String arn = stateMachineArn();
        return new IllegalArgumentException("--execution: " + name + " does not exist for state machine "
                + arn.substring(arn.lastIndexOf(':') + 1) + " in " + arn.split(":")[3]
                + " — `status --window " + name.window() + "` lists that window's executions");
    }

    /** The region: the flag, a local engine's default, or the SDK's chain; none configured is bad usage (exit 2). */
    String effectiveRegion() {
        if (region != null) {
            if (!region.matches("[a-z]{2}(-[a-z]+)+-\\d")) {
                throw new IllegalArgumentException("--region: must be a region code such as eu-west-1, was '" + region + "'");
            }
            return region;
        }
        if (endpointUrl != null) {
            return OperatorClients.LOCAL_DEFAULT_REGION.id();
        }
        try {
            return new DefaultAwsRegionProviderChain().getRegion().id();
        } catch (software.amazon.awssdk.core.exception.SdkClientException e) {
            throw new IllegalArgumentException("--region: required when no region is configured (AWS_REGION or the profile's region), e.g. --region eu-west-1");
        }
    }

    /** The console page of an execution. */
    String consoleUrl(String executionArn) {
        String r = executionArn.split(":")[3];
        return "https://" + r + ".console.aws.amazon.com/states/home?region=" + r + "#/v2/executions/details/" + executionArn;
    }
}
