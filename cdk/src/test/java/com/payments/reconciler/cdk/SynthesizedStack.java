package com.payments.reconciler.cdk;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Template;

/**
 * The one synthesis every stack test reads (CDK synthesis costs seconds; assertions on its template cost
 * nothing): the app exactly as {@link ReconcilerApp#build} makes it, with non-default context values so
 * each test can see a setting travel from context into the template.
 */
final class SynthesizedStack {

    static final Map<String, Object> CONTEXT = context();
    private static final SynthesizedStack INSTANCE = new SynthesizedStack();

    final StackConfig config;
    final ReconcilerStack stack;
    final Template template;
    final Annotations annotations;
    final Path outdir;
    final LambdaJar jar;
    final long synthMillis;

    private SynthesizedStack() {
        long start = System.nanoTime();
        outdir = Path.of(System.getProperty("reconciler.target", "target"), "cdk-test-out").toAbsolutePath();
        App app = new App(AppProps.builder().context(CONTEXT).outdir(outdir.toString()).build());
        jar = LambdaJar.fromSystemProperty();
        stack = ReconcilerApp.build(app, jar);
        config = StackConfig.fromContext(CONTEXT::get);
        template = Template.fromStack(stack);
        annotations = Annotations.fromStack(stack);
        synthMillis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("synthesis for the stack tests: " + synthMillis + " ms");
    }

    static SynthesizedStack get() {
        return INSTANCE;
    }

    private static Map<String, Object> context() {
        Map<String, Object> context = new LinkedHashMap<>();
        context.put(StackConfig.NAME_PREFIX, "test-");
        context.put(StackConfig.SCHEDULE_TIME_ZONE, "Europe/London");
        context.put(StackConfig.SCHEDULE_TIME, "02:30");
        context.put(StackConfig.GRACE_PERIOD, "PT48H");
        context.put(StackConfig.SHARDS, 8);
        context.put(StackConfig.DRY_RUN, false);
        context.put(StackConfig.WINDOW_HORIZON_DAYS, 14);
        context.put(StackConfig.PROVIDER_BASE_URL, "https://provider.test/v1");
        context.put(StackConfig.PROVIDER_SECRET_NAME, "test/provider-api-key");
        context.put(StackConfig.ALARM_EMAIL, "payments-oncall@example.com");
        context.put(StackConfig.PROVIDER_REQUESTS_PER_SECOND, 12.5);
        context.put(StackConfig.PROVIDER_MAX_CONCURRENT_REQUESTS, 16);
        context.put(StackConfig.PROVIDER_KEY_RETENTION, "PT12H");
        // As an account that can afford them, once the stack exists: the template tests check both settings in force.
        context.put(StackConfig.RESERVE_CONCURRENCY, true);
        context.put(StackConfig.TABLE_DELETION_PROTECTION, true);
        return Map.copyOf(context);
    }
}
