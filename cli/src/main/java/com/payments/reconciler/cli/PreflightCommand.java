package com.payments.reconciler.cli;

import com.payments.reconciler.cli.preflight.AccountFacts;
import com.payments.reconciler.cli.preflight.AccountProbe;
import com.payments.reconciler.cli.preflight.Check;
import com.payments.reconciler.cli.preflight.Finding;
import com.payments.reconciler.cli.preflight.Preflight;
import com.payments.reconciler.workflow.FixedNames;
import java.io.PrintWriter;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import com.payments.reconciler.delivery.ProviderAdapters;
import com.payments.reconciler.workflow.ReservedConcurrency;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudwatchlogs.CloudWatchLogsClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/** {@code preflight}: read-only checks of the target account before a deploy (and after it), each finding with its fix. */
@Command(name = "preflight", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Check the target account before a deploy, with read-only calls and the default AWS credential chain. "
                + "Run it before the first deploy and after each. Checks, in order:"},
        footerHeading = "%nExit codes:%n",
        footer = {"  0  no findings", "  1  findings: each names its fix", "  2  bad usage (nothing was called)",
                "  3  AWS unreachable or refused a call (credentials, permissions: a denied call is named by its IAM action, endpoint)"})
final class PreflightCommand implements Callable<Integer> {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9-]{0,24}");
    private static final Pattern SECRET_NAME = Pattern.compile("[A-Za-z0-9/_+=.@-]{1,256}");
    private static final Pattern REGION = Pattern.compile("[a-z]{2}(-[a-z]+)+-\\d");

    @Spec
    CommandSpec spec;

    @Option(names = "--name-prefix", paramLabel = "PREFIX", defaultValue = "reconciler-prod-",
            description = "The stack's namePrefix (cdk.json's context; default: ${DEFAULT-VALUE}).")
    String prefix;

    @Option(names = "--reserve-concurrency", paramLabel = "true|false", defaultValue = "false", arity = "1",
            description = "Whether the deploy reserves concurrency (cdk.json's reserveConcurrency; default: ${DEFAULT-VALUE}).")
    String reserveConcurrency;

    @Option(names = "--provider", paramLabel = "ADAPTER", defaultValue = "generic-http",
            description = "The stack's provider adapter (cdk.json's provider: generic-http, stripe or adyen; default: ${DEFAULT-VALUE}); "
                    + "with adyen the webhook receiver's reserved concurrency is counted.")
    String provider;

    @Option(names = "--webhook-reserved-concurrency", paramLabel = "N", defaultValue = "" + ReservedConcurrency.WEBHOOK_DEFAULT,
            description = "With --provider adyen: the receiver's reserved concurrency (cdk.json's webhookReservedConcurrency, 0 to "
                    + ReservedConcurrency.WEBHOOK_MAX + "; default: ${DEFAULT-VALUE}).")
    int webhookReservedConcurrency;

    @Option(names = "--provider-secret-name", paramLabel = "NAME",
            description = "The provider secret's name (cdk.json's providerSecretName; default: {prefix}provider-api-key).")
    String secretName;

    @Option(names = "--region", paramLabel = "REGION", description = "The region to deploy to (default: AWS_REGION or the profile's region).")
    String region;

    @Option(names = "--endpoint-url", paramLabel = "URL",
            description = "Another endpoint for every service called, e.g. a local moto (requests signed with dummy credentials).")
    URI endpointUrl;

    /** The region the deploy would use; none configured is bad usage (exit 2), not an AWS error. */
    private static String configuredRegion() {
        try {
            return new DefaultAwsRegionProviderChain().getRegion().id();
        } catch (software.amazon.awssdk.core.exception.SdkClientException e) {
            throw new IllegalArgumentException("--region is required when no region is configured (AWS_REGION or the profile's region)");
        }
    }

    static String checksHelp() {
        return Arrays.stream(Check.values()).map(c -> "  " + c.title() + ": " + c.description()).collect(Collectors.joining("%n"));
    }

    @Override
    public Integer call() {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("--name-prefix must be at most 24 letters, digits or '-', e.g. reconciler-prod-, was '" + prefix + "'");
        }
        if (!reserveConcurrency.equals("true") && !reserveConcurrency.equals("false")) {
            throw new IllegalArgumentException("--reserve-concurrency must be true or false, was '" + reserveConcurrency + "'");
        }
        ProviderAdapters.Adapter adapter;
        try {
            adapter = ProviderAdapters.parse(provider);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--provider: " + e.getMessage());
        }
        if (webhookReservedConcurrency < 0 || webhookReservedConcurrency > ReservedConcurrency.WEBHOOK_MAX) {
            throw new IllegalArgumentException("--webhook-reserved-concurrency must be an integer from 0 to " + ReservedConcurrency.WEBHOOK_MAX
                    + ", was " + webhookReservedConcurrency);
        }
        // Only an Adyen stack has the webhook receiver, and it reserves only when the stack reserves concurrency.
        int webhookReserved = adapter == ProviderAdapters.Adapter.ADYEN ? webhookReservedConcurrency : 0;
        String secret = secretName != null ? secretName : FixedNames.defaultProviderSecretName(prefix);
        if (!SECRET_NAME.matcher(secret).matches()) {
            throw new IllegalArgumentException("--provider-secret-name must be 1-256 characters of letters, digits and /_+=.@-, was '" + secret + "'");
        }
        if (region != null && !REGION.matcher(region).matches()) {
            throw new IllegalArgumentException("--region must be a region code such as eu-west-1, was '" + region + "'");
        }
        String effectiveRegion = region != null ? region : endpointUrl != null ? "us-east-1" : configuredRegion();
        AccountProbe probe = new AccountProbe(
                OperatorClients.build(LambdaClient.builder(), effectiveRegion, endpointUrl),
                OperatorClients.build(CloudFormationClient.builder(), effectiveRegion, endpointUrl),
                OperatorClients.build(DynamoDbClient.builder(), effectiveRegion, endpointUrl),
                OperatorClients.build(SecretsManagerClient.builder(), effectiveRegion, endpointUrl),
                OperatorClients.build(CloudWatchLogsClient.builder(), effectiveRegion, endpointUrl),
                OperatorClients.build(SqsClient.builder(), effectiveRegion, endpointUrl));
        AccountFacts facts;
        try {
            facts = probe.gather(effectiveRegion, prefix, secret);
        } catch (AccountProbe.PermissionDenied denied) {
            spec.commandLine().getErr().println("error: " + denied.getMessage());
            return ExitCodes.AWS_ERROR;
        }
        List<Finding> findings = Preflight.judge(new Preflight.Settings(prefix, Boolean.parseBoolean(reserveConcurrency), webhookReserved), facts);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("preflight %s in %s: stack %s; Lambda concurrency %d (unreserved %d)%n", FixedNames.stackName(prefix), effectiveRegion,
                facts.stackStatus().orElse("not deployed"), facts.concurrencyLimit(), facts.unreservedConcurrency());
        for (Check check : Check.values()) {
            List<Finding> of = findings.stream().filter(f -> f.check() == check).toList();
            if (of.isEmpty()) {
                out.println("  ok    " + check.title());
            }
            of.forEach(f -> out.println("  FIX   " + f));
        }
        out.println(findings.isEmpty() ? "no findings" : findings.size() + " finding(s)");
        return findings.isEmpty() ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    }
}
