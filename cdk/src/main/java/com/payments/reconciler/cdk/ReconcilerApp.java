package com.payments.reconciler.cdk;

import com.payments.reconciler.workflow.DeployTarget;
import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.StackProps;

/**
 * The CDK app (cdk.json's {@code app}): one stack from the context's settings, checked by cdk-nag's
 * AwsSolutions pack, whose unsuppressed findings are errors that make {@code cdk synth} and
 * {@code cdk deploy} fail.
 */
public final class ReconcilerApp {

    public static final String STACK_SUFFIX = com.payments.reconciler.workflow.FixedNames.STACK_SUFFIX;

    private ReconcilerApp() {
    }

    public static void main(String[] args) {
        App app = new App();
        build(app, LambdaJar.fromSystemProperty());
        app.synth();
    }

    /** The stack in {@code app}, from its context; the tests synthesise exactly this. */
    public static ReconcilerStack build(App app, LambdaJar jar) {
        // Account and region come from the deploying credentials (CDK_DEFAULT_*), unresolved when synthesising offline.
        return build(app, jar, Environment.builder()
                .account(System.getenv("CDK_DEFAULT_ACCOUNT"))
                .region(System.getenv("CDK_DEFAULT_REGION"))
                .build());
    }

    /**
     * Every function uses SnapStart, which the region must offer for Java; refused at synth, before CloudFormation
     * fails at the first function. An environment-agnostic synthesis (no region) is not judged.
     */
    static void requireSnapStartRegion(String region) {
        if (region == null || region.isBlank() || software.amazon.awscdk.Token.isUnresolved(region)) {
            return;
        }
        DeployTarget.snapStartRefusal(region).ifPresent(why -> {
            throw InvalidContext.region(region, why);
        });
    }

    /** The stack for an explicit environment; an empty one is environment-agnostic (region and account as pseudo parameters). */
    public static ReconcilerStack build(App app, LambdaJar jar, Environment env) {
        StackConfig config = StackConfig.fromContext(app.getNode()::tryGetContext);
        requireSnapStartRegion(env.getRegion());
        ReconcilerStack stack = new ReconcilerStack(app, config.physicalName(STACK_SUFFIX),
                StackProps.builder().env(env)
                        .description("Hold-release reconciler: nightly Step Functions workflow releasing unsettled card holds")
                        .build(),
                config, jar);
        Aspects.of(app).add(AwsSolutionsChecks.Builder.create().verbose(true).build());
        return stack;
    }
}
